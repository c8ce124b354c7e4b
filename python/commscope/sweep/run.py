"""`commscope sweep`: one pairs job over the hosts, flags, a serial retest of the suspects.

1. One launch of `commscope-bench pairs` with one rank per host (one-to-all, all-pairs)
   or one rank per core of one host, pinned (intra). It is stored as ONE run: every
   pair and metric a point with its statistics.
2. analysis.sweep finds node candidates and suspect pairs per metric (through
   analysis.sweep_verdicts, which the report uses on stored sweeps too).
3. The suspects are measured again in a second launch, `pairs --schedule FILE
   --serial`, one pair at a time while the others wait, so a pair slow only because
   it shared the network (or, here, the CPUs) with the rest of its round recovers. The
   retest is stored as a run too.
4. The verdicts: bad nodes and bad links, each with its evidence, and a table in the
   layout of the one-host-to-every-node tables people make by hand. The rules, the
   retest run's id (and for intra sweeps the cores' topology) go into the sweep run's
   provenance, so `commscope report` judges the stored sweep as it was judged here.

What differs between the modes (the hosts, the launch's layout, the schedule, what the
run keeps) each mode says itself (sweep/modes/). Hosts come from --hosts or --hostfile;
with --nodes N from a Slurm allocation, which the caller takes (the combination is checked
here). The sweep returns a typed outcome (sweep/outcome.py): acting on it (--drain) and
its --json are the caller's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from commscope import ui
from commscope.analysis.bad_nodes import flagged_nodes, set_aside_nodes
from commscope.analysis.fabric import fabric_record
from commscope.analysis.start_faults import StartFault
from commscope.analysis.sweep import Flag, matrix_from_run, number
from commscope.analysis.sweep_check import check_sweep
from commscope.analysis.sweep_verdicts import (
    RetestPlan,
    SweepJudgement,
    judgement,
    plan_retest,
    recorded_fabric,
    sweep_record,
    values_alone,
)
from commscope.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, CommscopeError, UsageError
from commscope.execute.core import MPICH, OPENMPI, core_mpi_flavour, find_core
from commscope.execute.keep import Destination, Stored, storing, summary
from commscope.execute.launchers import resolve_launcher, split_host
from commscope.execute.reporter import QuietReporter
from commscope.execute.runner import Runner, RunRequest, finalize_grace_s, plan
from commscope.execute.signals import StopSignals
from commscope.execute.time_limit import TimeLimit
from commscope.output.sweep_view import heatmap_files, matrix_document, sweep_table, verdict_lines, where_text
from commscope.records.duration import format_duration
from commscope.records.hostfile import read_hostfile
from commscope.records.run import Run
from commscope.records.run_kinds import SWEEP_KEY
from commscope.records.suite import Entry
from commscope.sweep import rest
from commscope.sweep.fabric_hosts import fabric_of
from commscope.sweep.inputs import check_output, stream_folder
from commscope.sweep.modes.base import SweepRequest
from commscope.sweep.outcome import SweepOutcome
from commscope.sweep.survive import PAIRS, PROBE, Attempt, Launch, attempt_of, retry_reason, survive

#: Start-up probes run side by side at most.
PROBES_AT_ONCE = 16
#: A host with one slot in each launcher's hostfile (Open MPI --hostfile, Hydra -f; srun -w
#: FILE takes names alone).
HOSTFILE_LINE = {OPENMPI: "{} slots=1", MPICH: "{}:1"}


def hosts_of(request: SweepRequest) -> list[str]:
    """The hosts of the sweep, from --hosts or the hostfile (read here, once), checked for
    the mode; --from's host first (rank 0 is the root of the schedule)."""
    if request.hosts and request.hostfile:
        raise UsageError("give hosts either with --hosts or with --hostfile, not both")
    if request.hostfile:
        given = read_hostfile(request.hostfile)
    else:
        slotted = [entry for entry in request.hosts if split_host(entry)[1] is not None]
        if slotted:
            raise UsageError(
                f"--hosts {slotted[0]}: a sweep runs one rank per host (intra: --np ranks); "
                "give host names without :slots"
            )
        given = list(request.hosts)
    return request.mode.pick_hosts(request, list(dict.fromkeys(given)), given)


@dataclass
class SweepResult:
    run: Run
    retest_run: Run | None
    judgement: SweepJudgement


class Sweeper:
    def __init__(self, request: SweepRequest) -> None:
        self.request = request
        self.hosts = hosts_of(request)
        self.folder = stream_folder()  # refused here, before anything measures
        check_output(request.json_out, "--json")
        check_output(request.plot, "--plot", folder=True)
        self.core = find_core()
        finalize_grace_s()  # a bad setting is refused before the first launch
        flavour = core_mpi_flavour(self.core)
        # launches that are steps of a job this process does not run in start with srun too
        if request.job_id:
            self.launcher = resolve_launcher(request.launcher, flavour, {**os.environ, "SLURM_JOB_ID": request.job_id})
        else:
            self.launcher = resolve_launcher(request.launcher, flavour)
        self.flavour = flavour
        self.layout = request.mode.layout(request, self.hosts)
        self.np = self.layout.np
        self.fabric = None  # with a topology: said before measuring, kept with the run
        if request.topology is not None:
            self.fabric = fabric_of(request.topology, self.hosts, "sweep")
        #: The hosts set aside for failing or hanging at MPI start (sweep/survive.py), and
        #: the hosts of the last launch, by rank.
        self.aside: list[StartFault] = []
        self.launched_on: list[str] = list(self.hosts)
        #: --time-limit over the launches the mode plans (a retry takes from what is left)
        self.time_limit = None
        if request.time_limit:
            said = f"--time-limit {format_duration(request.time_limit)}"
            self.time_limit = TimeLimit(request.time_limit, request.mode.launches(request), said)
            ui.note(f"sweep: {self.time_limit.plan_line}")

    @property
    def live(self) -> list[str]:
        """The hosts not set aside, in rank order: those the next launch runs on."""
        aside = {fault.host for fault in self.aside}
        return [host for host in self.hosts if host not in aside]

    def _planned(self, flags: list[str], hostfile: str | None = None, np: int | None = None, how: Launch = PAIRS):
        """The launch of the core with `flags` as the mode lays it out: on its hosts, or on
        the hosts of `hostfile` (one rank each), never a --host list thousands of names long."""
        layout = self.layout
        np = self.np if np is None else np
        timeout = self.request.timeout
        run_request = RunRequest(
            np=np,
            launcher=self.request.launcher,
            bind=layout.bind,
            hosts=layout.hosts,
            hostfile=hostfile,
            label=self.request.label,
            system=self.request.system,
            timeout=how.timeout if how.timeout is not None else timeout,
            argv=self.request.argv,
            start_limit=how.start_limit_under(timeout),
            job_id=self.request.job_id,
        )
        entry = Entry(benchmark=how.benchmark, flags=flags, ranks=np, placement=layout.placement)
        (item,) = plan(run_request, [entry], self.core, self.launcher, self.flavour)
        if layout.env:
            item = dataclasses.replace(
                item, command=dataclasses.replace(item.command, env={**item.command.env, **layout.env})
            )
        return run_request, item

    def launch(self, flags: list[str], signals: StopSignals) -> Run:
        """One launch of the core with `flags` on the live hosts; one stopped for running past
        --timeout, or one that failed at start, is started again, --retries times at most
        (once by default). An MPI start-up can hang or crash now and then (Open MPI's TCP
        wire-up across many hosts, on a loaded machine, more often the more hosts), and a
        sweep, a locate round above all, should not be lost to one such launch. A failure at
        start that names a host (sweep/survive.py) sets it aside instead: the run is given
        back as it failed, for the caller to plan again without it (`aside` grew). A mode
        whose ranks share one host sets none aside."""
        hosts = self.live
        self.launched_on = hosts
        retries = self.request.retries
        run, found = survive(
            lambda: self.launch_once(flags, signals, hosts),
            lambda run: attempt_of(run, hosts),
            (lambda groups: self.probes(groups, signals)) if self.layout.hostfile else None,
            hosts,
            retries,
            lambda run, number: retry_reason(run, signals, number, retries),
            signals,
        )
        self.aside += found
        return run

    def probes(self, groups: Sequence[Sequence[str]], signals: StopSignals) -> list[Attempt]:
        """A start-up probe (`hello`) on each group of hosts, side by side."""
        with self.streams_shared(), ThreadPoolExecutor(max_workers=min(len(groups), PROBES_AT_ONCE)) as pool:
            runs = list(pool.map(lambda group: self.launch_here([], signals, group, PROBE), groups))
        return [attempt_of(run, group, probe=True) for run, group in zip(runs, groups)]

    def launch_once(self, flags: list[str], signals: StopSignals, hosts: Sequence[str], how: Launch = PAIRS) -> Run:
        """One launch on `hosts` (one rank each; a mode that lays its ranks out on one host
        ignores them), its stream where every host sees it."""
        with self.streams_shared():
            return self.launch_here(flags, signals, hosts, how)

    @contextlib.contextmanager
    def streams_shared(self) -> Iterator[None]:
        """Launches started inside write their streams under the sweep's folder: rank 0 writes
        the core's JSONL stream, maybe on another host whose /tmp is its own. Set once around
        launches run side by side (tempfile's folder is one for the process)."""
        previous, tempfile.tempdir = tempfile.tempdir, self.folder
        try:
            yield
        finally:
            tempfile.tempdir = previous

    def launch_here(self, flags: list[str], signals: StopSignals, hosts: Sequence[str], how: Launch) -> Run:
        with tempfile.TemporaryDirectory(prefix="commscope-hosts-") as folder:  # read by the launcher, here
            hostfile = self._hostfile(Path(folder), hosts) if self.layout.hostfile else None
            np = len(hosts) if self.layout.hostfile else self.np
            run_request, item = self._planned(flags, hostfile, np, how)
            ui.note(f"sweep: {item.command.shell()}")
            quiet = Runner(self.core, run_request, signals, reporter=QuietReporter())  # prints its own table
            return quiet.execute(item, 0, self.time_limit if how.measures else None)

    def _hostfile(self, folder: Path, hosts: Sequence[str]) -> str:
        """The hosts in the launcher's own hostfile format, one slot each."""
        line = HOSTFILE_LINE.get(getattr(self.launcher, "flavour", None), "{}")
        path = folder / "hosts"
        path.write_text("".join(line.format(host) + "\n" for host in hosts), encoding="utf-8")
        return str(path)

    def schedule_flags(self) -> list[str]:
        return [
            "--schedule",
            self.request.mode.schedule,
            "--metric",
            ",".join(self.request.metrics),
            *self.request.core_flags,
        ]

    def measure(self, signals: StopSignals) -> Run:
        """The sweep's launches as one run (sweep/rest.py): the mode's schedule on the hosts;
        after a launch that set hosts aside, or ended part-way (--retries times at most), the
        pairs left on the hosts still in the sweep, until none is left or a launch fails
        naming no host. A sweep whose pairs left were all measured is complete."""
        if not self.layout.hostfile:  # ranks on one host: one launch, as it ended
            return self.launch(self.schedule_flags(), signals)
        launches: list[tuple[Run, list[str]]] = []
        partial = 0
        while True:
            aside = len(self.aside)
            flags = self.schedule_flags()
            with tempfile.TemporaryDirectory(prefix="commscope-rest-", dir=self.folder) as folder:
                if launches:
                    done = rest.measured_keys(rest.one_run(launches, self.live).points, self.live)
                    left = rest.rest_schedule(self.request.mode.schedule, self.live, self.request.metrics, done)
                    if not left or len(self.live) < self.request.mode.least_hosts:
                        break
                    schedule = Path(folder) / "rest.pairs"
                    schedule.write_text("# the pairs left to measure\n" + left)
                    flags = ["--schedule", str(schedule), *flags[2:]]
                run = self.launch(flags, signals)
            launches.append((run, self.launched_on))
            if signals.received or run.status == "complete":
                return rest.one_run(launches, self.live)
            if len(self.aside) > aside:
                continue  # planned again without them
            if not run.points or partial >= self.request.retries:
                return rest.one_run(launches, self.live)
            partial += 1
            ui.warn(f"sweep: {run.status_reason}; the pairs left measured again")
        return dataclasses.replace(rest.one_run(launches, self.live), status="complete", status_reason=None)

    def retest(self, plan: RetestPlan, signals: StopSignals, folder: Path) -> Run:
        schedule = folder / "retest.pairs"
        schedule.write_text(
            "# suspects of the sweep, measured one at a time\n" + "".join(f"{a} {b}\n" for a, b in plan.all_pairs())
        )
        metrics = ",".join(plan.metrics())
        flags = ["--schedule", str(schedule), "--serial", "--metric", metrics, *self.request.core_flags]
        return self.launch(flags, signals)

    def record(self, run: Run) -> dict:
        """What the sweep run keeps of its judgement (analysis.sweep_verdicts)."""
        topology = fabric_record(self.fabric, self.hosts)
        mode = self.request.mode
        record = sweep_record(
            mode.name, self.request.policy, self.request.retest, topology=topology, **mode.recorded(run)
        )
        if self.aside:  # judged again from the store as here
            record["set_aside"] = [fault.record() for fault in self.aside]
        return record

    def sweep(self, stored: Stored) -> SweepResult:
        """Measure, retest the suspects and judge; each run stored (or kept as files) as soon
        as it is measured, through execute/keep."""
        with StopSignals() as signals:
            run = self.measure(signals)
            run.provenance = {**(run.provenance or {}), SWEEP_KEY: self.record(run), **self.request.provenance}
            stored.add(run)
            if signals.received or run.status != "complete" or not run.points:
                raise _Stopped(run, signals)
            matrix = matrix_from_run(run)
            fabric = recorded_fabric(run, matrix.hosts)  # as recorded: judged as the report will judge it
            plan = plan_retest(matrix, self.request.policy, fabric)
            retest_run, alone = None, {}
            if self.request.retest and plan:
                with tempfile.TemporaryDirectory(prefix="commscope-sweep-", dir=self.folder) as folder:
                    retest_run = self.retest(plan, signals, Path(folder))
                retest_run.provenance = {**(retest_run.provenance or {}), SWEEP_KEY: {"retest_of": run.id}}
                stored.add(retest_run)
                if run.id is not None and retest_run.id is not None:
                    link = {SWEEP_KEY: {**run.provenance[SWEEP_KEY], "retest_run": retest_run.id}}
                    stored.store.add_provenance(run.id, link)
                if signals.received:  # stored as far as it got; no verdict from half a retest
                    raise _Stopped(retest_run, signals)
                alone = values_alone(plan, matrix_from_run(retest_run))
            retest_id = retest_run.id if retest_run else None
            judged = judgement(matrix, self.request.policy, plan, alone, retest_id, fabric=fabric, set_aside=self.aside)
        return SweepResult(run, retest_run, judged)


class _Stopped(CommscopeError):
    def __init__(self, run: Run, signals: StopSignals) -> None:
        where = f"stored (run {run.id})" if run.id is not None else "kept as files (see above)"
        if signals.received:
            super().__init__(f"the sweep was interrupted by {signals.received[0]}; what it measured is {where}")
        else:
            what = f"run {run.id}" if run.id is not None else "kept as files"
            super().__init__(f"the sweep did not complete ({what}: {run.status_reason or run.status})")
        self.exit_code = EXIT_INTERRUPTED if signals.received else EXIT_FAILED


def check_nodes(request: SweepRequest) -> None:
    """--nodes (and salloc's --partition, --time) as the mode can take them."""
    mode = request.mode
    if request.nodes is None:
        if request.partition or request.time:
            raise UsageError("--partition and --time go with --nodes (Slurm finds the hosts)")
        return
    if mode.no_nodes is not None:
        raise UsageError(f"--nodes: {mode.no_nodes}")
    if request.hosts or request.hostfile:
        raise UsageError("--nodes takes the hosts from Slurm: give it without --hosts or --hostfile")
    if request.nodes < mode.least_hosts:
        raise UsageError(f"--nodes {request.nodes}: {mode.name} needs at least {mode.least_hosts} nodes")


@dataclass
class LinkOutcome(SweepOutcome):
    """A link sweep's outcome: its judgement (the --json's matrix and flags, the heatmaps)."""

    judgement: SweepJudgement | None = None
    plot: Path | None = None

    @property
    def flags(self) -> list[Flag]:
        return self.judgement.flags()

    def document(self, drained: list[str] | None) -> dict:
        return matrix_document(self.judgement, self.run_id, self.retest_run_id, drained, self.bad_nodes)

    def write_plots(self) -> bool:
        if self.plot is None:
            return False
        judged = self.judgement
        try:
            for path in heatmap_files(judged.matrix, self.flags, self.plot, judged.leaf_groups):
                ui.note(f"heatmap: {path}")
        except OSError as exc:
            ui.warn(f"cannot write --plot {self.plot}: {exc.strerror or exc}")
            return True
        return False


def run_sweep(request: SweepRequest, db: Path | None, folder: Path | None = None) -> LinkOutcome:
    """Measure, judge, say; the outcome for the caller to act on and finish. The runs go into
    `db` (None: none), and as files into `folder` where one is given."""
    sweeper = Sweeper(request)
    destination = Destination(db, request.argv, folder, label=request.label, system=request.system)
    with storing(destination, "sweep") as stored:
        result = sweeper.sweep(stored)
    judged = result.judgement
    matrix, flags = judged.matrix, judged.flags()
    sys.stdout.write(sweep_table(matrix, flags, judged.switches))
    for note in judged.notes:
        ui.warn(note)
    for level, line in verdict_lines(judged):
        (ui.warn if level == "warn" else ui.note)(line)
    sys.stdout.write(request.mode.lines_after(result.run))
    worse = against_baseline(result.run, request.baseline)
    named = len(flags) + len(judged.switches) + len(judged.set_aside)
    if not stored.kept and db is not None:
        retest = f", retest run {result.retest_run.id}" if result.retest_run else ""
        counted = f"{named} flag{'s' if named != 1 else ''}"
        ui.note(f"stored sweep run {result.run.id}{retest} in {db}; {counted}")
    sys.stdout.flush()
    return LinkOutcome(
        mode=request.mode.name,
        hosts=tuple(matrix.labels),
        run_id=result.run.id,
        retest_run_id=result.retest_run.id if result.retest_run else None,
        bad_nodes=[*set_aside_nodes(judged.set_aside), *flagged_nodes(flags, matrix.labels)],
        status=EXIT_FAILED if named or worse else EXIT_OK,
        json_out=request.json_out,
        kept_status=summary(stored, db) if stored.kept else None,
        judgement=judged,
        plot=request.plot,
    )


def against_baseline(run: Run, baseline: Run | None) -> bool:
    """Warn of what is worse than the baseline sweep as `commscope check` judges it (pairs
    matched by host, a baseline host left out fails); True when something is."""
    if baseline is None:
        return False
    check = check_sweep(run, baseline)
    labels = check.matrix.labels
    for change in check.changes:
        ui.warn(
            f"worse than baseline run {baseline.id}: {where_text(change.pair, labels)} {change.metric} "
            f"{number(change.new)} (was {number(change.base)}, x{change.ratio:.2f})"
        )
    if check.missing_hosts:
        ui.warn(f"hosts of baseline run {baseline.id} missing: {', '.join(check.missing_hosts)}")
    return not check.passed
