"""A sweep as a workflow: on its hosts (for --nodes, Slurm's: the job this process runs in, or
an allocation taken for it, cluster/allocate.py), with the fabric's topology where its
mode judges switches (a file given, else what Slurm's controller says inside an
allocation), run in this process (the mode's `run`), and its bad nodes taken out of service
(--drain) with a reason naming where the run is. `commscope sweep MODE`, `sweep recheck`
and the nightly loop's locate all come here.

The host list goes down once and comes back once: the request's hosts (or the
allocation's) into the mode's run, the outcome's hosts and bad nodes back here, and from
here down to cluster/drain.py; nothing below calls back up.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

from commscope import ui
from commscope.cluster.allocate import allocation, salloc_argv
from commscope.cluster.config import load as load_config
from commscope.cluster.drain import DrainPlan
from commscope.cluster.topology import site_topology
from commscope.errors import CommscopeError, Interrupted
from commscope.execute.signals import StopSignals
from commscope.records.textsafe import one_line
from commscope.sweep.modes.base import TOPOLOGY, SweepRequest
from commscope.sweep.outcome import SweepOutcome


def with_topology(request: SweepRequest, job: str | None) -> SweepRequest:
    """The request with the fabric's topology where its mode judges switches: the file it was
    given, else, where it runs in a Slurm job (`job`, else this process's), what the
    controller says."""
    environ = {"SLURM_JOB_ID": job} if job else os.environ
    for option in request.mode.options:
        if option.kind == TOPOLOGY:
            topology = site_topology(request.own.get(option.dest), environ)
            request = dataclasses.replace(request, topology=topology)
    return request


def swept(
    request: SweepRequest, db: Path | None, folder: Path | None = None, salloc: Sequence[str] | None = None
) -> SweepOutcome:
    """The sweep of `request` run in this process, stored into `db` (and kept as files in
    `folder`, where given): for --nodes on Slurm's nodes, an allocation taken with `salloc`
    (default: the site's, from --partition and --time) where this process runs in none,
    released on every way out. A stop signal while waiting for the nodes, or during the
    sweep, is Interrupted (exit 3)."""
    with StopSignals() as signals:
        if request.nodes is None:
            return request.mode.run(with_topology(request, None), db, folder)
        salloc = salloc or salloc_argv(request.nodes, load_config(), request.partition, request.time)
        with allocation(request.nodes, salloc, signals) as taken:
            request = dataclasses.replace(request, hosts=taken.hosts, job_id=taken.step_of)
            if signals.received:
                raise Interrupted(f"interrupted by {signals.received[0]}; nothing was measured")
            outcome = request.mode.run(with_topology(request, taken.job_id), db, folder)
        if signals.received:  # the sweep ended meanwhile: what it measured is stored
            raise Interrupted(f"interrupted by {signals.received[0]} (run {outcome.run_id} stored)")
        return outcome


def drained(
    plan: DrainPlan | None, outcome: SweepOutcome, stored_as: str | None = None
) -> tuple[list[str] | None, CommscopeError | None]:
    """--drain (`plan`) on a sweep's bad nodes: the hosts drained (None: not asked), and the
    refusal, raised once the --json is written (which says `drained: []` then). The reasons
    name `stored_as` ("job 812", where the run is kept as files a job's collect stores),
    else the stored run; a run kept as files for want of a store is drained by nobody."""
    if plan is None:
        return None, None
    if stored_as is None:
        if not outcome.stored:
            ui.warn("not drained: a drain's reason names a stored run; `commscope import` it, then drain")
            return None, None
        stored_as = f"run {outcome.run_id}"
    # only a node measured again alone and slow there is drained: never one a sweep flagged
    # from its pairs at once alone (all-pairs --no-retest)
    unconfirmed = [node.host for node in outcome.bad_nodes if not node.confirmed]
    if unconfirmed:
        ui.warn(
            f"not drained: {', '.join(one_line(host) for host in unconfirmed)}: named without being measured again "
            "alone (--no-retest); --drain acts only on confirmed nodes"
        )
    confirmed = [node for node in outcome.bad_nodes if node.confirmed]
    try:
        return plan.act(confirmed, len(outcome.hosts), stored_as), None
    except CommscopeError as exc:
        return [], exc
