"""The result store: one SQLite file in WAL mode, versioned with migrations.

Tables (current version):

* ``schema_version`` - one row: the migration step the file is at.
* ``invocations`` - one per `commscope run` / `commscope import`: argv, time,
  working folder, host, commscope version and git commit.
* ``systems`` - named systems (clusters) results belong to.
* ``runs`` - one size sweep of one benchmark: flags, ranks, nodes, placement,
  label, status and reason, and provenance (core version and commit, MPI
  library and version, hosts, CPU, compiler, job id, environment, options,
  source file for imports).
* ``points`` - one row per point: size, window and the other sweep axes
  (datatype, window creation, synchronisation; NULL where not swept),
  iterations, warm-up, batch, the time statistics in microseconds, the core's
  metrics as columns, any other metric as JSON, validation errors.
* ``raw_outputs`` - what a run produced (JSONL stream, stdout, stderr), zlib-compressed,
  so results can be re-parsed later (imports before version 6 keep their file here too).
* ``sources`` - each imported file once, zlib-compressed, keyed by its SHA-256; runs
  point at theirs (``runs.source_id``), however many runs one file holds.
* ``baselines`` and ``baseline_runs`` - named sets of runs that `commscope check`
  compares new runs against; deleting a run takes it out of its baselines.
* ``jobs`` - batch jobs `commscope submit` handed to Slurm: job id, cluster, the
  script, the folder the job writes its results to, the state last seen, and when
  `commscope collect` stored its runs (once: a collected job is never stored again).

Several `commscope run` processes may write to one file at once: every write is
one short ``BEGIN IMMEDIATE`` transaction and waits for the lock (busy_timeout)
instead of failing. WAL needs a local file system (not NFS).

A database that cannot be written (read-only file, folder or mount) is opened read-only
for reading; a damaged one is refused before anything is written (see integrity.py).
Every SQLite error leaves the write methods as a StoreError that says what happened.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from commscope.errors import CommscopeError, StoreError, UsageError
from commscope.records.invocation import now
from commscope.records.metrics import CORE_METRICS, STATS, TIME_COLUMNS
from commscope.records.redact import redact_environment, redact_json_text, secret_names
from commscope.records.run import AXES, RUN_COLUMNS, RUN_JSON_COLUMNS, Axes, Pair, Point, Run
from commscope.store import integrity
from commscope.store.sources import DELETE_UNUSED, Source, source_id, source_of_run

BUSY_TIMEOUT_MS = 60_000

POINT_COLUMNS = (
    "size",
    "window_size",
    *AXES,
    "iterations",
    "warmup",
    "batch",
    "samples",
    *TIME_COLUMNS,
    *CORE_METRICS,
    "other_metrics",
    "validation_errors",
    "pair",
)

# Each migration is a list of statements run in one transaction: executescript()
# would commit on its own and break the all-or-nothing upgrade. Migrations are
# literal SQL, never built from constants that may change later.
_V1 = [
    """CREATE TABLE invocations (
        id INTEGER PRIMARY KEY,
        command TEXT NOT NULL,
        argv TEXT NOT NULL,
        started_at TEXT NOT NULL,
        cwd TEXT NOT NULL,
        hostname TEXT,
        commscope_version TEXT NOT NULL,
        commscope_git_commit TEXT)""",
    """CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        invocation_id INTEGER NOT NULL REFERENCES invocations(id),
        benchmark TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('complete', 'incomplete', 'failed')),
        status_reason TEXT,
        description TEXT,
        flags TEXT NOT NULL DEFAULT '[]',
        ranks INTEGER,
        nodes INTEGER,
        placement TEXT,
        label TEXT,
        repeat_index INTEGER NOT NULL DEFAULT 0,
        started_at TEXT,
        ended_at TEXT,
        launcher_argv TEXT,
        tool_name TEXT,
        tool_version TEXT,
        tool_git_commit TEXT,
        mpi_library TEXT,
        mpi_version TEXT,
        mpi_library_version TEXT,
        hosts TEXT,
        cpu_model TEXT,
        compiler TEXT,
        job_id TEXT,
        environment TEXT,
        options TEXT,
        provenance TEXT,
        notes TEXT,
        source_format TEXT,
        source_file TEXT)""",
    """CREATE TABLE points (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        size INTEGER,
        window_size INTEGER,
        iterations INTEGER,
        warmup INTEGER,
        batch INTEGER,
        samples INTEGER,
        time_min_us REAL, time_max_us REAL, time_mean_us REAL, time_median_us REAL,
        time_p50_us REAL, time_p90_us REAL, time_p99_us REAL, time_stddev_us REAL,
        time_ci95_low_us REAL, time_ci95_high_us REAL,
        latency_us REAL, min_latency_us REAL, max_latency_us REAL,
        bandwidth_MBps REAL, min_bandwidth_MBps REAL, max_bandwidth_MBps REAL, message_rate REAL,
        other_metrics TEXT,
        validation_errors INTEGER)""",
    """CREATE TABLE raw_outputs (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (run_id, kind))""",
]
_V2 = [
    """CREATE TABLE systems (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL)""",
    "ALTER TABLE runs ADD COLUMN system_id INTEGER REFERENCES systems(id)",
    "CREATE INDEX runs_by_benchmark ON runs(benchmark, started_at)",
    "CREATE INDEX points_by_run ON points(run_id, size)",
]
_V3 = [
    """CREATE TABLE baselines (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL)""",
    """CREATE TABLE baseline_runs (
        baseline_id INTEGER NOT NULL REFERENCES baselines(id) ON DELETE CASCADE,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        PRIMARY KEY (baseline_id, run_id))""",
    "CREATE INDEX baseline_runs_by_run ON baseline_runs(run_id)",
    "CREATE INDEX runs_by_invocation ON runs(invocation_id)",
]
# Every sweep axis of the core is part of a point's identity (records.run.Axes). Points
# stored before keep NULL: "not swept".
_V4 = [
    "ALTER TABLE points ADD COLUMN datatype TEXT",
    "ALTER TABLE points ADD COLUMN window_creation TEXT",
    "ALTER TABLE points ADD COLUMN synchronization TEXT",
]
# Slurm jobs submitted by `commscope submit`, and which runs `collect` stored from each.
_V5 = [
    """CREATE TABLE jobs (
        id INTEGER PRIMARY KEY,
        job_id TEXT NOT NULL,
        cluster TEXT,
        submitted_at TEXT NOT NULL,
        invocation_id INTEGER REFERENCES invocations(id),
        label TEXT,
        targets TEXT NOT NULL,
        nodes INTEGER,
        ntasks_per_node INTEGER,
        partition TEXT,
        folder TEXT NOT NULL,
        script TEXT NOT NULL,
        state TEXT NOT NULL,
        state_reason TEXT,
        node_list TEXT,
        updated_at TEXT,
        collected_at TEXT,
        run_ids TEXT)""",
    "CREATE INDEX jobs_by_job_id ON jobs(job_id)",
]
# Each imported file stored once, however many runs it holds (imports used to keep a copy per run).
_V6 = [
    """CREATE TABLE sources (
        id INTEGER PRIMARY KEY,
        sha256 TEXT NOT NULL UNIQUE,
        size INTEGER NOT NULL,
        data BLOB NOT NULL)""",
    "ALTER TABLE runs ADD COLUMN source_id INTEGER REFERENCES sources(id)",
    "CREATE INDEX runs_by_source ON runs(source_id)",
]
# The pairs benchmark: the pair and metric of a point (records.run.Pair as JSON; NULL
# for every other benchmark), part of its identity.
_V7 = [
    "ALTER TABLE points ADD COLUMN pair TEXT",
]
#: Migration steps; a database at version N has had the first N applied.
MIGRATIONS: list[list[str]] = [_V1, _V2, _V3, _V4, _V5, _V6, _V7]
SCHEMA_VERSION = len(MIGRATIONS)


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL, foreign keys on."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {int(integrity.busy_timeout_s() * 1000)}")
    conn.execute("PRAGMA foreign_keys = ON")
    _enable_wal(conn)
    conn.execute("PRAGMA synchronous = NORMAL")  # durable at checkpoints; safe with WAL
    return conn


def _enable_wal(conn: sqlite3.Connection) -> None:
    # Switching a new file to WAL may fail with SQLITE_BUSY without calling the busy
    # handler while another process creates the same file, so wait here instead.
    deadline = time.monotonic() + integrity.busy_timeout_s()
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    # IMMEDIATE takes the write lock up front: a deferred transaction that later
    # upgrades to write would fail with "database is locked" without waiting.
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def schema_version(conn: sqlite3.Connection) -> int:
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_version'").fetchone() is None:
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    return row[0] if row else 0


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the database to `target`; returns the version it was at. Safe when several
    processes open a new file at once: the version is read under the write lock."""
    with write_transaction(conn):
        current = schema_version(conn)
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"the result database is at schema version {current}, newer than this "
                f"commscope understands ({SCHEMA_VERSION}); upgrade commscope"
            )
        for steps in MIGRATIONS[current:target]:
            for statement in steps:
                conn.execute(statement)
        if current < target:
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            conn.execute("DELETE FROM schema_version")
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (target,))
    return current


def _to_json(value) -> str | None:
    return None if value is None else json.dumps(value)


def _from_json(text: str | None):
    return None if text is None else json.loads(text)


def _point_row(point: Point) -> tuple:
    """The POINT_COLUMNS values of a point (map() because bulk imports store millions of them)."""
    other = {name: value for name, value in point.metrics.items() if name not in CORE_METRICS}
    return (
        *point.column_values(),
        _to_json(other) if other else None,
        point.validation_errors,
        _to_json(point.pair.as_dict()) if point.pair is not None else None,
    )


@dataclass(frozen=True)
class RunRows:
    """A run as the values of its rows, ready to INSERT. Making them needs no database, so a
    bulk import makes them in worker processes and the importing process only inserts."""

    run: dict[str, Any]  # the RUN_COLUMNS, JSON ones as text
    system: str | None
    point_columns: tuple[str, ...]  # the POINT_COLUMNS that some point fills
    points: list[tuple]  # per point, the values of point_columns
    raw: list[tuple[str, bytes]]  # (kind, zlib-compressed data)
    source: Source | None = None  # the imported file, shared by the runs it holds


def rows_of(run: Run, source: Source | None = None) -> RunRows:
    """The rows that store `run` (imported from `source`). Secret-looking environment
    values are redacted here, on the one way into the store, in the raw outputs too."""
    values = {column: getattr(run, column) for column in RUN_COLUMNS}
    values["environment"] = redact_environment(run.environment)
    secrets = secret_names(run.environment)
    for column in RUN_JSON_COLUMNS:
        values[column] = _to_json(values[column])
    # Only the point columns that hold a value are named. sqlite3 looks for an adapter for
    # every None it binds, which made storing rows of mostly NULLs (an imported OMB table
    # has 2-4 values in 31 columns) five times slower than the values alone; a column left
    # out is NULL just the same, as no points column has a DEFAULT.
    columns = list(zip(*map(_point_row, run.points)))  # one tuple per POINT_COLUMNS entry
    filled = [index for index, column in enumerate(columns) if column.count(None) < len(column)]
    points = list(zip(*(columns[index] for index in filled))) if filled else [()] * len(run.points)
    return RunRows(
        run=values,
        system=run.system,
        point_columns=tuple(POINT_COLUMNS[index] for index in filled),
        points=points,
        source=source,
        raw=[(kind, zlib.compress(redact_json_text(data, secrets))) for kind, data in run.raw.items()],
    )


def _point_from_row(row: sqlite3.Row) -> Point:
    metrics = {name: row[name] for name in CORE_METRICS if row[name] is not None}
    metrics.update(_from_json(row["other_metrics"]) or {})
    stats = {key: row[column] for key, column in zip(STATS, TIME_COLUMNS) if row[column] is not None}
    return Point(
        size=row["size"],
        window=row["window_size"],
        axes=Axes(*(row[name] for name in AXES)),
        iterations=row["iterations"],
        warmup=row["warmup"],
        batch=row["batch"],
        samples=row["samples"],
        stats=stats,
        metrics=metrics,
        validation_errors=row["validation_errors"],
        pair=Pair.of(_from_json(row["pair"])),
    )


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


def _store_errors(doing: str):
    """Turn the SQLite errors of a Store method into a StoreError that says what happened."""

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self: Store, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except (sqlite3.Error, UnicodeError, OSError) as exc:
                raise integrity.describe(exc, self.path, doing) from None

        return wrapper

    return decorate


class Store:
    """An open result database. Use as a context manager, or call close().

    With `readonly`, a database that cannot be written is opened read-only (a writable
    one is still opened for writing, so an old one is brought to the current schema);
    without it, one that cannot be written is refused at once, before a run measures
    anything it could not store."""

    def __init__(self, path: Path, *, create: bool = True, readonly: bool = False) -> None:
        self.path = Path(path)
        self.conn: sqlite3.Connection | None = None
        if not self.path.exists():
            if not create or readonly:
                raise StoreError(
                    f"no result database at {self.path}: nothing has been stored there yet "
                    "(use `commscope run` or `commscope import`, or pass --db)"
                )
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise integrity.describe(exc, self.path, "create") from None
        else:
            integrity.check_header(self.path)
        try:
            if self.path.exists() and not integrity.writable(self.path):
                if not readonly:
                    raise StoreError(
                        f"cannot write to result database {self.path}: it is read-only "
                        "(file, folder or mount); reading it still works"
                    )
                self.conn = integrity.connect_read_only(self.path)
                self._check_read_only_version()
                return
            self.conn = connect(self.path)
            if not readonly:
                integrity.quick_check(self.conn, self.path)
            migrate(self.conn)
        except (sqlite3.Error, OSError) as exc:
            self.close()
            raise integrity.describe(exc, self.path) from None
        except StoreError:
            self.close()
            raise

    def _check_read_only_version(self) -> None:
        version = schema_version(self.conn)
        if version < SCHEMA_VERSION:
            raise StoreError(
                f"result database {self.path} is read-only and at schema version {version}; this "
                f"commscope reads version {SCHEMA_VERSION}: open it once where it can be written"
            )
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the result database is at schema version {version}, newer than this "
                f"commscope understands ({SCHEMA_VERSION}); upgrade commscope"
            )

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    # -- writing --------------------------------------------------------------

    @_store_errors("write to")
    def add_invocation(self, info: dict) -> int:
        with write_transaction(self.conn) as conn:
            cursor = conn.execute(
                "INSERT INTO invocations (command, argv, started_at, cwd, hostname, commscope_version, "
                "commscope_git_commit) VALUES (:command, :argv, :started_at, :cwd, :hostname, "
                ":commscope_version, :commscope_git_commit)",
                {**info, "argv": json.dumps(info["argv"])},
            )
            return cursor.lastrowid

    @_store_errors("write to")
    def add_runs(self, runs: Sequence[Run], invocation_id: int) -> list[int]:
        """Store runs with their points and raw outputs: all of them or, on error, none."""
        with write_transaction(self.conn) as conn:
            return [self._insert_run(conn, rows_of(run), invocation_id) for run in runs]

    def add_run(self, run: Run, invocation_id: int) -> int:
        return self.add_runs([run], invocation_id)[0]

    @_store_errors("write to")
    def add_run_groups(self, groups: Sequence[Sequence[RunRows]], invocation_id: int) -> list[list[int]]:
        """Store groups of runs, made into rows by rows_of() (an import stores each file's runs
        as a group), in one transaction, each group all or nothing as if each had its own
        add_runs(): when one fails, the groups before it are still stored and the error is
        raised. One commit for many groups is what makes a bulk import fast; callers keep the
        groups few enough that the write lock is held briefly."""
        ids: list[list[int]] = []
        failure: BaseException | None = None
        with write_transaction(self.conn) as conn:
            for group in groups:
                conn.execute("SAVEPOINT run_group")
                try:
                    ids.append([self._insert_run(conn, run, invocation_id) for run in group])
                except BaseException as exc:  # also Ctrl-C: what was stored before it stays
                    conn.execute("ROLLBACK TO run_group")
                    failure = exc
                    break
                finally:
                    conn.execute("RELEASE run_group")
        if failure is not None:
            raise failure
        return ids

    def _insert_run(self, conn: sqlite3.Connection, rows: RunRows, invocation_id: int) -> int:
        values = {
            **rows.run,
            "invocation_id": invocation_id,
            "system_id": self._system_id(conn, rows.system) if rows.system else None,
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

    @_store_errors("write to")
    def add_provenance(self, run_id: int, entries: dict[str, Any]) -> None:
        """Add entries to a stored run's provenance (a key given replaces its value). For what
        is known only after the run was stored: a sweep's retest run id. Provenance is JSON
        text in its column, so no migration is needed for new entries."""
        with write_transaction(self.conn) as conn:
            row = conn.execute("SELECT provenance FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise UsageError(f"no run {run_id} in {self.path}")
            merged = {**(_from_json(row["provenance"]) or {}), **entries}
            conn.execute("UPDATE runs SET provenance = ? WHERE id = ?", (_to_json(merged), run_id))

    @staticmethod
    def _system_id(conn: sqlite3.Connection, name: str) -> int:
        conn.execute("INSERT OR IGNORE INTO systems (name, created_at) VALUES (?, ?)", (name, now()))
        return conn.execute("SELECT id FROM systems WHERE name = ?", (name,)).fetchone()[0]

    @_store_errors("write to")
    def delete_runs(self, run_ids: Iterable[int]) -> int:
        """Delete runs with their points, raw outputs and sources no other run has; returns
        how many existed."""
        with write_transaction(self.conn) as conn:
            deleted = sum(conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount for run_id in run_ids)
            conn.execute(DELETE_UNUSED)
            return deleted

    # -- reading --------------------------------------------------------------

    def summaries(
        self,
        *,
        benchmark: str | None = None,
        label: str | None = None,
        status: str | None = None,
        limit: int | None = None,
        system: str | None = None,
        invocation_id: int | None = None,
        run_id: int | None = None,
        job_id: str | None = None,
    ) -> list[RunSummary]:
        """What listings and selections need of each matching run, newest first."""
        where, params = [], []
        for column, value in (
            ("runs.benchmark", benchmark),
            ("runs.label", label),
            ("runs.status", status),
            ("systems.name", system),
            ("runs.invocation_id", invocation_id),
            ("runs.id", run_id),
            ("runs.job_id", job_id),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        sql = _RUN_SELECT + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY runs.id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [
            RunSummary(**{name: row[column] for name, column in _SUMMARY_COLUMNS.items()})
            for row in self.conn.execute(sql, params)
        ]

    def has_run(self, run_id: int) -> bool:
        return self.conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is not None

    def run_counts(self) -> dict[str, int]:
        """Stored runs per benchmark."""
        return dict(self.conn.execute("SELECT benchmark, COUNT(*) FROM runs GROUP BY benchmark").fetchall())

    def last_run_id(self) -> int | None:
        row = self.conn.execute("SELECT MAX(id) FROM runs").fetchone()
        return row[0]

    def last_invocation_id(self, command: str = "run") -> int | None:
        """The newest invocation of `command` that stored runs (a dry run or a run stopped
        before its first benchmark stores none)."""
        return self.conn.execute(
            "SELECT MAX(runs.invocation_id) FROM runs JOIN invocations ON invocations.id = runs.invocation_id "
            "WHERE invocations.command = ?",
            (command,),
        ).fetchone()[0]

    def run(self, run_id: int) -> Run:
        """One run with its points (raw outputs are loaded on demand by raw_outputs())."""
        row = self.conn.execute(_RUN_SELECT + " WHERE runs.id = ?", (run_id,)).fetchone()
        if row is None:
            raise UsageError(f"no run {run_id} in {self.path}")
        fields = {column: row[column] for column in RUN_COLUMNS}
        for column in RUN_JSON_COLUMNS:
            fields[column] = _from_json(fields[column])
        points = [
            _point_from_row(point)
            for point in self.conn.execute("SELECT * FROM points WHERE run_id = ? ORDER BY id", (run_id,))
        ]
        return Run(
            **fields,
            points=points,
            id=row["id"],
            system=row["system_name"],
            invocation_id=row["invocation_id"],
            commscope_version=row["commscope_version"],
            commscope_git_commit=row["commscope_git_commit"],
        )

    def runs_from_source(self, sha256: str) -> list[int]:
        """Ids of the runs imported from a file with these bytes (SHA-256 in hex)."""
        return [
            row[0]
            for row in self.conn.execute(
                "SELECT runs.id FROM runs JOIN sources ON runs.source_id = sources.id WHERE sources.sha256 = ? "
                "ORDER BY runs.id",
                (sha256,),
            )
        ]

    def runs_with_provenance(self, key: str, values: set[str]) -> dict[str, list[int]]:
        """Ids of the runs whose provenance has `key` set to one of `values`, by value."""
        found: dict[str, list[int]] = {}
        for value, run_id in self.conn.execute(
            "SELECT json_extract(provenance, '$.' || ?) AS value, id FROM runs WHERE value IN "
            f"({', '.join('?' * len(values))}) ORDER BY id",
            (key, *values),
        ):
            found.setdefault(value, []).append(run_id)
        return found

    def raw_outputs(self, run_id: int) -> dict[str, bytes]:
        outputs = {
            row["kind"]: zlib.decompress(row["data"])
            for row in self.conn.execute("SELECT kind, data FROM raw_outputs WHERE run_id = ? ORDER BY kind", (run_id,))
        }
        source = source_of_run(self.conn, run_id)
        if source is not None:
            outputs["source"] = source
        return outputs

    def invocation(self, invocation_id: int) -> dict:
        row = self.conn.execute("SELECT * FROM invocations WHERE id = ?", (invocation_id,)).fetchone()
        return {**dict(row), "argv": json.loads(row["argv"])} if row else {}

    # -- batch jobs ---------------------------------------------------------------

    def add_job(self, job: dict) -> int:
        """Record a submitted job (the JOB_COLUMNS keys; targets as a list)."""
        values = {**job, "targets": json.dumps(job["targets"])}
        with write_transaction(self.conn) as conn:
            columns = ", ".join(values)
            return conn.execute(
                f"INSERT INTO jobs ({columns}) VALUES ({', '.join(':' + c for c in values)})", values
            ).lastrowid

    def jobs(self, job_ids: Sequence[str] = (), *, uncollected: bool = False) -> list[dict]:
        """Jobs by Slurm job id (the newest record of each id, in the order asked), or all
        jobs (oldest first), or only those not collected yet."""
        if job_ids:
            found = []
            for job_id in job_ids:
                row = self.conn.execute(
                    "SELECT * FROM jobs WHERE job_id = ? ORDER BY id DESC LIMIT 1", (str(job_id),)
                ).fetchone()
                if row is None:
                    raise CommscopeError(f"no job {job_id} in {self.path} (see `commscope status`)")
                found.append(row)
        else:
            where = " WHERE collected_at IS NULL" if uncollected else ""
            found = self.conn.execute(f"SELECT * FROM jobs{where} ORDER BY id").fetchall()
        return [
            {**dict(row), "targets": json.loads(row["targets"]), "run_ids": _from_json(row["run_ids"])} for row in found
        ]

    def update_job(self, row_id: int, **fields) -> None:
        """Remember what Slurm last said of a job (state, state_reason, node_list...)."""
        assignments = ", ".join(f"{name} = :{name}" for name in fields)
        with write_transaction(self.conn) as conn:
            conn.execute(
                f"UPDATE jobs SET {assignments}, updated_at = :updated_at WHERE id = :id",
                {**fields, "updated_at": now(), "id": row_id},
            )

    def collect_job(self, row_id: int, runs: Sequence[Run], invocation_id: int) -> list[int] | None:
        """Store a finished job's runs and mark it collected, in one transaction: a job is
        stored once however often (or however many processes at once) collect it. Returns
        the new run ids, or None when the job was collected before."""
        with write_transaction(self.conn) as conn:
            done = conn.execute("SELECT collected_at FROM jobs WHERE id = ?", (row_id,)).fetchone()
            if done is None or done["collected_at"] is not None:
                return None
            ids = [self._insert_run(conn, rows_of(run), invocation_id) for run in runs]
            conn.execute("UPDATE jobs SET collected_at = ?, run_ids = ? WHERE id = ?", (now(), json.dumps(ids), row_id))
            return ids

    # -- baselines --------------------------------------------------------------

    @_store_errors("write to")
    def set_baseline(self, name: str, run_ids: Sequence[int]) -> list[int] | None:
        """Make `name` stand for exactly these runs; returns the runs it stood for before, or
        None when it is new."""
        with write_transaction(self.conn) as conn:
            row = conn.execute("SELECT id FROM baselines WHERE name = ?", (name,)).fetchone()
            previous = None
            if row is not None:
                previous = self._baseline_runs(conn, row["id"])
                conn.execute("DELETE FROM baselines WHERE id = ?", (row["id"],))
            baseline_id = conn.execute(
                "INSERT INTO baselines (name, created_at) VALUES (?, ?)", (name, now())
            ).lastrowid
            conn.executemany(
                "INSERT OR IGNORE INTO baseline_runs (baseline_id, run_id) VALUES (?, ?)",
                [(baseline_id, run_id) for run_id in run_ids],
            )
        return previous

    def baseline_run_ids(self, name: str) -> list[int] | None:
        """The runs a baseline stands for, or None when there is no baseline of that name."""
        row = self.conn.execute("SELECT id FROM baselines WHERE name = ?", (name,)).fetchone()
        return None if row is None else self._baseline_runs(self.conn, row["id"])

    def baselines(self) -> list[tuple[str, str, list[int]]]:
        """(name, created_at, run ids) of every baseline, by name."""
        rows = self.conn.execute("SELECT id, name, created_at FROM baselines ORDER BY name").fetchall()
        return [(row["name"], row["created_at"], self._baseline_runs(self.conn, row["id"])) for row in rows]

    @_store_errors("write to")
    def delete_baseline(self, name: str) -> bool:
        with write_transaction(self.conn) as conn:
            return conn.execute("DELETE FROM baselines WHERE name = ?", (name,)).rowcount > 0

    @staticmethod
    def _baseline_runs(conn: sqlite3.Connection, baseline_id: int) -> list[int]:
        return [
            row[0]
            for row in conn.execute(
                "SELECT run_id FROM baseline_runs WHERE baseline_id = ? ORDER BY run_id", (baseline_id,)
            )
        ]
