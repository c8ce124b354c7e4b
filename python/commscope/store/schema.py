"""The result database's tables and how an older file is brought up to date.

Tables (current version):

* ``schema_version`` - one row: the migration step the file is at.
* ``invocations`` - one per `commscope run` / `commscope import`: argv, time,
  working folder, host, commscope version and git commit.
* ``systems`` - named systems (clusters) results belong to.
* ``runs`` - one size sweep of one benchmark: flags, ranks, nodes, placement,
  label, status and reason, and provenance (core version and commit, MPI
  library and version, hosts, CPU, compiler, job id, environment, options,
  source file for imports), and its kind and sweep mode (records.run_kinds).
* ``points`` - one row per point: size, window and the other sweep axes
  (datatype, window creation, synchronisation; NULL where not swept),
  iterations, warm-up, batch, the time statistics in microseconds, the core's
  metrics as columns, any other metric as JSON, validation errors; for the pairs
  benchmark the pair as JSON and its ranks and metric as columns.
* ``raw_outputs`` - what a run produced (JSONL stream, stdout, stderr), zlib-compressed,
  so results can be re-parsed later (imports before version 6 keep their file here too).
* ``sources`` - each imported file once, zlib-compressed, keyed by its SHA-256; runs
  point at theirs (``runs.source_id``), however many runs one file holds.
* ``baselines`` and ``baseline_runs`` - named sets of runs that `commscope check`
  compares new runs against; deleting a run takes it out of its baselines.
* ``jobs`` - batch jobs `commscope submit` handed to Slurm: job id, cluster, the
  script, the folder the job writes its results to, the state last seen, and when
  `commscope collect` stored its runs (once: a collected job is never stored again).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from commscope.errors import StoreError
from commscope.records.run_kinds import kind_name, sweep_mode_of
from commscope.store.connection import write_transaction

# Each migration is a list of statements run in one transaction: executescript()
# would commit on its own and break the all-or-nothing upgrade. Migrations are
# literal SQL, never built from constants that may change later.

# The columns of runs after its id as version 1 made them, and as version 8 rebuilds the
# table with them: version 1's text, which never changes.
_RUNS_V1_COLUMNS = """
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
    source_file TEXT"""

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
    f"CREATE TABLE runs (id INTEGER PRIMARY KEY, {_RUNS_V1_COLUMNS})",
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
# Run ids are never given again (AUTOINCREMENT): SQLite reuses the highest rowid after a
# delete, and a sweep whose run was deleted meanwhile then updated the next run stored.
# The table is rebuilt because a key cannot be altered (migrate turns foreign keys off for
# it); ids deleted before this step are not known and may be given once more.
_V8 = [
    f"""CREATE TABLE runs_v8 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        {_RUNS_V1_COLUMNS},
        system_id INTEGER REFERENCES systems(id),
        source_id INTEGER REFERENCES sources(id))""",
    "INSERT INTO runs_v8 SELECT * FROM runs",  # the same columns in the same order
    "DROP TABLE runs",
    "ALTER TABLE runs_v8 RENAME TO runs",
    "CREATE INDEX runs_by_benchmark ON runs(benchmark, started_at)",
    "CREATE INDEX runs_by_invocation ON runs(invocation_id)",
    "CREATE INDEX runs_by_source ON runs(source_id)",
]
# The congestion benchmark's axes: the canary test and the congestor beside it (NULL for
# every other benchmark), part of a point's identity like the other axes.
_V9 = [
    "ALTER TABLE points ADD COLUMN canary TEXT",
    "ALTER TABLE points ADD COLUMN congestor TEXT",
]
# A pair's ranks and metric as columns beside its JSON (which keeps the hosts, cores, round
# and slot): `history --hosts` reads the pairs of dozens of sweeps of thousands of hosts, and
# SQLite's JSON functions took most of its time. Pairs stored before are filled in here.
_V10 = [
    "ALTER TABLE points ADD COLUMN pair_src INTEGER",
    "ALTER TABLE points ADD COLUMN pair_dst INTEGER",
    "ALTER TABLE points ADD COLUMN pair_metric TEXT",
    "UPDATE points SET pair_src = json_extract(pair, '$.src'), pair_dst = json_extract(pair, '$.dst'), "
    "pair_metric = json_extract(pair, '$.metric') WHERE pair IS NOT NULL",
]


def _kinds_of_stored_runs(conn: sqlite3.Connection) -> None:
    """Each run's kind and sweep mode, from its benchmark and sweep entry, as a run stored
    from now on gets them (store.rows)."""
    rows = conn.execute("SELECT id, benchmark, provenance FROM runs").fetchall()
    updates = []
    for run_id, benchmark, provenance in rows:
        try:
            mode = sweep_mode_of(json.loads(provenance) if provenance else None)
        except (ValueError, AttributeError):  # a damaged provenance: no sweep entry to read
            mode = None
        updates.append((kind_name(benchmark, mode), mode, run_id))
    conn.executemany("UPDATE runs SET kind = ?, sweep_mode = ? WHERE id = ?", updates)


# A run's kind and its sweep's mode as columns (records.run_kinds): read with the run, never
# derived again from its provenance; the runs stored before get theirs here.
_V11: list[str | Callable[[sqlite3.Connection], None]] = [
    "ALTER TABLE runs ADD COLUMN kind TEXT",
    "ALTER TABLE runs ADD COLUMN sweep_mode TEXT",
    _kinds_of_stored_runs,
]
#: Migration steps, each SQL statements or a function of the connection; a database at
#: version N has had the first N applied.
MIGRATIONS: list[list] = [_V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8, _V9, _V10, _V11]
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    """The migration step the database is at; 0 for a new, empty file. A file with tables
    but not ours is refused: it is someone else's, and must not get our tables."""
    tables = {
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) != 'sqlite_'"
        )
    }
    if "schema_version" not in tables:
        if tables:
            named = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise StoreError(
                f"{_file(conn)} is not a commscope result database (its tables are {named}); "
                "pass the right file with --db or COMMSCOPE_DB"
            )
        return 0
    versions = [row[0] for row in conn.execute("SELECT version FROM schema_version")]
    if len(versions) != 1 or type(versions[0]) is not int:
        raise StoreError(
            f"result database {_file(conn)} is damaged: its schema version is "
            f"{', '.join(map(repr, versions)) or 'missing'}, not one whole number; restore it from a backup"
        )
    return versions[0]


def _file(conn: sqlite3.Connection) -> str:
    """The file of a connection's main database, for messages."""
    return next(row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main")


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the database to `target`; returns the version it was at. Safe when several
    processes open a new file at once: the version is read under the write lock."""
    # Dropping a table that is rebuilt would delete, with foreign keys on, every row that
    # points at it; the pragma cannot change inside a transaction, so it is set around it.
    enforced = conn.execute("PRAGMA foreign_keys").fetchone()[0]
    conn.execute("PRAGMA foreign_keys = OFF")
    try:
        with write_transaction(conn):
            current = schema_version(conn)
            if current > SCHEMA_VERSION:
                raise _newer(current)
            for steps in MIGRATIONS[current:target]:
                for statement in steps:
                    statement(conn) if callable(statement) else conn.execute(statement)
            if current < target:
                conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                conn.execute("DELETE FROM schema_version")
                conn.execute("INSERT INTO schema_version (version) VALUES (?)", (target,))
    finally:
        conn.execute(f"PRAGMA foreign_keys = {'ON' if enforced else 'OFF'}")
    return current


def check_read_only_version(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a database that cannot be written (so not migrated) at another version."""
    version = schema_version(conn)
    if version < SCHEMA_VERSION:
        raise StoreError(
            f"result database {path} is read-only and at schema version {version}; this "
            f"commscope reads version {SCHEMA_VERSION}: open it once where it can be written"
        )
    if version > SCHEMA_VERSION:
        raise _newer(version)


def _newer(version: int) -> StoreError:
    return StoreError(
        f"the result database is at schema version {version}, newer than this "
        f"commscope understands ({SCHEMA_VERSION}); upgrade commscope"
    )
