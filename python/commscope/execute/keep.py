"""Storing a finished run, or keeping it in files when the store cannot take it.

A benchmark may run for hours; if the database is locked past the busy timeout, its disk
is full, or it was damaged meanwhile, the measurement must not go with the temporary
folder. The run is written to the unsaved-results folder (records/unsaved.py), or to the
system's temporary folder if that fails too, and the user is told where and how to store
it later: `commscope import FILE.jsonl`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from commscope import ui
from commscope.errors import StoreError
from commscope.records import unsaved
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
        except OSError as exc:
            ui.warn(f"cannot keep the results in {folder}: {exc.strerror or exc}")
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
