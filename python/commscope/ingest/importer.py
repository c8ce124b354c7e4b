"""`commscope import`: store result files from OMB, IMB, pasted tables or commscope-bench JSON.

Reading is the job of commscope.ingest.parse; this module turns its ParsedRuns into
Runs and stores each file all or nothing, so a file that fails to parse or
store leaves nothing behind while the other files of the same command are
still stored.

Many files are read by worker processes, a batch at a time, while the
importing process stores the batches they finished, in the order given.
"""

from __future__ import annotations

import collections
import contextlib
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

from commscope.ingest.dedupe import SeenSources, content_hash
from commscope.ingest.parse import ParsedRun, ParseError, parse_bytes
from commscope.ingest.parse.model import Point as ParsedPoint
from commscope.records.invocation import invocation
from commscope.records.run import STATS, Point, Run, apply_header
from commscope.store.db import RunRows, Store, rows_of

# Per-row bookkeeping the readers put among the values; Point has fields for it.
_COUNTS = ("iterations", "warmup", "batch", "validation_errors")
_COUNT_NAMES = frozenset(_COUNTS)

#: Files whose runs are stored in one transaction (each file still all or nothing), and
#: that a worker reads at a time. A commit per file was a large part of a bulk import's
#: time; a batch holds the write lock for a small fraction of a second, so `commscope
#: run`s storing into the same database meanwhile hardly wait.
FILES_PER_TRANSACTION = 200
#: Most worker processes to read files with. Storing stays in the importing process and
#: is about a quarter of the work, so more workers would mostly wait for it.
MAX_WORKERS = 4

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


@dataclass
class ImportResult:
    stored: dict[str, list[int]] = field(default_factory=dict)  # file -> run ids
    errors: list[str] = field(default_factory=list)  # "file:line: message"
    skipped: dict[str, str] = field(default_factory=dict)  # file -> what already holds its bytes


def _label(user_label: str | None, own_label: str | None) -> str | None:
    """The user's --label, followed by the label the file gives a run (a table column)."""
    if user_label and own_label:
        return f"{user_label}: {own_label}"
    return user_label or own_label


def point_from_parsed(point: ParsedPoint, window: int | None) -> Point:
    values = dict(point.values)
    counts = {}
    if not _COUNT_NAMES.isdisjoint(values):  # most tables have none; bulk imports convert millions
        counts = {key: values.pop(key) for key in _COUNTS if isinstance(values.get(key), int)}
        if "validation_errors" in counts:
            values.pop("validation", None)  # Pass/Fail follows from the count
    stats = point.stats
    return Point(size=point.size, metrics=values, window=window, iterations=counts.get("iterations"),
                 warmup=counts.get("warmup"), batch=counts.get("batch"),
                 samples=stats.get("samples") if stats else None,
                 stats={key: stats[key] for key in STATS if key in stats} if stats else {},
                 validation_errors=counts.get("validation_errors"))


def run_from_parsed(parsed: ParsedRun, path: Path, data: bytes, label: str | None, system: str | None) -> Run:
    window = parsed.parameters.get("window_size")
    points = [point_from_parsed(point, window if isinstance(window, int) else None) for point in parsed.points]
    run = Run(benchmark=parsed.benchmark, description=parsed.title, ranks=parsed.ranks, nodes=parsed.nodes,
              label=_label(label, parsed.label), tool_name=parsed.tool, tool_version=parsed.tool_version,
              options=parsed.parameters or None, provenance=parsed.provenance or None,
              notes=parsed.notes or None, source_format=parsed.source_format, source_file=str(path.resolve()),
              source_sha256=content_hash(data), system=system, points=points, raw={"source": data})
    if parsed.source_format == "commscope-json":
        # The document's own provenance is richer than what the reader summarised.
        apply_header(run, parsed.provenance)
    provenance = run.provenance or {}
    failed_sizes = [str(point.size) for point in points if point.validation == "Fail"]
    if provenance.get("status") in ("validation_failed", "error"):
        run.status, run.status_reason = "failed", f"the result file says: {provenance['status']}"
    elif failed_sizes:
        run.status, run.status_reason = "failed", f"validation failed at size {', '.join(failed_sizes)}"
    return run


def read_file(name: str, label: str | None, system: str | None) -> list[Run] | str:
    """The runs of one result file, or the message saying why it cannot be imported."""
    path = Path(name)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"{name}: cannot read: {exc.strerror}"
    try:
        parsed = parse_bytes(data, os.fspath(path))
    except ParseError as exc:
        return str(exc)
    if not parsed:
        return f"{name}: no benchmark results found"
    return [run_from_parsed(run, path, data, label, system) for run in parsed]


def _read_batch(names: Sequence[str], label: str | None, system: str | None) -> list[tuple[str, list[RunRows] | str]]:
    """read_file() for each file, its runs made into rows to store: what a worker does."""
    batch = []
    for name in names:
        runs = read_file(name, label, system)
        batch.append((name, runs if isinstance(runs, str) else [rows_of(run) for run in runs]))
    return batch


def import_files(store: Store, paths: Sequence[str], label: str | None, system: str | None,
                 argv: Sequence[str], force: bool = False) -> ImportResult:
    """Import the files; one whose bytes are already stored is skipped (named in
    result.skipped) unless `force`."""
    result = ImportResult()
    seen = SeenSources(store)
    invocation_id = store.add_invocation(invocation("import", argv))
    batches = [paths[start:start + FILES_PER_TRANSACTION] for start in range(0, len(paths), FILES_PER_TRANSACTION)]
    read = functools.partial(_read_batch, label=label, system=system)
    with contextlib.closing(_map_in_workers(read, batches)) as read_batches:
        for batch in read_batches:
            readable = [(name, rows) for name, rows in batch if not isinstance(rows, str)]
            result.errors += [rows for _, rows in batch if isinstance(rows, str)]
            if not force:
                readable = _new_sources(readable, seen, result)
            ids = store.add_run_groups([rows for _, rows in readable], invocation_id)
            result.stored.update(zip((name for name, _ in readable), ids))
    return result


def _new_sources(readable: list[tuple[str, list[RunRows]]], seen: SeenSources,
                 result: ImportResult) -> list[tuple[str, list[RunRows]]]:
    """The files whose bytes are not stored yet; the others go to result.skipped."""
    new = []
    for name, rows in readable:
        sha256 = rows[0].run["source_sha256"]
        earlier = seen.earlier(sha256)
        if earlier is None:
            seen.add(sha256, name)
            new.append((name, rows))
        else:
            result.skipped[name] = earlier
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
