"""Baselines: named sets of runs that `commscope check` compares new runs against."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from commscope.records.invocation import now
from commscope.store.connection import write_transaction


def set_baseline(conn: sqlite3.Connection, name: str, run_ids: Sequence[int]) -> list[int] | None:
    with write_transaction(conn):
        row = conn.execute("SELECT id FROM baselines WHERE name = ?", (name,)).fetchone()
        previous = None
        if row is not None:
            previous = _baseline_runs(conn, row["id"])
            conn.execute("DELETE FROM baselines WHERE id = ?", (row["id"],))
        baseline_id = conn.execute("INSERT INTO baselines (name, created_at) VALUES (?, ?)", (name, now())).lastrowid
        conn.executemany(
            "INSERT OR IGNORE INTO baseline_runs (baseline_id, run_id) VALUES (?, ?)",
            [(baseline_id, run_id) for run_id in run_ids],
        )
    return previous


def baseline_run_ids(conn: sqlite3.Connection, name: str) -> list[int] | None:
    row = conn.execute("SELECT id FROM baselines WHERE name = ?", (name,)).fetchone()
    return None if row is None else _baseline_runs(conn, row["id"])


def baselines(conn: sqlite3.Connection) -> list[tuple[str, str, list[int]]]:
    rows = conn.execute("SELECT id, name, created_at FROM baselines ORDER BY name").fetchall()
    return [(row["name"], row["created_at"], _baseline_runs(conn, row["id"])) for row in rows]


def delete_baseline(conn: sqlite3.Connection, name: str) -> bool:
    with write_transaction(conn):
        return conn.execute("DELETE FROM baselines WHERE name = ?", (name,)).rowcount > 0


def _baseline_runs(conn: sqlite3.Connection, baseline_id: int) -> list[int]:
    rows = conn.execute("SELECT run_id FROM baseline_runs WHERE baseline_id = ? ORDER BY run_id", (baseline_id,))
    return [row[0] for row in rows]
