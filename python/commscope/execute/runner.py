"""`commscope run`: start commscope-bench through a launcher, follow it, store what it measured.

The core is always run with ``--format osu --jsonl-out FILE``. Results come from
that JSON Lines stream, never from its text. The stream is read while the
benchmark runs (for the progress bar) and again when it ends, so a crash, a
timeout or Ctrl-C still leaves every point measured before it in the store, in
a run marked incomplete with the reason. The core's stdout, its own OSU table,
is stored with the run and printed when the benchmark ends: printed live it
would interleave with the progress bar wherever stdout and stderr share a
terminal, and rich's redirection of stdout would send it to stderr.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from commscope import ui
from commscope.errors import EXIT_OK, CommscopeError, UsageError
from commscope.execute.allocation import direct_ranks
from commscope.execute.core import MPICH, OPENMPI, core_mpi_flavour, find_core, list_benchmarks
from commscope.execute.host_inventory import HostsLinks, every_host, inventory_command
from commscope.execute.keep import Destination, storing, summary
from commscope.execute.launch_files import (
    JSONL,
    META,
    RESULT,
    STDERR,
    STDOUT,
    launch_folder,
    run_from_files,
    write_json,
)
from commscope.execute.launchers import Binding, Command, Launcher, LaunchSpec, hostfile_nodes, resolve_launcher
from commscope.execute.limits import DefaultLimit
from commscope.execute.outcome import FINALIZE_NOTE, NO_START, ONCE_MORE, failed_at_start, retried_note
from commscope.execute.pairs import CorePair, core_pairs_of, gpu_pairs_of, host_links
from commscope.execute.process import POLL_SECONDS, exit_waiter, start, stop_reason, terminate
from commscope.execute.provenance import compiler_of, default_system, job_id
from commscope.execute.reporter import Reporter, TerminalReporter
from commscope.execute.signals import StopSignals
from commscope.execute.stream import CoreStream
from commscope.execute.time_limit import RunLimits, TimeLimit
from commscope.execute.transports import TransportChoice, core_device
from commscope.execute.transports import choose as choose_transport
from commscope.records.invocation import now
from commscope.records.run import Axes, Run
from commscope.records.suite import Entry, expand, suite_path
from commscope.settings import seconds

DEFAULT_SUITE = "quick"
#: Seconds a launcher may take to exit after the core wrote its end line. Every record is
#: in the stream by then; a rank that never leaves MPI_Finalize (MPICH 4.0 over UCX's TCP
#: transport: a rank still disconnecting while its peers wait in the process manager's
#: barrier, docs/reliability.md) must not hold the results or the next benchmark hostage.
#: COMMSCOPE_FINALIZE_GRACE sets it: shorter where that hang is known, longer where a
#: large job's MPI_Finalize takes its time.
FINALIZE_GRACE_SECONDS = 30.0
FINALIZE_GRACE_VARIABLE = "COMMSCOPE_FINALIZE_GRACE"
#: What the dry run prints in place of the temporary JSONL file.
JSONL_PLACEHOLDER = "JSONL"


def finalize_grace_s() -> float:
    return seconds(FINALIZE_GRACE_VARIABLE, FINALIZE_GRACE_SECONDS, UsageError)


@dataclass
class RunRequest:
    """Everything `commscope run` was asked to do."""

    targets: Sequence[str] = ()
    suite_files: Sequence[str] = ()
    np: int | None = None
    launcher: str = "auto"
    hosts: tuple[str, ...] = ()
    hostfile: str | None = None
    label: str | None = None
    system: str | None = None
    repeat: int = 1
    timeout: float | None = None
    bind: str = "core"  # --bind (cli.common.bind_option)
    dry_run: bool = False
    extra_flags: Sequence[str] = ()
    #: Each benchmark is launched once per wrapper (execute/wrap.py); () runs it plain.
    wrappers: Sequence[tuple[str, ...]] = ((),)
    argv: Sequence[str] = field(default_factory=lambda: list(sys.argv))
    #: auto | shm | net for every entry; None: each entry's own (auto if it names none).
    transport: str | None = None
    #: Keep each launch's files (meta.json, core.jsonl, stdout, stderr, result.json) in
    #: a numbered folder here, for `commscope collect` (batch jobs use it).
    output_dir: Path | None = None
    #: Store the runs in the database (batch jobs write only output_dir).
    store: bool = True
    #: --time-limit: seconds every launch together may take (execute/time_limit.py); None:
    #: OMB's counts, or a benchmark's own default limit.
    time_limit: float | None = None
    #: Seconds the core's header may take to come (a sweep's: a host hung at MPI start is
    #: found by the ranks that never said they started); None: --timeout and the default
    #: limit alone.
    start_limit: float | None = None
    #: The Slurm job the launches are steps of, where commscope took the allocation itself
    #: (salloc --no-shell: `sweep --nodes`, `sweep recheck`) and does not run inside it.
    job_id: str | None = None


@dataclass
class Planned:
    """One benchmark launch: the suite entry, where it goes and the command (without outputs)."""

    entry: Entry
    spec: LaunchSpec
    flags: list[str]
    command: Command
    transport: TransportChoice
    binding: Binding
    wrapper: tuple[str, ...] = ()  # a profiler or tracer between the launcher and the core (--wrap)
    gpu_pair: tuple[int, int] | None = None  # gpu_pairs entries: the two GPUs (CUDA_VISIBLE_DEVICES)
    core_pair: CorePair | None = None  # core_pairs entries: the two cores the ranks are bound to


def select_entries(targets: Sequence[str], suite_files: Sequence[str], benchmarks: dict[str, str]) -> list[Entry]:
    """Suite entries for the SUITE|BENCH arguments and --suite-file options, in order."""
    entries: list[Entry] = []
    for name in suite_files:
        if not Path(name).is_file():
            raise UsageError(f"suite file {name} does not exist")
        entries += expand(Path(name))
    for target in targets:
        path = suite_path(target)
        if path is not None:
            entries += expand(path)
        elif target in benchmarks:
            entries.append(Entry(benchmark=target, ranks=direct_ranks(target)))
        else:
            raise UsageError(
                f"{target!r} is neither a suite nor a benchmark of commscope-bench "
                "(see `commscope list suites` and `commscope list benchmarks`)"
            )
    if not targets and not suite_files:
        entries = expand(suite_path(DEFAULT_SUITE))
    return entries


def _where(record: dict) -> str:
    """Where a sweep is, for the progress bar: "4 B MPI_INT", "1 B allocate, fence"."""
    return " ".join(part for part in (f"{record['size']} B", Axes.of(record).label()) if part)


@contextmanager
def _progress_bar(description: str) -> Iterator[Callable[..., None]]:
    """A transient progress bar on stderr when it is a terminal; yields the function that
    updates it, which does nothing without a terminal. rich.progress is imported only when a
    bar is shown: scripts and batch jobs should not pay for it at every start."""
    if not ui.err.is_terminal:
        yield lambda **fields: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[size]}"),
        TimeElapsedColumn(),
        console=ui.err,
        transient=True,
    ) as progress:
        task = progress.add_task(description, total=None, size="starting")
        yield functools.partial(progress.update, task)


def _pair_label(planned: Planned) -> str | None:
    """GPU0-GPU1, core0-core4: the pair a one-to-all entry's launch ran on."""
    if planned.gpu_pair:
        return "GPU{}-GPU{}".format(*planned.gpu_pair)
    return planned.core_pair.label if planned.core_pair else None


def combined_label(request_label: str | None, entry_label: str | None) -> str | None:
    """The run's label: the command's --label, then the suite entry's own."""
    if request_label and entry_label:
        return f"{request_label}: {entry_label}"
    return request_label or entry_label


class Runner:
    """Launches planned benchmarks and turns what each measured into a Run."""

    def __init__(
        self,
        core: Path,
        request: RunRequest,
        signals: StopSignals,
        links: HostsLinks | None = None,
        reporter: Reporter | None = None,
    ) -> None:
        self.core = core
        self.request = request
        self.signals = signals
        self.reporter = reporter or TerminalReporter(ranks_given=request.np is not None)
        self.system = request.system
        self.finalize_grace = finalize_grace_s()
        self.links = links or HostsLinks({host_links()["host"]: host_links()})

    def execute(
        self, planned: Planned, repeat_index: int, limit: TimeLimit | None = None, notes: Sequence[str] = ()
    ) -> Run:
        """One launch; with a time limit, the core gets its share of it and the launch is
        stopped one start-up past it. `notes`: what the run keeps of how it came to be (the
        start before it failed), for the operator who collects it."""
        keep = self.request.output_dir
        with launch_folder(keep, planned.entry.benchmark) as folder:
            self.folder = folder  # the last launch's, kept with --output-dir
            jsonl = folder / JSONL
            argv = planned.command.with_args("--jsonl-out", str(jsonl), *(limit.core_args() if limit else ())).argv
            meta = {
                "run": {
                    "benchmark": planned.entry.benchmark,
                    "flags": planned.flags,
                    "ranks": planned.spec.np,
                    "placement": planned.entry.placement,
                    "label": combined_label(
                        self.request.label,
                        combined_label(planned.entry.label, _pair_label(planned)),
                    ),
                    "repeat_index": repeat_index,
                    "started_at": now(),
                    "launcher_argv": argv,
                    "compiler": compiler_of(self.core),
                    "job_id": self.request.job_id or job_id(),
                    "system": self.system,
                    **({"notes": list(notes)} if notes else {}),
                },
                "transport": planned.transport.provenance(),
                "env": planned.command.env,
            }
            if planned.wrapper:
                meta["wrapper"] = list(planned.wrapper)
            meta["links"] = self.links.provenance()
            if planned.gpu_pair:
                meta["gpu_pair"] = list(planned.gpu_pair)
            if planned.core_pair:
                meta["core_pair"] = planned.core_pair.provenance()
            meta["binding"] = dataclasses.asdict(planned.binding)  # asked; the header says what each rank got
            if keep is not None:
                write_json(folder / META, meta)
            begin = time.monotonic()
            with open(folder / STDOUT, "wb") as stdout, open(folder / STDERR, "wb") as stderr:
                process = start(argv, stdout, stderr, planned.command.env)
                stream = CoreStream(jsonl)
                stopped = self._follow(process, stream, planned, limit)
            if limit:
                limit.launched(self._start_up_s(begin))
            stream.poll()  # what the core wrote after the last look: the stream is read and checked once
            if keep is not None:
                write_json(folder / RESULT, {"returncode": process.returncode, "stopped": stopped, "ended_at": now()})
            run = run_from_files(meta, folder, process.returncode, stopped, stream=stream)
            self.reporter.launched(run, time.monotonic() - begin)
            return run

    def _start_up_s(self, begin: float) -> float | None:
        """What the last launch spent outside the core's measuring: to its header, and from
        its end line to its exit; None where it never got that far."""
        header_at, ended_at, exited_at = self._times
        if header_at is None or ended_at is None:
            return None
        return (header_at - begin) + (exited_at - ended_at)

    def _not_started(self, stream: CoreStream, planned: Planned) -> str | None:
        """Why a launch whose header has not come within the request's start limit stops."""
        limit = self.request.start_limit
        if limit is None or stream.header is not None or time.monotonic() - self._began < limit:
            return None
        return f"{NO_START} within {limit:g} s ({len(stream.started)} of {planned.spec.np} ranks started)"

    def _follow(
        self, process: subprocess.Popen, stream: CoreStream, planned: Planned, limit: TimeLimit | None
    ) -> str | None:
        """Wait for the launch to end, updating the progress bar; returns why it was
        stopped early ("timed out after N s", "interrupted by SIGINT") or None."""
        timeout = self.request.timeout
        self._began = time.monotonic()
        deadline = self._began + timeout if timeout else None
        default_limit = DefaultLimit(timeout, self.folder)
        ended_at = header_at = None  # when the core's end line and header arrived
        self._times = (None, None, 0.0)
        entry = planned.entry
        with (
            _progress_bar(f"{entry.benchmark} ({planned.spec.np} ranks)") as show,
            exit_waiter(process) as ended_within,
        ):
            while True:
                if ended_within(POLL_SECONDS):
                    self._times = (header_at, ended_at, time.monotonic())
                    return None
                if stream.poll() or stream.header is not None:
                    header_at = header_at or time.monotonic()
                    total = stream.output.planned_records if stream.output else None
                    size = _where(stream.records[-1]) if stream.records else "warming up"
                    show(completed=len(stream.records), total=total, size=size)
                if stream.end is not None and ended_at is None:
                    ended_at = time.monotonic()
                if ended_at is not None and time.monotonic() - ended_at > self.finalize_grace:
                    terminate(process, self.signals)
                    return (
                        f"{FINALIZE_NOTE}: the launcher had not exited {self.finalize_grace:g} s after the "
                        "core's last line (a rank hung in MPI_Finalize)"
                    )
                stopped = (
                    stop_reason(self.signals, deadline, timeout)
                    or (limit.passed() if limit else None)
                    or self._not_started(stream, planned)
                    or default_limit.passed(stream.output)
                )
                if stopped:
                    terminate(process, self.signals)
                    return stopped


def plan(
    request: RunRequest, entries: Sequence[Entry], core: Path, launcher: Launcher, core_flavour: str | None
) -> list[Planned]:
    """The launch of every entry: its ranks and placement on the hosts the request gives."""
    if request.hosts:
        known_nodes = len(request.hosts)
    elif request.hostfile:
        known_nodes = hostfile_nodes(request.hostfile)
    else:
        allocation = os.environ.get("SLURM_JOB_NUM_NODES") or os.environ.get("SLURM_NNODES") or ""
        known_nodes = int(allocation) if allocation.isdigit() else None
    where = LaunchSpec(
        np=1,
        hosts=tuple(request.hosts),
        hostfile=request.hostfile,
        local_cores=len(os.sched_getaffinity(0)),
        known_nodes=known_nodes,
        core_flavour=core_flavour,
        as_root=os.geteuid() == 0,
        bind=request.bind,
        job_id=request.job_id,
    )
    steered = any((request.transport or entry.transport or "auto") != "auto" for entry in entries)
    device = core_device(str(core), core_flavour) if steered else None
    planned = []
    for entry in entries:
        spec = dataclasses.replace(where, np=request.np or entry.ranks, placement=entry.placement)
        flags = [*entry.core_flags(request.extra_flags), *request.extra_flags]
        transport = choose_transport(request.transport or entry.transport or "auto", core_flavour, device)
        for wrapper, pair, cores in itertools.product(request.wrappers, gpu_pairs_of(entry), core_pairs_of(entry)):
            bound = dataclasses.replace(spec, cpus=cores.cpus) if cores else spec
            command = launcher.command(bound, [*wrapper, str(core), entry.benchmark, *flags, "--format", "osu"])
            visible = {"CUDA_VISIBLE_DEVICES": f"{pair[0]},{pair[1]}"} if pair else {}
            command = Command(command.argv, {**command.env, **transport.env, **visible})
            binding = launcher.binding(bound)
            planned.append(Planned(entry, bound, flags, command, transport, binding, tuple(wrapper), pair, cores))
    return planned


def run_benchmarks(request: RunRequest, db: Path) -> tuple[int, list[Run]]:
    """Carry out `commscope run`; returns the exit code and the runs it measured (stored, or
    kept as files where the store could not take them)."""
    if request.hosts and request.hostfile:
        raise UsageError("give hosts either with --hosts or with --hostfile, not both")
    core = find_core()
    benchmarks = list_benchmarks(core, request.timeout)
    entries = select_entries(request.targets, request.suite_files, benchmarks)
    missing = list(dict.fromkeys(entry.benchmark for entry in entries if entry.benchmark not in benchmarks))
    if missing:
        ui.warn(
            f"skipping {', '.join(missing)}: not provided by {core} (it has {', '.join(benchmarks) or 'no benchmarks'})"
        )
    entries = [entry for entry in entries if entry.benchmark in benchmarks]
    if not entries:
        raise CommscopeError("nothing to run: none of the requested benchmarks exists in this commscope-bench")

    finalize_grace_s()  # a bad setting is refused before anything is planned or stored
    core_flavour = core_mpi_flavour(core)
    launcher = resolve_launcher(request.launcher, core_flavour)
    if core_flavour and launcher.flavour in (OPENMPI, MPICH) and launcher.flavour != core_flavour:
        ui.warn(
            f"commscope-bench is built with {core_flavour} but {launcher.program} is "
            f"{launcher.summary}; its ranks will probably not find each other"
        )
    planned = plan(request, entries, core, launcher, core_flavour)
    for reason in dict.fromkeys(item.binding.reason for item in planned if item.binding.asked == "none"):
        ui.warn(
            f"ranks are not bound to cores ({reason}): the OS may move them between cores, and "
            "latencies wander with it; compare such numbers with care"
        )

    if request.dry_run:
        print(f"# {JSONL_PLACEHOLDER} stands for a temporary file commscope reads while the benchmark runs")
        for item in planned:
            repeats = f", {request.repeat} times" if request.repeat > 1 else ""
            pair = f", {_pair_label(item)}" if _pair_label(item) else ""
            pair += f" ({item.core_pair.path})" if item.core_pair else ""
            print(f"# {item.entry.benchmark}: {item.spec.np} ranks, placement {item.entry.placement}{pair}{repeats}")
            print(item.command.with_args("--jsonl-out", JSONL_PLACEHOLDER).shell())
        inventory = inventory_command(launcher, planned[0].spec)
        if inventory:
            print(f"# the link inventory of every host, once before the benchmarks:\n# {shlex.join(inventory)}")
        return EXIT_OK, []

    limits = RunLimits(request.time_limit, len(planned) * request.repeat)  # refused before anything runs
    if limits.plan_line():
        ui.note(f"run: {limits.plan_line()}")
    # the system is named before the store opens: a name it refuses must not cost a run
    request = dataclasses.replace(request, system=request.system or default_system())
    destination = Destination(db if request.store else None, request.argv)
    with storing(destination, "run") as stored, StopSignals() as signals:
        links = every_host(host_links(), launcher, planned[0].spec, signals)
        if links.not_inventoried:
            ui.warn(f"link inventory: {links.not_inventoried}; peaks between hosts without one are unknown")
        runner = Runner(core, request, signals, links)
        for repeat_index, item in itertools.product(range(request.repeat), planned):
            if signals.received:
                break
            ui.note(f"{item.entry.benchmark}: {item.command.shell()}")
            limit = limits.of(item.entry.benchmark)
            run = runner.execute(item, repeat_index, limit)
            if failed_at_start(run.status, run.status_reason, len(run.points)) and not signals.received:
                ui.warn(f"{item.entry.benchmark}: {run.status_reason}; {ONCE_MORE}")
                if request.output_dir:  # its files stay for a person to read, not for `collect` to store
                    (runner.folder / META).rename(runner.folder / f"retried-{META}")
                if limit:
                    limit.again()
                run = runner.execute(item, repeat_index, limit, [retried_note(run.status_reason)])
            stored.add(run)
        stored.stopped_by = signals.received[0] if signals.received else None
    return summary(stored, db if request.store else request.output_dir), stored.measured
