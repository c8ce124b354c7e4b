"""Runs with their points and raw outputs, the invocations that stored them, and the
systems they belong to: saving, selecting, loading and deleting them."""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from commscope.errors import StoreError, UsageError
from commscope.records.invocation import now
from commscope.records.run import RUN_COLUMNS, RUN_JSON_COLUMNS, Run
from commscope.store.connection import write_transaction
from commscope.store.rows import RunRows, from_json, point_from_row, rows_of, to_json
from commscope.store.sources import DELETE_UNUSED, source_id, source_of_run

_RUN_SELECT = """
    SELECT runs.*, systems.name AS system_name, invocations.started_at AS invoked_at,
           invocations.commscope_version, invocations.commscope_git_commit,
           (SELECT COUNT(*) FROM points WHERE points.run_id = runs.id) AS point_count
    FROM runs
    JOIN invocations ON invocations.id = runs.invocation_id
    LEFT JOIN systems ON systems.id = runs.system_id
"""


@dataclass(frozen=True)
class RunSummary:
    """A stored run without its points: what `list runs` shows and selections filter on."""

    id: int
    invocation_id: int
    benchmark: str
    label: str | None
    system: str | None
    status: str
    ranks: int | None
    nodes: int | None
    started_at: str | None
    invoked_at: str  # when the run or import command started: imports may lack started_at
    point_count: int
    source_format: str | None  # None for runs of commscope-bench, else the import format


# RunSummary field -> column of _RUN_SELECT
_SUMMARY_COLUMNS = {
    "id": "id",
    "invocation_id": "invocation_id",
    "benchmark": "benchmark",
    "label": "label",
    "system": "system_name",
    "status": "status",
    "ranks": "ranks",
    "nodes": "nodes",
    "started_at": "started_at",
    "invoked_at": "invoked_at",
    "point_count": "point_count",
    "source_format": "source_format",
}

# Store.summaries() keyword -> column of _RUN_SELECT it filters on
_FILTERS = {
    "benchmark": "runs.benchmark",
    "label": "runs.label",
    "status": "runs.status",
    "system": "systems.name",
    "invocation_id": "runs.invocation_id",
    "run_id": "runs.id",
    "job_id": "runs.job_id",
}

# -- writing ----------------------------------------------------------------------


def add_invocation(conn: sqlite3.Connection, info: dict) -> int:
    with write_transaction(conn):
        cursor = conn.execute(
            "INSERT INTO invocations (command, argv, started_at, cwd, hostname, commscope_version, "
            "commscope_git_commit) VALUES (:command, :argv, :started_at, :cwd, :hostname, "
            ":commscope_version, :commscope_git_commit)",
            {**info, "argv": json.dumps(info["argv"])},
        )
        return cursor.lastrowid


def add_runs(conn: sqlite3.Connection, runs: Sequence[Run], invocation_id: int) -> list[int]:
    with write_transaction(conn):
        return [insert_run(conn, rows_of(run), invocation_id) for run in runs]


def add_run_groups(
    conn: sqlite3.Connection, groups: Sequence[Sequence[RunRows]], invocation_id: int
) -> list[list[int]]:
    ids: list[list[int]] = []
    failure: BaseException | None = None
    with write_transaction(conn):
        for group in groups:
            conn.execute("SAVEPOINT run_group")
            try:
                ids.append([insert_run(conn, run, invocation_id) for run in group])
            except BaseException as exc:  # also Ctrl-C: what was stored before it stays
                conn.execute("ROLLBACK TO run_group")
                failure = exc
                break
            finally:
                conn.execute("RELEASE run_group")
    if failure is not None:
        raise failure
    return ids


def insert_run(conn: sqlite3.Connection, rows: RunRows, invocation_id: int) -> int:
    """Insert one run's rows inside the caller's transaction; returns its id."""
    values = {
        **rows.run,
        "invocation_id": invocation_id,
        "system_id": _system_id(conn, rows.system) if rows.system else None,
        "source_id": source_id(conn, rows.source) if rows.source else None,
    }
    columns = ", ".join(values)
    placeholders = ", ".join(f":{column}" for column in values)
    run_id = conn.execute(f"INSERT INTO runs ({columns}) VALUES ({placeholders})", values).lastrowid
    names = ("run_id", *rows.point_columns)
    conn.executemany(
        f"INSERT INTO points ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        [(run_id, *point) for point in rows.points],
    )
    conn.executemany(
        "INSERT INTO raw_outputs (run_id, kind, data) VALUES (?, ?, ?)",
        [(run_id, kind, data) for kind, data in rows.raw],
    )
    return run_id


def _system_id(conn: sqlite3.Connection, name: str) -> int:
    conn.execute("INSERT OR IGNORE INTO systems (name, created_at) VALUES (?, ?)", (name, now()))
    return conn.execute("SELECT id FROM systems WHERE name = ?", (name,)).fetchone()[0]


def add_provenance(conn: sqlite3.Connection, path: Path, run_id: int, entries: dict[str, Any]) -> None:
    with write_transaction(conn):
        row = conn.execute("SELECT provenance FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:  # ids are never reused, so a deleted run cannot be another one now
            raise StoreError(f"run {run_id} is no longer in {path} (deleted since it was stored); it was not updated")
        merged = {**(from_json(row["provenance"]) or {}), **entries}
        conn.execute("UPDATE runs SET provenance = ? WHERE id = ?", (to_json(merged), run_id))


def delete_runs(conn: sqlite3.Connection, run_ids: Iterable[int]) -> int:
    with write_transaction(conn):
        deleted = sum(conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount for run_id in run_ids)
        conn.execute(DELETE_UNUSED)
        return deleted


# -- reading ----------------------------------------------------------------------


def summaries(conn: sqlite3.Connection, limit: int | None, **equal: Any) -> list[RunSummary]:
    """The runs whose columns equal the values given (by _FILTERS name; None: any value),
    newest first."""
    where = [f"{_FILTERS[name]} = ?" for name, value in equal.items() if value is not None]
    params: list[Any] = [value for value in equal.values() if value is not None]
    sql = _RUN_SELECT + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY runs.id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [
        RunSummary(**{name: row[column] for name, column in _SUMMARY_COLUMNS.items()})
        for row in conn.execute(sql, params)
    ]


def has_run(conn: sqlite3.Connection, run_id: int) -> bool:
    return conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is not None


def run_counts(conn: sqlite3.Connection) -> dict[str, int]:
    return dict(conn.execute("SELECT benchmark, COUNT(*) FROM runs GROUP BY benchmark").fetchall())


def last_run_id(conn: sqlite3.Connection) -> int | None:
    return conn.execute("SELECT MAX(id) FROM runs").fetchone()[0]


def last_invocation_id(conn: sqlite3.Connection, command: str) -> int | None:
    return conn.execute(
        "SELECT MAX(runs.invocation_id) FROM runs JOIN invocations ON invocations.id = runs.invocation_id "
        "WHERE invocations.command = ?",
        (command,),
    ).fetchone()[0]


def _run_of(row: sqlite3.Row, points: list) -> Run:
    fields = {column: row[column] for column in RUN_COLUMNS}
    for column in RUN_JSON_COLUMNS:
        fields[column] = from_json(fields[column])
    return Run(
        **fields,
        points=points,
        id=row["id"],
        system=row["system_name"],
        invocation_id=row["invocation_id"],
        commscope_version=row["commscope_version"],
        commscope_git_commit=row["commscope_git_commit"],
    )


def run(conn: sqlite3.Connection, path: Path, run_id: int) -> Run:
    [found] = runs_at_sizes(conn, path, [run_id])
    return found


#: Ids bound per query: SQLite before 3.32 takes at most 999 parameters.
_IDS_PER_QUERY = 900


def _chunks(ids: Sequence[int]) -> Iterable[Sequence[int]]:
    return (ids[start : start + _IDS_PER_QUERY] for start in range(0, len(ids), _IDS_PER_QUERY))


def _size_test(sizes: Iterable[int | None] | None) -> tuple[str, list[int]]:
    """The SQL condition on points.size that keeps `sizes` (None: every point; no sizes: none,
    "") and the sizes it binds."""
    if sizes is None:
        return "1", []
    wanted = set(sizes)
    sized = sorted(size for size in wanted if size is not None)
    tests = [f"size IN ({', '.join('?' * len(sized))})"] if sized else []
    if None in wanted:
        tests.append("size IS NULL")
    return " OR ".join(tests), sized


def runs_at_sizes(
    conn: sqlite3.Connection, path: Path, run_ids: Sequence[int], sizes: Iterable[int | None] | None = None
) -> list[Run]:
    """Runs in the order of `run_ids`, each with only its points at `sizes` (None: the
    points without a size; no `sizes`: every point): one query per 900 runs rather than two
    per run, and no point made that is not looked at."""
    size_test, sized = _size_test(sizes)
    rows, points = {}, {}
    for chunk in _chunks(list(run_ids)):
        marks = ", ".join("?" * len(chunk))
        rows.update((row["id"], row) for row in conn.execute(_RUN_SELECT + f" WHERE runs.id IN ({marks})", chunk))
        if size_test:
            # plain tuples made into dicts once: sqlite3.Row looks every name up column by column
            cursor = conn.cursor()
            cursor.row_factory = None
            cursor.execute(
                f"SELECT * FROM points WHERE run_id IN ({marks}) AND ({size_test}) ORDER BY id", [*chunk, *sized]
            )
            names = [column[0] for column in cursor.description]
            for values in cursor:
                point = dict(zip(names, values))
                points.setdefault(point["run_id"], []).append(point_from_row(point))
    missing = [run_id for run_id in run_ids if run_id not in rows]
    if missing:
        raise UsageError(f"no run {missing[0]} in {path}")
    return [_run_of(rows[run_id], points.get(run_id, [])) for run_id in run_ids]


def point_sizes(conn: sqlite3.Connection, run_ids: Sequence[int]) -> dict[int, set[int | None]]:
    """The message sizes each run has points at."""
    found: dict[int, set[int | None]] = {run_id: set() for run_id in run_ids}
    for chunk in _chunks(list(run_ids)):
        marks = ", ".join("?" * len(chunk))
        for run_id, size in conn.execute(f"SELECT DISTINCT run_id, size FROM points WHERE run_id IN ({marks})", chunk):
            found[run_id].add(size)
    return found


def runs_from_source(conn: sqlite3.Connection, sha256: str) -> list[int]:
    return [
        row[0]
        for row in conn.execute(
            "SELECT runs.id FROM runs JOIN sources ON runs.source_id = sources.id WHERE sources.sha256 = ? "
            "ORDER BY runs.id",
            (sha256,),
        )
    ]


def runs_with_provenance(conn: sqlite3.Connection, key: str, values: set[str]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for value, run_id in conn.execute(
        "SELECT json_extract(provenance, '$.' || ?) AS value, id FROM runs WHERE value IN "
        f"({', '.join('?' * len(values))}) ORDER BY id",
        (key, *values),
    ):
        found.setdefault(value, []).append(run_id)
    return found


def raw_outputs(conn: sqlite3.Connection, run_id: int) -> dict[str, bytes]:
    outputs = {
        row["kind"]: zlib.decompress(row["data"])
        for row in conn.execute("SELECT kind, data FROM raw_outputs WHERE run_id = ? ORDER BY kind", (run_id,))
    }
    source = source_of_run(conn, run_id)
    if source is not None:
        outputs["source"] = source
    return outputs


def invocation(conn: sqlite3.Connection, invocation_id: int) -> dict:
    row = conn.execute("SELECT * FROM invocations WHERE id = ?", (invocation_id,)).fetchone()
    return {**dict(row), "argv": json.loads(row["argv"])} if row else {}
