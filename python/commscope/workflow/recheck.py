"""`commscope sweep recheck`: measure the nodes commscope drained against known-good ones and
return to service those that pass, all in this process.

Slurm allocates no drained node, not even to root. The way it allows is a maintenance
reservation (cluster/recheck.py): it holds the drained nodes and a few idle good partners
for this user alone, so the drained nodes can be resumed inside it without another job
landing on them. One all-pairs sweep then runs on an allocation of them taken in the
reservation (`salloc --reservation=commscope-recheck --no-shell`), its launches steps of
that job, stored as a sweep run; its outcome says which hosts a flag names. A node no
flag names is back in service; a node still named is drained again with the new evidence
and run in its reason.

Whatever happens (an error, Ctrl-C, SIGTERM, SIGHUP, SIGQUIT), in this order: the
allocation is given back (scancel), the nodes resumed but not judged are drained again
with their old reasons, and the reservation is deleted; a stop signal is exit 3. A drain
Slurm refuses is said by name, with the node left in service: never "stays drained".
"""

from __future__ import annotations

import dataclasses
import getpass
import sys
from pathlib import Path

from commscope import ui
from commscope.analysis.bad_nodes import SLOW, how_far
from commscope.cluster import slurm
from commscope.cluster.allocate import NO_SHELL
from commscope.cluster.drain import (
    DrainRefused,
    NodeState,
    check_can_drain,
    drain_reason,
    node_states,
    shown,
    update_argv,
)
from commscope.cluster.recheck import maintenance, partners_of, reservation_argv, resume, salloc_argv
from commscope.errors import EXIT_FAILED, EXIT_OK, CommscopeError, Interrupted, UsageError
from commscope.execute.signals import StopSignals
from commscope.sweep.modes.base import SweepRequest
from commscope.workflow.sweep import swept


def failures(outcome) -> dict[str, str]:
    """Each host the sweep names: set aside because MPI still fails or hangs at start on it
    (the launcher's words), or named by a flag, with the first flag's evidence."""
    found = {node.host: f"recheck: {node.evidence}" for node in outcome.bad_nodes if node.reason != SLOW}
    for flag in outcome.flags:
        value = flag.retest if flag.retest is not None else flag.value
        evidence = f"recheck {how_far(flag.metric, value, flag.population_median)}"
        hosts = [outcome.hosts[index] for index in flag.where]
        if flag.kind == "link":
            evidence += f" with {' and '.join(hosts)}"
        for host in hosts:
            found.setdefault(host, evidence)
    return found


def recheck(request: SweepRequest, partners: int, minutes: int, partition: str | None, db: Path, dry_run: bool) -> int:
    """Measure the nodes drained by commscope with `partners` good ones, by the all-pairs sweep
    of `request` (its hosts filled in here); the exit status (0: every node returned; 1:
    some stay drained or could not be drained again; 3: stopped by a signal)."""
    slurm.command_path("scontrol")
    states = node_states()
    ours = sorted(name for name, state in states.items() if state.ours)
    if not ours:
        ui.note('recheck: no node is out of service with a reason beginning "commscope:"; nothing to recheck')
        return EXIT_OK
    good = partners_of(states, partners)
    if len(good) < 2:
        raise UsageError(
            f"recheck: {len(good)} idle node(s) in service to measure {', '.join(ours)} against; it takes 2 at least"
        )
    hosts = ours + good
    ui.note(f"recheck: {', '.join(ours)} against {', '.join(good)}")
    salloc = salloc_argv(hosts, minutes, partition)
    if dry_run:
        for argv in (
            reservation_argv(hosts, minutes, getpass.getuser()),
            *(resume(h) for h in ours),
            [*salloc, NO_SHELL],
        ):
            sys.stdout.write(shown(argv) + "\n")
        ui.note(
            f"recheck: --dry-run: nothing was changed; then `sweep {request.mode.name}` over {', '.join(hosts)} "
            "in this process, its launches steps of that job (srun --jobid), and the job cancelled"
        )
        return EXIT_OK
    check_can_drain("recheck", "nothing was changed")
    request = dataclasses.replace(request, nodes=len(hosts))
    with StopSignals() as signals, maintenance(hosts, minutes):
        return _measure_and_judge(request, ours, states, salloc, db, signals)


def _measure_and_judge(
    request: SweepRequest,
    ours: list[str],
    states: dict[str, NodeState],
    salloc: list[str],
    db: Path,
    signals: StopSignals,
) -> int:
    resumed: list[str] = []
    lost: list[str] = []
    try:
        for host in ours:
            if signals.received:
                raise Interrupted(f"recheck: interrupted by {signals.received[0]} before the sweep")
            _slurm(resume(host))
            resumed.append(host)
        outcome = swept(request, db, salloc=salloc)
        if not outcome.stored:
            raise CommscopeError("recheck: the sweep's run could not be stored, and a reason names a stored run")
        failed = failures(outcome)
        kept = []
        for host in ours:
            resumed.remove(host)  # judged: drained again with the new evidence, or back in service
            if host not in failed:
                ui.note(f"recheck: {host} passed with its partners (run {outcome.run_id}); back in service")
            elif _drain(host, drain_reason(failed[host], f"run {outcome.run_id}")):
                kept.append(host)
                ui.warn(f"recheck: {host} stays drained: {failed[host]}, run {outcome.run_id}")
            else:
                lost.append(host)
        if signals.received:
            raise Interrupted(f"recheck: interrupted by {signals.received[0]} (run {outcome.run_id} stored)")
        return EXIT_FAILED if kept or lost else EXIT_OK
    finally:
        for host in resumed:  # resumed but not judged: out of service again, as it was
            if _drain(host, states[host].reason or drain_reason("recheck stopped", None)):
                ui.note(f"recheck: {host} drained again with its old reason")
            else:
                lost.append(host)
        if lost:
            ui.error(
                f"recheck: {', '.join(lost)} could not be drained again and {'is' if len(lost) == 1 else 'are'} "
                "in service: drain by hand (scontrol update NodeName=... State=DRAIN Reason=...)"
            )


def _slurm(argv: list[str]) -> None:
    done = slurm.run_slurm(argv)
    if done.returncode != 0:
        raise DrainRefused(f"recheck: `{shown(argv)}` failed ({done.said()})")


def _drain(host: str, reason: str) -> bool:
    """Drain `host` with `reason`; False (said) where Slurm refuses or does not answer."""
    argv = update_argv(host, "DRAIN", reason)
    try:
        done = slurm.run_slurm(argv)
    except CommscopeError as exc:
        ui.error(f"recheck: cannot drain {host} again: {exc}")
        return False
    if done.returncode != 0:
        ui.error(f"recheck: cannot drain {host} again: `{shown(argv)}` failed ({done.said()})")
        return False
    return True
