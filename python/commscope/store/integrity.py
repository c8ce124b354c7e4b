"""Whether a result database can be used, and what to tell the user when it cannot.

Four promises rest on this module:

* a file that is not an SQLite database, or whose pages are damaged, is refused with one
  message before anything is written into it (header check on every open, PRAGMA
  quick_check before writing);
* a database without write access (file, folder or mount read-only) can still be read:
  it is opened read-only, or immutable when SQLite cannot even keep its -shm file;
* every SQLite error becomes a StoreError (exit status 4) that says what happened in
  words: locked past the busy timeout, disk full, read-only, damaged;
* how long a writer waits for another one (the busy timeout) can be set, so tests and
  impatient scripts need not wait a minute.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import urllib.parse
from pathlib import Path

from commscope.errors import StoreError
from commscope.settings import seconds

#: The first 16 bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"
#: How long a write waits for another process's write to finish; COMMSCOPE_BUSY_TIMEOUT
#: (seconds) overrides it.
DEFAULT_BUSY_TIMEOUT_S = 60.0
BUSY_TIMEOUT_VARIABLE = "COMMSCOPE_BUSY_TIMEOUT"


def busy_timeout_s() -> float:
    return seconds(BUSY_TIMEOUT_VARIABLE, DEFAULT_BUSY_TIMEOUT_S, StoreError)


def check_header(path: Path) -> None:
    """Refuse a file that is not an SQLite database (an empty file is a new database)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StoreError(f"cannot read result database {path}: {exc.strerror or exc}") from None
    if head and head != SQLITE_HEADER:
        raise StoreError(
            f"{path} is not a commscope result database (not an SQLite file); "
            "pass the right file with --db or COMMSCOPE_DB"
        )


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
        except sqlite3.OperationalError as exc:
            conn.close()
            if mode.endswith("immutable=1"):
                raise describe(exc, path) from None
    raise AssertionError("unreachable")


def quick_check(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse to write into a database whose pages are damaged. PRAGMA quick_check reads
    every page once, so its cost grows with the file (not measured on large stores yet),
    but it skips integrity_check's slower index-content checks."""
    try:
        rows = conn.execute("PRAGMA quick_check(5)").fetchall()
    except sqlite3.DatabaseError as exc:
        raise describe(exc, path) from None
    problems = [row[0] for row in rows if row[0] != "ok"]
    if problems:
        raise StoreError(
            f"result database {path} is damaged ({problems[0]}); nothing was written to it. "
            "Restore it from a backup, or recover what is readable with "
            f"`sqlite3 {path} .recover | sqlite3 NEW.db`"
        )


def describe(exc: BaseException, path: Path, doing: str = "use") -> StoreError:
    """A StoreError saying in words why the database could not be used."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in text:
        return StoreError(
            f"result database {path} is locked: another program kept writing to it for longer "
            f"than the busy timeout ({busy_timeout_s():g} s; {BUSY_TIMEOUT_VARIABLE} sets it)"
        )
    if name.startswith("SQLITE_FULL") or "disk is full" in text or getattr(exc, "errno", None) == errno.ENOSPC:
        return StoreError(f"cannot {doing} result database {path}: the disk holding it is full")
    if name.startswith("SQLITE_READONLY") or "readonly" in text or getattr(exc, "errno", None) == errno.EROFS:
        return StoreError(
            f"cannot {doing} result database {path}: it is read-only (file, folder or mount); reading it still works"
        )
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in text or "not a database" in text:
        return StoreError(f"result database {path} is damaged or not a database ({exc}); restore it from a backup")
    if isinstance(exc, UnicodeError):
        return StoreError(f"cannot {doing} result database {path}: text that is not valid UTF-8 ({exc})")
    if name.startswith("SQLITE_IOERR") or name.startswith("SQLITE_CANTOPEN") or isinstance(exc, OSError):
        return StoreError(f"cannot {doing} result database {path}: {getattr(exc, 'strerror', None) or exc}")
    return StoreError(f"cannot {doing} result database {path}: {exc}")
