"""`commscope sweep recheck`: measure the nodes commscope drained against known-good ones and
return to service those that pass.

Slurm allocates no drained node, not even to root. The way it allows is a maintenance
reservation: `scontrol create reservation ReservationName=commscope-recheck Nodes=...
Flags=MAINT,IGNORE_JOBS Users=ME StartTime=now Duration=MIN` holds the drained nodes and a
few idle good partners for this user alone, so the drained nodes can be resumed inside it
without another job landing on them. One all-pairs sweep (`commscope sweep all-pairs
--nodes N`, stored as a sweep run) then runs in `salloc --reservation=commscope-recheck`.
A node no flag names is back in service; a node still named is drained again with the new
evidence and run in its reason. Whatever happens (an error, Ctrl-C), the nodes resumed but
not judged are drained again with their old reasons and the reservation is deleted.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from commscope import ui
from commscope.analysis.bad_nodes import how_far
from commscope.cluster import slurm
from commscope.cluster.allocate import run_in_allocation
from commscope.cluster.drain import (
    DrainRefused,
    NodeState,
    check_can_drain,
    drain_reason,
    node_states,
    shown,
    update_argv,
)
from commscope.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, CommscopeError, UsageError

RESERVATION = "commscope-recheck"
#: A node Slurm may give the recheck as a known-good partner: idle and in no other state.
GOOD_STATES = ("IDLE",)


def reservation_argv(hosts: Sequence[str], minutes: int, user: str) -> list[str]:
    return [
        "scontrol",
        "create",
        "reservation",
        f"ReservationName={RESERVATION}",
        f"Nodes={','.join(hosts)}",
        "Flags=MAINT,IGNORE_JOBS",
        f"Users={user}",
        "StartTime=now",
        f"Duration={minutes}",
    ]


def salloc_argv(hosts: Sequence[str], minutes: int, partition: str | None) -> list[str]:
    return [
        "salloc",
        f"--reservation={RESERVATION}",
        f"--nodelist={','.join(hosts)}",
        f"--nodes={len(hosts)}",
        "--ntasks-per-node=1",
        f"--time={minutes}",
        *([f"--partition={partition}"] if partition else []),
    ]


def _run(argv: list[str]) -> None:
    done = slurm.run_slurm(argv)
    if done.returncode != 0:
        message = " ".join((done.stderr or done.stdout).split()) or f"exit status {done.returncode}"
        raise DrainRefused(f"recheck: `{shown(argv)}` failed ({message})")


@contextlib.contextmanager
def maintenance(hosts: Sequence[str], minutes: int) -> Iterator[None]:
    """The reservation over `hosts` while the block runs; deleted after, whatever happens."""
    _run(reservation_argv(hosts, minutes, getpass.getuser()))
    try:
        yield
    finally:
        done = slurm.run_slurm(["scontrol", "delete", f"ReservationName={RESERVATION}"])
        if done.returncode != 0:
            ui.warn(f"recheck: cannot delete reservation {RESERVATION}: {' '.join(done.stderr.split())}")


def partners_of(states: dict[str, NodeState], count: int) -> list[str]:
    """The first `count` idle nodes that are in service (by name), as known-good partners."""
    return sorted(name for name, state in states.items() if state.state.upper() in GOOD_STATES)[:count]


def failures(document: dict) -> dict[str, str]:
    """Each host a flag of the sweep's --json names, with the first flag's evidence."""
    found: dict[str, str] = {}
    for flag in document["flags"]:
        value = flag["retest"] if flag["retest"] is not None else flag["value"]
        evidence = f"recheck {how_far(flag['metric'], value, flag['population_median'])}"
        if flag["kind"] == "link":
            evidence += f" with {' and '.join(flag['where'])}"
        for host in flag["where"]:
            found.setdefault(host, evidence)
    return found


def recheck(
    partners: int, minutes: int, partition: str | None, sweep_args: Sequence[str], db: Path, dry_run: bool
) -> int:
    """Measure the nodes drained by commscope with `partners` good ones; the exit status (0:
    every node returned; 1: some stay drained)."""
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
    with tempfile.TemporaryDirectory(prefix="commscope-recheck-") as folder:
        out = Path(folder) / "recheck.json"
        command = [sys.executable, "-m", "commscope", "sweep", "all-pairs", "--nodes", str(len(hosts))]
        command += ["--json", str(out), "--db", str(db), *sweep_args]
        steps = [reservation_argv(hosts, minutes, getpass.getuser()), *(update_argv(h, "RESUME") for h in ours)]
        if dry_run:
            for argv in [*steps, [*salloc_argv(hosts, minutes, partition), "--", *command]]:
                sys.stdout.write(shown(argv) + "\n")
            ui.note("recheck: --dry-run: nothing was changed")
            return EXIT_OK
        check_can_drain()
        with maintenance(hosts, minutes):
            return _measure_and_judge(ours, states, hosts, minutes, partition, command, out)


def _measure_and_judge(
    ours: list[str],
    states: dict[str, NodeState],
    hosts: list[str],
    minutes: int,
    partition: str | None,
    command: list[str],
    out: Path,
) -> int:
    resumed: list[str] = []
    try:
        for host in ours:
            _run(update_argv(host, "RESUME"))
            resumed.append(host)
        code = run_in_allocation(salloc_argv(hosts, minutes, partition), command)
        if not out.exists() or code not in (EXIT_OK, EXIT_FAILED):
            raise CommscopeError(
                f"recheck: the sweep did not judge the nodes (exit status {code}); they stay drained"
                if code != EXIT_USAGE
                else "recheck: the sweep refused its options (above); the nodes stay drained"
            )
        document = json.loads(out.read_text())
        failed = failures(document)
        kept = []
        for host in ours:
            if host in failed:
                _run(update_argv(host, "DRAIN", drain_reason(failed[host], f"run {document['run_id']}")))
                kept.append(host)
                ui.warn(f"recheck: {host} stays drained: {failed[host]}, run {document['run_id']}")
            else:
                ui.note(f"recheck: {host} passed with its partners (run {document['run_id']}); back in service")
            resumed.remove(host)
        return EXIT_FAILED if kept else EXIT_OK
    finally:
        for host in resumed:  # resumed but not judged: out of service again, as it was
            slurm.run_slurm(update_argv(host, "DRAIN", states[host].reason or drain_reason("recheck stopped", None)))
