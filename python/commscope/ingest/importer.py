"""`commscope import`: store result files from OMB, IMB, pasted tables or commscope-bench JSON.

Reading is the job of commscope.ingest.parse; this module turns its ParsedRuns into
Runs and stores each file all or nothing, so a file that fails to parse or
store leaves nothing behind while the other files of the same command are
still stored.

A file is read up to a limit (64 MiB unless --max-size or COMMSCOPE_IMPORT_MAX_SIZE say
otherwise), so `import /dev/zero` or a log of gigabytes ends with a message, not with the
machine out of memory. Its contents are stored once (store/sources.py), however many
runs it holds. A ``.jsonl`` file with a ``.run.json`` sidecar is a run that `commscope run`
measured but could not store (records/unsaved.py); it is stored as that run.

Many files are read by worker processes, a batch at a time, while the
importing process stores the batches they finished, in the order given.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from commscope.ingest.dedupe import SeenSources
from commscope.ingest.parse import ParsedRun, ParseError, parse_bytes
from commscope.ingest.parse.model import Point as ParsedPoint
from commscope.records import unsaved
from commscope.records.inputs import read_capped
from commscope.records.invocation import invocation
from commscope.records.metrics import STATS, in_place_metric
from commscope.records.redact import redact_json_text, secret_names
from commscope.records.run import AXES, ONE_SIDED_CALLS, Axes, Point, Run
from commscope.records.text import format_size
from commscope.records.textsafe import file_name
from commscope.store.db import Store
from commscope.store.rows import RunRows, rows_of
from commscope.store.sources import make_source

# Per-row bookkeeping the readers put among the values; Point has fields for it.
_COUNTS = ("iterations", "warmup", "batch", "validation_errors")
_COUNT_NAMES = frozenset(_COUNTS)
_NCCL_FORMATS = ("nccl-tests", "nccl-tests-json")

#: Files whose runs are stored in one transaction (each file still all or nothing), and
#: that a worker reads at a time. A commit per file was a large part of a bulk import's
#: time; a batch holds the write lock for a small fraction of a second, so `commscope
#: run`s storing into the same database meanwhile hardly wait.
FILES_PER_TRANSACTION = 200
#: Most worker processes to read files with. Storing stays in the importing process and
#: is about a quarter of the work, so more workers would mostly wait for it.
MAX_WORKERS = 4

#: The largest file read by default (OMB and IMB outputs are kilobytes; a few MB of
#: concatenated tables is already a lot).
DEFAULT_MAX_SIZE = 64 * 2**20
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


@dataclass
class ImportResult:
    stored: dict[str, list[int]] = field(default_factory=dict)  # file -> run ids
    errors: list[str] = field(default_factory=list)  # "file:line: message"
    skipped: dict[str, str] = field(default_factory=dict)  # file -> what already holds its bytes
    rejected_rows: list[str] = field(default_factory=list)  # "file:line: message" of rows left out
    repeated: dict[str, str] = field(default_factory=dict)  # file -> what holds some of its runs' rows
    notes: list[str] = field(default_factory=list)  # "file:line: how a stored nccl-tests program was known"


def _label(user_label: str | None, own_label: str | None) -> str | None:
    """The user's --label, followed by the label the file gives a run (a table column)."""
    if user_label and own_label:
        return f"{user_label}: {own_label}"
    return user_label or own_label


# The core's option word of each one-sided call name an OSU table prints (MPI_Win_allocate -> allocate).
_ONE_SIDED_OPTIONS = {name: {call: option for option, call in calls.items()} for name, calls in ONE_SIDED_CALLS.items()}


def axes_of(parameters: dict) -> Axes:
    """The sweep axes a table's settings name ("# Datatype: MPI_INT.", "# Window creation:
    MPI_Win_allocate"...), in the core's words; what the file does not say stays unset."""
    values = {}
    for name in AXES:
        value = parameters.get(name)
        if isinstance(value, str):
            values[name] = _ONE_SIDED_OPTIONS.get(name, {}).get(value, value)
    return Axes(**values)


def point_from_parsed(point: ParsedPoint, window: int | None, axes: Axes = Axes()) -> Point:
    values = dict(point.values)
    counts = {}
    if not _COUNT_NAMES.isdisjoint(values):  # most tables have none; bulk imports convert millions
        counts = {key: values.pop(key) for key in _COUNTS if isinstance(values.get(key), int)}
        if "validation_errors" in counts:
            values.pop("validation", None)  # Pass/Fail follows from the count
    stats = point.stats
    return Point(
        size=point.size,
        metrics=values,
        window=window,
        axes=axes,
        iterations=counts.get("iterations"),
        warmup=counts.get("warmup"),
        batch=counts.get("batch"),
        samples=stats.get("samples") if stats else None,
        stats={key: stats[key] for key in STATS if key in stats} if stats else {},
        validation_errors=counts.get("validation_errors"),
    )


def _wrong_in_place(point: Point) -> bool:
    """Whether the in-place measurement beside a point's own (nccl-tests) found wrong elements."""
    wrong = point.metrics.get(in_place_metric("validation_errors"))
    return isinstance(wrong, int) and wrong > 0


def parse_size(text: str) -> int:
    """Bytes in "64M", "512K", "1G" or "1000" (binary units); ValueError otherwise."""
    number, unit = text.strip()[:-1], text.strip()[-1:].upper()
    if unit not in _UNITS or unit == "":
        number, unit = text.strip(), ""
    if not number.isdigit() or int(number) == 0:
        raise ValueError(f"{text!r} is not a size such as 64M, 512K or 1000000")
    return int(number) * _UNITS[unit]


def run_from_parsed(parsed: ParsedRun, path: Path, label: str | None, system: str | None) -> Run:
    if parsed.run is not None:  # the core's own records: read as `commscope run` reads them
        return dataclasses.replace(
            parsed.run, label=_label(label, parsed.label), source_file=str(path.resolve()), system=system
        )
    window = parsed.parameters.get("window_size")
    axes = axes_of(parsed.parameters)
    points = [point_from_parsed(point, window if isinstance(window, int) else None, axes) for point in parsed.points]
    run = Run(
        benchmark=parsed.benchmark,
        description=parsed.title,
        ranks=parsed.ranks,
        nodes=parsed.nodes,
        hosts=parsed.hosts,
        label=_label(label, parsed.label),
        tool_name=parsed.tool,
        tool_version=parsed.tool_version,
        options=parsed.parameters or None,
        provenance=parsed.provenance or None,
        notes=parsed.notes or None,
        source_format=parsed.source_format,
        source_file=file_name(path.resolve()),
        system=system or parsed.system,
        job_id=parsed.job_id,
        points=points,
        raw={"table": parsed.text.encode()} if parsed.text else {},
    )
    failed_sizes = [str(point.size) for point in points if point.validation == "Fail" or _wrong_in_place(point)]
    if failed_sizes:
        run.status, run.status_reason = "failed", f"validation failed at size {', '.join(failed_sizes)}"
    return run


def read_file(
    name: str,
    label: str | None,
    system: str | None,
    max_size: int = DEFAULT_MAX_SIZE,
    strict: bool = False,
    nccl_program: str | None = None,
) -> tuple[list[RunRows] | str, list[str], list[str]]:
    """The runs of one result file as rows to store, or the message saying why it cannot be
    imported; FILE:LINE: problem of each row a table left out (a failed job's), which with
    `strict` refuse the whole file instead; and FILE:LINE: note of each nccl-tests program
    the output did not name (inferred from its table, or `nccl_program`: --benchmark's)."""
    path = Path(name)
    try:
        data = read_capped(path, max_size)
    except OSError as exc:
        return f"{name}: cannot read: {exc.strerror or exc}", [], []
    if data is None:
        return (
            (
                f"{name}: larger than the import limit of {format_size(max_size)} "
                "(--max-size or COMMSCOPE_IMPORT_MAX_SIZE raise it)"
            ),
            [],
            [],
        )
    if path.suffix == ".jsonl":
        return _read_unsaved(path, data), [], []
    try:
        parsed = parse_bytes(data, os.fspath(path), nccl_program)
    except ParseError as exc:
        return str(exc), [], []
    if not parsed:
        return f"{name}: no benchmark results found", [], []
    if nccl_program and any(run.source_format not in _NCCL_FORMATS for run in parsed):
        found = sorted({run.source_format for run in parsed} - set(_NCCL_FORMATS))
        return (
            f"{name}: --benchmark names the program of nccl-tests outputs; this file holds {', '.join(found)}",
            [],
            [],
        )
    rejected = [f"{run.source}:{line}: {message}" for run in parsed for line, message in run.rejected_rows]
    if strict and rejected:
        return "\n".join(rejected) + f"\n{name}: --strict: nothing stored from it", [], []
    notes = [
        f"{run.source}:{run.line}: nccl-tests program {run.provenance['program_inferred']}"
        for run in parsed
        if "program_inferred" in run.provenance
    ]
    runs = [run_from_parsed(run, path, label, system) for run in parsed]
    secrets = {name for run in runs for name in secret_names(run.environment)}
    source = make_source(redact_json_text(data, secrets))  # once for all the runs it holds
    return [rows_of(run, source) for run in runs], rejected, list(dict.fromkeys(notes))


def _read_unsaved(path: Path, data: bytes) -> list[RunRows] | str:
    """A run `commscope run` kept unsaved: its stream and the sidecar beside it."""
    if not unsaved.sidecar_of(path).exists():
        return (
            f"{path}:1: a JSON Lines stream without the {unsaved.sidecar_of(path).name} beside it: only "
            "results that `commscope run` kept unsaved are imported this way"
        )
    try:
        run = unsaved.load(path, data)
    except unsaved.UnsavedError as exc:
        line, message = exc.args
        return f"{path}:{line}: {message}"
    # its stream and sidecar are its source, as any other file's bytes are: imported again,
    # it is skipped (a run of another program keeps an empty stream: the sidecar tells them apart)
    try:
        kept = data + unsaved.sidecar_of(path).read_bytes()
    except OSError as exc:
        return f"{unsaved.sidecar_of(path)}: cannot read: {exc.strerror or exc}"
    return [rows_of(run, make_source(redact_json_text(kept, secret_names(run.environment))))]


def _read_batch(
    names: Sequence[str], label: str | None, system: str | None, max_size: int, strict: bool, nccl_program: str | None
) -> list[tuple[str, list[RunRows] | str, list[str], list[str]]]:
    """read_file() for each file: what a worker does."""
    return [(name, *read_file(name, label, system, max_size, strict, nccl_program)) for name in names]


def import_files(
    store: Store,
    paths: Sequence[str],
    label: str | None,
    system: str | None,
    argv: Sequence[str],
    max_size: int = DEFAULT_MAX_SIZE,
    force: bool = False,
    strict: bool = False,
    nccl_program: str | None = None,
) -> ImportResult:
    """Import the files; one whose bytes are already stored is skipped (named in
    result.skipped) unless `force`. `nccl_program` is the program of the nccl-tests
    outputs that do not name theirs (--benchmark)."""
    result = ImportResult()
    seen = SeenSources(store)
    invocation_id = store.add_invocation(invocation("import", argv))
    batches = [paths[start : start + FILES_PER_TRANSACTION] for start in range(0, len(paths), FILES_PER_TRANSACTION)]
    read = functools.partial(
        _read_batch, label=label, system=system, max_size=max_size, strict=strict, nccl_program=nccl_program
    )
    with contextlib.closing(_map_in_workers(read, batches)) as read_batches:
        for batch in read_batches:
            readable = [(name, rows) for name, rows, _, _ in batch if not isinstance(rows, str)]
            result.errors += [rows for _, rows, _, _ in batch if isinstance(rows, str)]
            result.rejected_rows += [row for _, _, rejected, _ in batch for row in rejected]
            if not force:
                readable = _new_sources(readable, seen, result)
            readable = _new_rows(readable, seen, result, force)
            ids = store.add_run_groups([rows for _, rows in readable], invocation_id)
            result.stored.update(zip((name for name, _ in readable), ids))
            result.notes += [note for name, _, _, notes in batch if name in result.stored for note in notes]
    return result


def _new_sources(
    readable: list[tuple[str, list[RunRows]]], seen: SeenSources, result: ImportResult
) -> list[tuple[str, list[RunRows]]]:
    """The files whose bytes are not stored yet; the others go to result.skipped."""
    new = []
    for name, rows in readable:
        sha256 = rows[0].source.sha256
        earlier = seen.earlier(sha256)
        if earlier is None:
            seen.add(sha256, name)
            new.append((name, rows))
        else:
            result.skipped[name] = earlier
    return new


def _new_rows(
    readable: list[tuple[str, list[RunRows]]], seen: SeenSources, result: ImportResult, force: bool
) -> list[tuple[str, list[RunRows]]]:
    """The files with the runs whose rows are not stored yet (JUBE); a file left with none
    goes to result.skipped, one left with some says so in result.repeated."""
    new = []
    for name, rows in readable:
        kept, earlier = seen.new_rows(name, rows, force)
        if not kept:
            result.skipped[name] = earlier or ""
            continue
        if earlier:
            result.repeated[name] = earlier
        new.append((name, kept))
    return new


def _map_in_workers(function: Callable[[_Item], _Result], items: Sequence[_Item]) -> Iterator[_Result]:
    """function(item) for each item, in order. With two items or more and two cores or more,
    worker processes compute them, a few items ahead of the caller, who meanwhile uses the
    results: an import reads files while it stores others, and gets a fairer share of a
    machine that other jobs keep busy (on two cores, a third less time for 10,000 files,
    a quarter less beside two busy processes)."""
    workers = min(len(items), _usable_cpus(), MAX_WORKERS)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(function, items)
        return
    # Forked workers start at once, with the readers imported. They never touch the store:
    # the connection they inherit is neither used nor closed (workers leave by os._exit).
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=_worker_setup)
    pending: collections.deque = collections.deque()
    try:
        for item in items:
            pending.append(pool.submit(function, item))
            if len(pending) > 2 * workers:  # bounds what waits in memory
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(cancel_futures=True)


def _usable_cpus() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))  # what this process may run on (Slurm, taskset)
    return os.cpu_count() or 1


def _worker_setup() -> None:
    """Ctrl-C is for the importing process to handle (it stops the workers). A worker also
    ends when that process is killed, instead of waiting for work forever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()


def _exit_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(1)
