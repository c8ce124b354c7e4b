"""Opening a result database: WAL, foreign keys, how long a writer waits for another one
(the busy timeout, written here once), write transactions, and read-only opening.

Several `commscope run` processes may write to one file at once: every write is one
short ``BEGIN IMMEDIATE`` transaction and waits for the lock (busy_timeout) instead of
failing. WAL needs a local file system (not NFS).
"""

from __future__ import annotations

import os
import sqlite3
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from commscope.errors import UsageError
from commscope.settings import seconds

#: How long a write waits for another process's write to finish; COMMSCOPE_BUSY_TIMEOUT
#: (seconds) overrides it, so tests and impatient scripts need not wait a minute.
DEFAULT_BUSY_TIMEOUT_S = 60.0
BUSY_TIMEOUT_VARIABLE = "COMMSCOPE_BUSY_TIMEOUT"


def busy_timeout_s() -> float:
    # A bad value is the user's setting, not the database's fault: a usage error.
    return seconds(BUSY_TIMEOUT_VARIABLE, DEFAULT_BUSY_TIMEOUT_S, UsageError)


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), foreign keys on. It has
    not changed the file yet: enable_wal() does, once the caller knows the file is ours."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s() * 1000)}")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def enable_wal(conn: sqlite3.Connection) -> None:
    # Switching a new file to WAL may fail with SQLITE_BUSY without calling the busy
    # handler while another process creates the same file, so wait here instead.
    deadline = time.monotonic() + busy_timeout_s()
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            break
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    conn.execute("PRAGMA synchronous = NORMAL")  # durable at checkpoints; safe with WAL


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


def writable(path: Path) -> bool:
    """Whether SQLite can write the file and create its -wal/-shm files beside it. access()
    also answers for read-only mounts, where even root cannot write."""
    folder = path.parent if str(path.parent) else Path(".")
    return os.access(path, os.W_OK) and os.access(folder, os.W_OK | os.X_OK)


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that never writes. SQLite's read-only mode still needs the WAL index
    (-shm) of a WAL database: when it cannot open or make one (a read-only folder), the
    file is opened as immutable, which is right as long as no one writes it meanwhile,
    and no one can where we cannot."""
    uri = "file:" + urllib.parse.quote(os.fspath(path.absolute()))
    for mode in ("?mode=ro", "?mode=ro&immutable=1"):
        conn = sqlite3.connect(uri + mode, uri=True, isolation_level=None)
        conn.row_factory = sqlite3.Row
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            conn.close()
            if mode.endswith("immutable=1"):
                raise
    raise AssertionError("unreachable")
