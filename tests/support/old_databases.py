"""Result databases as an earlier version of commscope left them, for the migration tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from commscope.store.connection import connect
from commscope.store.schema import migrate


def database_at(
    path: Path, version: int, command: str = "run", started_at: str = "2025-06-01", harness: str = "0.1.0"
) -> sqlite3.Connection:
    """A new database at schema `version` with one invocation (id 1) of `command`, for the
    rows a test then inserts by hand as that version stored them; the caller closes it."""
    conn = connect(path)
    assert migrate(conn, target=version) == 0
    conn.execute(
        "INSERT INTO invocations (command, argv, started_at, cwd, commscope_version) VALUES (?, '[]', ?, '/', ?)",
        (command, started_at, harness),
    )
    return conn
