"""Storing a finished run, or keeping it in files when the store cannot take it; what every
command that measures (run, run hpl, run storage, overhead) stored, and its exit code.

A benchmark may run for hours; if the database is locked past the busy timeout, its disk
is full, or it was damaged meanwhile, the measurement must not go with the temporary
folder. The run is written to the unsaved-results folder (records/unsaved.py), or to the
system's temporary folder if that fails too, and the user is told where and how to store
it later: `commscope import FILE.jsonl`.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from commscope import ui
from commscope.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_STORE, StoreError
from commscope.records import unsaved
from commscope.records.invocation import invocation
from commscope.records.run import Run
from commscope.store.db import Store


def store_or_keep(store: Store, run: Run, invocation_id: int, invocation: dict) -> bool:
    """Store `run` (setting its id) and say True; or keep it in files, say where, and say False.
    An unexpected error is raised again once the run is safe."""
    try:
        run.id = store.add_run(run, invocation_id)
        return True
    except Exception as exc:
        reason = exc
    ui.error(f"{run.benchmark}: {reason}")
    for folder in (unsaved.unsaved_dir(), Path(tempfile.gettempdir()) / "commscope-unsaved"):
        try:
            jsonl = unsaved.keep(run, invocation, folder)
        except (OSError, ValueError) as exc:  # ValueError: text that cannot be written as UTF-8
            ui.warn(f"cannot keep the results in {folder}: {getattr(exc, 'strerror', None) or exc}")
            continue
        ui.note(
            f"{run.benchmark}: the {len(run.points)} sizes it measured are kept in {jsonl} "
            f"(with its .stdout, .stderr and .run.json); store them later with\n"
            f"  commscope import {jsonl}"
        )
        break
    else:
        ui.error(f"{run.benchmark}: its results could not be kept anywhere and are lost")
    if not isinstance(reason, StoreError):
        raise reason
    return False


@dataclass(frozen=True)
class Destination:
    """Where a measuring command's runs go and the names they carry: the database (None:
    --no-store), the folder that also keeps every run as files (--output-dir), the command
    line that made them, and the label and system they are stored under."""

    db: Path | None
    argv: Sequence[str]
    folder: Path | None = None
    label: str | None = None
    system: str | None = None


@dataclass
class Stored:
    """What a command measured: the runs stored (or made, with no store to put them in), how
    many it had to keep as files instead, and the stop signal that cut it short."""

    store: Store | None = field(default=None, repr=False)
    invocation_id: int | None = None
    invoked: dict = field(default_factory=dict, repr=False)
    runs: list[Run] = field(default_factory=list)
    kept: int = 0
    #: Every run made, stored or kept: what a command works out from what it measured
    #: (`overhead`'s slowdown) does not depend on whether the store could take it.
    measured: list[Run] = field(default_factory=list)
    stopped_by: str | None = None
    #: Where every run is also written as files (`--output-dir`: a batch job's runs/ folder,
    #: which `commscope collect` stores), in the unsaved-results format.
    folder: Path | None = None

    def add(self, run: Run) -> None:
        """Store one run (with no store, just count it), or keep it as files."""
        self.measured.append(run)
        if self.folder is not None:
            unsaved.keep(run, self.invoked, self.folder)
        if self.store is None or store_or_keep(self.store, run, self.invocation_id, self.invoked):
            self.runs.append(run)
        else:
            self.kept += 1


@contextmanager
def storing(destination: Destination, command: str) -> Iterator[Stored]:
    """The store of one command, opened before it measures: a database that cannot be
    written is refused before anything runs (no database: nothing is stored)."""
    db = destination.db
    with Store(db) if db is not None else contextlib.nullcontext() as store:
        invoked = invocation(command, destination.argv)
        yield Stored(store, store.add_invocation(invoked) if store else None, invoked, folder=destination.folder)


def summary(stored: Stored, where: Path | None) -> int:
    """Say what was stored where, and which runs did not complete; returns the exit code:
    kept as files (4), stopped by a signal (3), a run not complete (1), else 0."""
    runs = stored.runs
    failed = [run for run in runs if run.status != "complete"]
    ids = ", ".join(str(run.id) for run in runs if run.id is not None)
    counted = f"{len(runs)} run{'s' if len(runs) != 1 else ''}"
    if where is None:
        ui.note(f"{counted} not stored (--no-store)")
    elif stored.kept and not runs:
        pass  # none reached the store: the warning below says where they are
    else:
        ui.note(f"{'stored' if ids else 'kept'} {counted} in {where}" + (f" (ids {ids})" if ids else ""))
    if failed:
        ui.warn(
            f"{len(failed)} of {len(runs)} runs did not complete: "
            + "; ".join(f"{f'run {run.id} ' if run.id else ''}{run.benchmark}: {run.status_reason}" for run in failed)
        )
    if stored.kept:
        ui.warn(
            f"{stored.kept} run{'s' if stored.kept > 1 else ''} could not be stored and "
            f"{'are' if stored.kept > 1 else 'is'} kept as files (see above)"
        )
        return EXIT_STORE
    if stored.stopped_by:
        ui.warn(f"stopped by {stored.stopped_by}; nothing after it was run")
        return EXIT_INTERRUPTED
    return EXIT_FAILED if failed else EXIT_OK
