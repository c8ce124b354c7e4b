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

Hosts come from --hosts or --hostfile; with --nodes N the command line (cli/sweep.py) takes
them from a Slurm allocation (cluster/allocate.py) and checks the combination here.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from commscope import ui
from commscope.analysis.bad_nodes import NodeFinding, flagged_nodes
from commscope.analysis.fabric import fabric_record
from commscope.analysis.locate_verdict import LOCATE_MODE, MIN_HOSTS
from commscope.analysis.sweep import PAIR_METRICS, Policy, matrix_from_run, number
from commscope.analysis.sweep_check import check_sweep
from commscope.analysis.sweep_verdicts import (
    SWEEP_KEY,
    RetestPlan,
    SweepJudgement,
    judgement,
    plan_retest,
    recorded_fabric,
    stored_topology,
    sweep_record,
    values_alone,
)
from commscope.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, CommscopeError, UsageError
from commscope.execute.core import MPICH, OPENMPI, core_mpi_flavour, find_core
from commscope.execute.cpu_topology import cpu_topology
from commscope.execute.keep import Destination, Stored, storing, summary
from commscope.execute.launchers import resolve_launcher, split_host
from commscope.execute.outcome import ONCE_MORE, failed_at_start, timed_out
from commscope.execute.reporter import QuietReporter
from commscope.execute.runner import Runner, RunRequest, finalize_grace_s, plan
from commscope.execute.signals import StopSignals
from commscope.output.sweep_view import (
    heatmap_files,
    intra_table,
    matrix_document,
    sweep_table,
    verdict_lines,
    where_text,
)
from commscope.records.benchmarks import PAIRS_BENCHMARK
from commscope.records.hostfile import read_hostfile
from commscope.records.run import Run
from commscope.records.suite import Entry
from commscope.records.topology import Topology
from commscope.sweep.fabric_hosts import fabric_of
from commscope.sweep.inputs import check_output, stream_folder

#: A host with one slot in each launcher's hostfile (Open MPI --hostfile, Hydra -f; srun -w
#: FILE takes names alone).
HOSTFILE_LINE = {OPENMPI: "{} slots=1", MPICH: "{}:1"}
#: Pinning for intra-node sweeps: each rank on its own core, so a pair is a pair of cores.
PIN_ENV = {"OMPI_MCA_hwloc_base_binding_policy": "core", "HYDRA_BINDING": "core"}


@dataclass
class SweepRequest:
    mode: str
    hosts: tuple[str, ...] = ()
    hostfile: str | None = None
    nodes: int | None = None  # --nodes: the hosts are a Slurm allocation's (cli/sweep.py fills them in)
    partition: str | None = None  # salloc's, when --nodes asks Slurm for the nodes
    time: str | None = None
    source: str | None = None  # one-to-all: the host every other is measured from
    np: int | None = None  # intra: ranks (default: this machine's cores)
    metrics: tuple[str, ...] = PAIR_METRICS
    policy: Policy = field(default_factory=Policy)
    launcher: str = "auto"
    bind: str = "core"  # one-to-all, all-pairs; intra pins every rank
    label: str | None = None
    system: str | None = None
    timeout: float | None = None
    #: How many times a launch stopped at its timeout or failed at start is started again.
    retries: int = 1
    retest: bool = True
    baseline: Run | None = None  # a stored link sweep, read before measuring (cli/sweep.py)
    json_out: Path | None = None
    plot: Path | None = None
    core_flags: Sequence[str] = ()
    argv: Sequence[str] = field(default_factory=lambda: list(sys.argv))
    #: The fabric's switches (--topology FILE, or scontrol inside an allocation; cli/sweep.py)
    topology: Topology | None = None


def least_hosts(mode: str) -> int:
    """The fewest hosts a mode can judge: a pair for a link sweep, MIN_HOSTS for locate."""
    return MIN_HOSTS if mode == LOCATE_MODE else 2


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
    hosts = list(dict.fromkeys(given))
    if request.mode == "intra":
        if len(hosts) > 1:
            raise UsageError(f"intra sweeps one host; got {len(hosts)} ({', '.join(hosts)})")
        return hosts
    if request.mode == LOCATE_MODE:
        twice = sorted({host for host in given if given.count(host) > 1})
        if twice:
            raise UsageError(f"locate: {', '.join(twice)} named more than once: each host is one rank of every round")
    least = least_hosts(request.mode)
    if len(hosts) < least:
        got = f", got {len(hosts)}" if hosts else ""
        why = (
            f": with fewer, one round's pairs cannot single out a slow one; `commscope sweep all-pairs` measures "
            f"them in {max(len(hosts) - 1, 1)} rounds"
            if request.mode == LOCATE_MODE and hosts
            else " (--hosts H1,H2,..., --hostfile FILE or --nodes N)"
        )
        raise UsageError(f"{request.mode} needs at least {least} hosts{got}{why}")
    if request.source is not None:
        if request.source not in hosts:
            raise UsageError(f"--from {request.source}: not one of the hosts ({', '.join(hosts)})")
        hosts.remove(request.source)
        hosts.insert(0, request.source)  # rank 0 is the root of the schedule
    return hosts


@dataclass
class SweepResult:
    run: Run
    retest_run: Run | None
    judgement: SweepJudgement


def retry_reason(run: Run, signals: StopSignals, attempt: int = 1, retries: int = 1) -> str | None:
    """Why a launch is started again, as the warning says it (None: it is not). The one
    place that decides it: a launch stopped at --timeout, or one a rank of which died (or
    whose launcher failed) before anything was measured; never one a stop signal ended.
    `attempt` of `retries` (--retries) is the start about to be made again."""
    if signals.received:
        return None
    if timed_out(run.status, run.status_reason):
        why, once = "the launch was stopped at --timeout", "starting it once more (only once)"
    elif failed_at_start(run.status, run.status_reason, len(run.points)):
        why, once = run.status_reason, ONCE_MORE
    else:
        return None
    return f"{why}; {once if retries == 1 else f'starting it again (retry {attempt} of {retries})'}"


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
        self.launcher = resolve_launcher(request.launcher, flavour)
        self.flavour = flavour
        self.pinned = True
        if request.mode == "intra":
            cores = len(os.sched_getaffinity(0))
            self.np = request.np or cores
            if self.np < 2:
                raise UsageError("an intra-node sweep needs at least 2 ranks (--np)")
            if self.np > cores:
                self.pinned = False
                ui.warn(
                    f"intra: {self.np} ranks on {cores} cores: ranks outnumber cores, so they are not pinned "
                    "(a pair is then two ranks, not two cores; labels name ranks sharing a core by rank)"
                )
        else:
            self.np = len(self.hosts)
        self.fabric = None  # all-pairs with a topology: said before measuring, kept with the run
        if request.mode == "all-pairs" and request.topology is not None:
            self.fabric = fabric_of(request.topology, self.hosts, "sweep")

    def _planned(self, flags: list[str], hostfile: str | None = None):
        """The launch of the core with `flags`: intra on its host, the others on the hosts of
        `hostfile` (one rank each), never a --host list thousands of names long."""
        intra = self.request.mode == "intra"
        run_request = RunRequest(
            np=self.np,
            launcher=self.request.launcher,
            bind=("core" if self.pinned else "none") if intra else self.request.bind,
            hosts=tuple(self.hosts) if intra else (),
            hostfile=None if intra else hostfile,
            label=self.request.label,
            system=self.request.system,
            timeout=self.request.timeout,
            argv=self.request.argv,
        )
        entry = Entry(
            benchmark=PAIRS_BENCHMARK, flags=flags, ranks=self.np, placement="intra-node" if intra else "inter-node"
        )
        (item,) = plan(run_request, [entry], self.core, self.launcher, self.flavour)
        if intra and self.pinned:
            item = dataclasses.replace(
                item, command=dataclasses.replace(item.command, env={**item.command.env, **PIN_ENV})
            )
        return run_request, item

    def launch(self, flags: list[str], signals: StopSignals) -> Run:
        """One launch of the core with `flags`; one stopped for running past --timeout, or
        one that failed at start, is started again, --retries times at most (once by
        default). An MPI start-up can hang or crash now and then (Open MPI's TCP wire-up
        across many hosts, on a loaded machine, more often the more hosts), and a sweep, a
        locate round above all, should not be lost to one such launch."""
        run = self._launch_once(flags, signals)
        for attempt in range(1, self.request.retries + 1):
            retry = retry_reason(run, signals, attempt, self.request.retries)
            if retry is None:
                break
            ui.warn(f"sweep: {retry}")
            run = self._launch_once(flags, signals)
        return run

    def _launch_once(self, flags: list[str], signals: StopSignals) -> Run:
        with tempfile.TemporaryDirectory(prefix="commscope-hosts-") as folder:  # read by the launcher, here
            hostfile = None if self.request.mode == "intra" else self._hostfile(Path(folder))
            run_request, item = self._planned(flags, hostfile)
            ui.note(f"sweep: {item.command.shell()}")
            # rank 0 writes the core's JSONL stream, maybe on another host whose /tmp is its own
            previous, tempfile.tempdir = tempfile.tempdir, self.folder
            try:
                quiet = Runner(self.core, run_request, signals, reporter=QuietReporter())  # prints its own table
                return quiet.execute(item, 0)
            finally:
                tempfile.tempdir = previous

    def _hostfile(self, folder: Path) -> str:
        """The hosts in the launcher's own hostfile format, one slot each."""
        line = HOSTFILE_LINE.get(getattr(self.launcher, "flavour", None), "{}")
        path = folder / "hosts"
        path.write_text("".join(line.format(host) + "\n" for host in self.hosts), encoding="utf-8")
        return str(path)

    def schedule_flags(self) -> list[str]:
        schedule = "one-to-all:0" if self.request.mode == "one-to-all" else "all-pairs"
        return ["--schedule", schedule, "--metric", ",".join(self.request.metrics), *self.request.core_flags]

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
        cpus = None
        if self.request.mode == "intra":  # the topology of the host measured, for the report
            used = {cpu for point in run.points if point.pair for cpu in (point.pair.src_cpu, point.pair.dst_cpu)}
            cpus = {cpu: where for cpu, where in cpu_topology().items() if cpu in used}
        topology = fabric_record(self.fabric, self.hosts)
        return sweep_record(self.request.mode, self.request.policy, self.request.retest, cpus, topology)

    def sweep(self, stored: Stored) -> SweepResult:
        """Measure, retest the suspects and judge; each run stored (or kept as files) as soon
        as it is measured, through execute/keep."""
        with StopSignals() as signals:
            run = self.launch(self.schedule_flags(), signals)
            run.provenance = {**(run.provenance or {}), SWEEP_KEY: self.record(run)}
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
            judged = judgement(matrix, self.request.policy, plan, alone, retest_id, fabric=fabric)
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
    if request.nodes is None:
        if request.partition or request.time:
            raise UsageError("--partition and --time go with --nodes (Slurm finds the hosts)")
        return
    if request.mode == "intra":
        raise UsageError("--nodes: intra sweeps the cores of the host it runs on; run it inside a job on that node")
    if request.hosts or request.hostfile:
        raise UsageError("--nodes takes the hosts from Slurm: give it without --hosts or --hostfile")
    if request.nodes < least_hosts(request.mode):
        raise UsageError(f"--nodes {request.nodes}: {request.mode} needs at least {least_hosts(request.mode)} nodes")


#: What is done with a verdict's bad nodes once the run is stored (`--drain`: cluster/drain.py):
#: called with the nodes, the number of hosts swept and the stored run's id; returns the hosts
#: it took out of service (the --json's `drained`), or raises a CommscopeError having taken none.
OnBadNodes = Callable[[list[NodeFinding], int, int], list[str]]


def drain_found(on_bad_nodes: OnBadNodes, nodes: list[NodeFinding], hosts: int, run_id: int):
    """`on_bad_nodes` once the run is stored: the hosts drained, and its refusal (raised by the
    caller once the --json is written, which says `drained: []` then)."""
    sys.stdout.flush()
    try:
        return on_bad_nodes(nodes, hosts, run_id), None
    except CommscopeError as exc:
        return [], exc


def run_sweep(request: SweepRequest, db: Path, on_bad_nodes: OnBadNodes | None = None) -> int:
    """Measure, judge, say; `on_bad_nodes(nodes, hosts swept, run id)` once the run is stored
    (--drain)."""
    sweeper = Sweeper(request)
    with storing(Destination(db, request.argv, label=request.label, system=request.system), "sweep") as stored:
        result = sweeper.sweep(stored)
    matrix, flags = result.judgement.matrix, result.judgement.flags()
    sys.stdout.write(sweep_table(matrix, flags, result.judgement.switches))
    for note in result.judgement.notes:
        ui.warn(note)
    for level, line in verdict_lines(result.judgement):
        (ui.warn if level == "warn" else ui.note)(line)
    if request.mode == "intra":
        sys.stdout.write(intra_table(result.run, stored_topology(result.run) or {}))
    worse = against_baseline(result.run, request.baseline)
    named = len(flags) + len(result.judgement.switches)
    counted = f"{named} flag{'s' if named != 1 else ''}"
    drained, refused = None, None
    if not stored.kept:
        retest = f", retest run {result.retest_run.id}" if result.retest_run else ""
        ui.note(f"stored sweep run {result.run.id}{retest} in {db}; {counted}")
        if on_bad_nodes is not None:
            nodes = flagged_nodes(flags, matrix.labels)
            drained, refused = drain_found(on_bad_nodes, nodes, len(matrix.labels), result.run.id)
    unwritten = write_outputs(request, result, flags, drained)
    if stored.kept:  # said as every measuring command says it, exit 4 before the flags' 1
        if on_bad_nodes is not None:
            ui.warn("not drained: a drain's reason names a stored run; `commscope import` it, then drain")
        return summary(stored, db)
    if refused is not None:
        raise refused
    if unwritten:
        return EXIT_USAGE
    return EXIT_FAILED if named or worse else EXIT_OK


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


def write_outputs(request: SweepRequest, result: SweepResult, flags, drained: list[str] | None = None) -> bool:
    """--json (with the hosts --drain took out of service, where it was asked) and --plot,
    checked before measuring but written after: a path gone bad meanwhile is warned about
    (the sweep stays stored); True when one was not written."""
    unwritten = False
    if request.json_out:
        run_ids = (result.run.id, result.retest_run.id if result.retest_run else None)
        document = matrix_document(result.judgement, *run_ids, drained)
        try:
            request.json_out.write_text(json.dumps(document, indent=1) + "\n")
        except OSError as exc:
            unwritten = True
            ui.warn(f"cannot write --json {request.json_out}: {exc.strerror or exc}")
    if request.plot:
        try:
            judged = result.judgement
            for path in heatmap_files(judged.matrix, flags, request.plot, judged.leaf_groups):
                ui.note(f"heatmap: {path}")
        except OSError as exc:
            unwritten = True
            ui.warn(f"cannot write --plot {request.plot}: {exc.strerror or exc}")
    return unwritten
