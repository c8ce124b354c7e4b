"""Batch jobs `commscope submit` handed to Slurm, and which runs `collect` stored from each."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from commscope.errors import CommscopeError
from commscope.records.invocation import now
from commscope.records.run import Run
from commscope.store.connection import write_transaction
from commscope.store.rows import from_json, rows_of
from commscope.store.runs import insert_run


def add_job(conn: sqlite3.Connection, job: dict) -> int:
    with write_transaction(conn):
        return _insert(conn, job)


def _insert(conn: sqlite3.Connection, job: dict) -> int:
    values = {**job, "targets": json.dumps(job["targets"])}
    columns = ", ".join(values)
    return conn.execute(f"INSERT INTO jobs ({columns}) VALUES ({', '.join(':' + c for c in values)})", values).lastrowid


def claim_job(conn: sqlite3.Connection, job: dict) -> int | None:
    with write_transaction(conn):
        if conn.execute("SELECT 1 FROM jobs WHERE folder = ?", (job["folder"],)).fetchone():
            return None
        return _insert(conn, job)


def jobs(conn: sqlite3.Connection, path: Path, job_ids: Sequence[str], uncollected: bool) -> list[dict]:
    if job_ids:
        found = []
        for job_id in job_ids:
            newest = "SELECT * FROM jobs WHERE job_id = ? ORDER BY id DESC LIMIT 1"
            row = conn.execute(newest, (str(job_id),)).fetchone()
            if row is None:
                raise CommscopeError(f"no job {job_id} in {path} (see `commscope status`)")
            found.append(row)
    else:
        where = " WHERE collected_at IS NULL" if uncollected else ""
        found = conn.execute(f"SELECT * FROM jobs{where} ORDER BY id").fetchall()
    return [{**dict(row), "targets": json.loads(row["targets"]), "run_ids": from_json(row["run_ids"])} for row in found]


def update_job(conn: sqlite3.Connection, row_id: int, fields: dict) -> None:
    assignments = ", ".join(f"{name} = :{name}" for name in fields)
    with write_transaction(conn):
        conn.execute(
            f"UPDATE jobs SET {assignments}, updated_at = :updated_at WHERE id = :id",
            {**fields, "updated_at": now(), "id": row_id},
        )


def collect_job(conn: sqlite3.Connection, row_id: int, runs: Sequence[Run], invocation_id: int) -> list[int] | None:
    with write_transaction(conn):
        done = conn.execute("SELECT collected_at, folder FROM jobs WHERE id = ?", (row_id,)).fetchone()
        if done is None or done["collected_at"] is not None:
            return None
        twin = "SELECT 1 FROM jobs WHERE folder = ? AND collected_at IS NOT NULL"
        if conn.execute(twin, (done["folder"],)).fetchone():  # recorded twice by an older collect
            return None
        ids = [insert_run(conn, rows_of(run), invocation_id) for run in runs]
        conn.execute("UPDATE jobs SET collected_at = ?, run_ids = ? WHERE id = ?", (now(), json.dumps(ids), row_id))
        return ids
