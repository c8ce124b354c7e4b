"""`commscope run storage` through fio: fio over 1..K processes, each with its own file, for the four
workloads of the standard-benchmarks page (sequential write and read in large blocks, random write and read
IOPS in small blocks), the page cache defeated.

Guard rails: the target folder is created if missing; an existing folder that is not
empty is refused unless allowed; the files live in a private subfolder and only the
files this module named are deleted (then the subfolder, then the target folder if
this run created it), after each process count and on every way out, Ctrl-C included;
free space is checked first.

Page cache: direct I/O where the file system takes O_DIRECT (probed with a real
write); otherwise files larger than memory if they are, else, as root, caches dropped
before each read workload; otherwise the figures are marked as possibly cached.

Across hosts (`nodes`), each process is one fio started by the MPI launcher, one per
host in turn (the launcher's block placement), each writing its JSON next to its file;
the folder must then be one all hosts see (a shared file system: what is measured).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from commscope import ui
from commscope.execute.fio_workspace import FILE_PREFIX, StorageRequest, Workspace, workspace
from commscope.execute.keep import Destination, Stored, storing
from commscope.execute.launchers import LaunchSpec, resolve_launcher
from commscope.execute.process import Finished, run_program
from commscope.execute.provenance import default_system, job_id
from commscope.execute.signals import StopSignals
from commscope.execute.tools import find_program, machine_provenance
from commscope.ingest.importer import point_from_parsed
from commscope.ingest.parse import ParseError
from commscope.ingest.parse.storage import TITLE, fio_totals, json_start, storage_point
from commscope.records.benchmarks import STORAGE_BENCHMARK
from commscope.records.invocation import now
from commscope.records.run import Run

FIO_PACKAGE = "fio"
#: (name, fio rw, direction, random?) in the order they run: reads follow the write that made the files.
WORKLOADS = (
    ("seq_write", "write", False),
    ("seq_read", "read", False),
    ("rand_write", "randwrite", True),
    ("rand_read", "randread", True),
)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_bytes(text: str) -> int:
    """'1M' -> 1048576, '512G', '4k', '1000' (binary units, as fio reads them); ValueError otherwise."""
    value = text.strip().lower().removesuffix("ib").removesuffix("b")
    unit = value[-1:] if value[-1:] in _UNITS and value[-1:] else ""
    number = value[:-1] if unit else value
    try:
        amount = float(number)
    except ValueError:
        raise ValueError(f"{text!r} is not a size such as 4k, 1M, 512G") from None
    if amount <= 0:
        raise ValueError(f"{text!r}: a size must be positive")
    return int(amount * _UNITS[unit])


def parse_counts(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"{text!r} is not a list of process counts such as 1,2,4,8,13") from None
    if not counts or min(counts) < 1:
        raise ValueError(f"{text!r}: process counts must be 1 or more")
    return tuple(dict.fromkeys(counts))


@dataclass
class CountResult:
    """What fio reported at one process count: a JSON document per workload (and per process
    when each process is its own fio)."""

    count: int
    documents: dict[str, list[bytes]] = field(default_factory=dict)
    stderr: bytes = b""
    problem: str | None = None
    argv: list[str] = field(default_factory=list)  # the last launch, for the run's provenance


def per_process_size(request: StorageRequest, count: int) -> int:
    """Each process's file: the total split among them, whole blocks, at least one block."""
    return max(request.block, request.size // count // request.block * request.block)


def fio_options(
    request: StorageRequest, space: Workspace, workload: tuple[str, str, bool], count: int, file_size: int
) -> list[str]:
    name, rw, random = workload
    options = [
        f"--name={name}",
        f"--rw={rw}",
        f"--bs={request.rand_block if random else request.block}",
        f"--size={file_size}",
        f"--direct={1 if space.direct else 0}",
        "--ioengine=psync",
        "--output-format=json",
    ]
    if random:
        # fio reads "0.3" as 0 s (and then ignores time_based); milliseconds keep the fraction
        options += [f"--runtime={max(1, round(request.runtime * 1000))}ms", "--time_based"]
    if rw in ("write", "randwrite"):
        options.append("--end_fsync=1")  # on the device when the write is timed as done
    return options


def _drop_caches() -> None:
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError as exc:
        ui.warn(f"cannot drop the page cache: {exc.strerror}")


def local_argv(fio: Path, options: list[str], space: Workspace, count: int) -> list[str]:
    return [
        str(fio),
        *options,
        f"--directory={space.folder}",
        f"--numjobs={count}",
        f"--filename_format={FILE_PREFIX}$jobnum",
    ]


def launched_argv(
    fio: Path, options: list[str], space: Workspace, count: int, request: StorageRequest, workload: str
) -> tuple[list[str], dict[str, str]]:
    """One fio per process through the MPI launcher; each names its file and output after its
    rank (the variable each launcher sets), so the folder must be shared by the hosts."""
    rank = "${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}"
    folder = shlex.quote(str(space.folder))
    script = (
        f"exec {shlex.join([str(fio), *options])} --filename={folder}/{FILE_PREFIX}{rank} "
        f"--output={folder}/fio-{workload}-{rank}.json"
    )
    launcher = resolve_launcher(request.launcher, None)
    spec = LaunchSpec(
        np=count,
        hosts=tuple(request.nodes),
        placement="inter-node",
        local_cores=len(os.sched_getaffinity(0)),
        known_nodes=len(request.nodes),
        as_root=os.geteuid() == 0,
    )
    command = launcher.command(spec, ["sh", "-c", script])
    return command.argv, command.env


def run_count(request: StorageRequest, fio: Path, space: Workspace, count: int, signals: StopSignals) -> CountResult:
    result = CountResult(count)
    file_size = per_process_size(request, count)
    try:
        for workload in WORKLOADS:
            name, rw, _ = workload
            if space.drop_caches and rw in ("read", "randread"):
                _drop_caches()
            options = fio_options(request, space, workload, count, file_size)
            if request.nodes:
                argv, env = launched_argv(fio, options, space, count, request, name)
            else:
                argv, env = local_argv(fio, options, space, count), {}
            result.argv = argv
            finished: Finished = run_program(argv, signals, env=env, timeout=request.timeout)
            result.stderr += finished.stderr
            if finished.stopped or finished.returncode != 0:
                result.problem = (
                    f"{name} with {count} processes: fio "
                    + (finished.stopped or f"exited with status {finished.returncode}")
                    + (f": {finished.stderr_tail(3)}" if finished.stderr.strip() else "")
                )
                return result
            if request.nodes:
                outputs = sorted(space.folder.glob(f"fio-{name}-*.json"))
                result.documents[name] = [path.read_bytes() for path in outputs]
                for path in outputs:
                    path.unlink()
            else:
                result.documents[name] = [finished.stdout]
        return result
    finally:
        for path in space.folder.glob(f"{FILE_PREFIX}*"):
            path.unlink(missing_ok=True)


def execute_fio(request: StorageRequest, destination: Destination) -> Stored:
    """Measure each process count in turn and store the run (kept as files if the store cannot
    take it). A stop signal stops fio, removes its files, and the counts measured before it
    are stored in a run marked incomplete, as `commscope run` keeps what it measured."""
    fio = find_program("fio", FIO_PACKAGE)
    results: list[CountResult] = []
    started = now()
    with storing(destination, "run") as stored, StopSignals() as signals:
        with workspace(request) as space:
            for count in request.procs:
                result = run_count(request, fio, space, count, signals)
                if signals.received:
                    ui.error("interrupted; the test files are removed, the counts measured before are stored")
                    break
                ui.note(f"storage: {count} process(es) done" + (f": {result.problem}" if result.problem else ""))
                results.append(result)
                if result.problem:
                    break
        stored.stopped_by = signals.received[0] if signals.received else None
        if results:
            stored.add(storage_run(request, results, space, destination, stored.stopped_by, started))
    return stored


def storage_run(
    request: StorageRequest,
    results: list[CountResult],
    space: Workspace,
    destination: Destination,
    stopped_by: str | None,
    started: str,
) -> Run:
    """The storage run of the counts measured: a point per count from fio's JSON documents."""
    points, problem = [], None
    raw: dict[str, bytes] = {}
    for result in results:
        documents = []
        for workload, outputs in result.documents.items():
            for index, data in enumerate(outputs):
                raw[f"fio-{result.count}-{workload}-{index}.json"] = data
                text = data.decode(errors="replace")
                try:
                    documents.append(json.loads(text[json_start(text) :]))
                except json.JSONDecodeError as exc:
                    problem = f"fio's JSON for {workload} at {result.count} processes is unreadable: {exc.msg}"
        if result.problem:
            problem = result.problem
            break
        try:
            _, totals, _ = fio_totals(documents, "fio")
        except ParseError as exc:
            problem = str(exc)
            break
        points.append(point_from_parsed(storage_point(result.count, totals, 0), None))
    status, reason = "complete", None
    if problem:
        status, reason = "failed", problem
    elif stopped_by:
        measured = f"{len(points)} of {len(request.procs)} counts measured"
        status, reason = "incomplete", f"interrupted by {stopped_by}; {measured}"
    provenance = machine_provenance(find_program("fio", FIO_PACKAGE))
    provenance.update(
        {"directory": str(space.directory), "cache_policy": space.cache_policy, "space": "; ".join(space.notes)}
    )
    return Run(
        benchmark=STORAGE_BENCHMARK,
        status=status,
        status_reason=reason,
        description=TITLE,
        flags=[
            f"--size={request.size}",
            f"--block={request.block}",
            f"--rand-block={request.rand_block}",
            f"--procs={','.join(map(str, request.procs))}",
            f"--runtime={request.runtime:g}",
        ],
        ranks=max(request.procs),
        nodes=len(request.nodes) or 1,
        label=destination.label,
        started_at=started,
        launcher_argv=results[-1].argv if results else None,
        ended_at=now(),
        tool_name="fio",
        tool_version=fio_version(),
        cpu_model=provenance.get("cpu_model"),
        job_id=job_id(),
        system=destination.system or default_system(),
        options={
            "axis": "processes",
            "size": request.size,
            "block": request.block,
            "rand_block": request.rand_block,
            "runtime_s": request.runtime,
            "nodes": list(request.nodes) or None,
        },
        provenance=provenance,
        points=points,
        raw=raw,
    )


def fio_version() -> str | None:
    found = shutil.which("fio")
    if not found:
        return None
    try:
        done = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip().removeprefix("fio-") or None
