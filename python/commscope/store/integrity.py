"""Whether a result database can be used, and what to tell the user when it cannot.

Two promises rest on this module:

* a file that is not an SQLite database, or whose pages are damaged, is refused with one
  message before anything is written into it (header check on every open, PRAGMA
  quick_check before writing);
* every SQLite error becomes a StoreError (exit status 4) that says what happened in
  words: locked past the busy timeout, disk full, read-only, damaged.

A database without write access is still read: connection.connect_read_only opens it.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

from commscope.errors import StoreError
from commscope.store.connection import BUSY_TIMEOUT_VARIABLE, busy_timeout_s

#: The first 16 bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"


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


#: Below this much free space an I/O error is taken for a full disk: opening a WAL database
#: grows its index (-shm) by 32 KiB, and SQLite then reports only "disk I/O error".
_NEARLY_FULL_BYTES = 1 << 20


def _nearly_full(path: Path) -> bool:
    try:
        return shutil.disk_usage(path.parent if str(path.parent) else ".").free < _NEARLY_FULL_BYTES
    except OSError:
        return False


def describe(exc: BaseException, path: Path, doing: str = "use") -> StoreError:
    """A StoreError saying in words why the database could not be used."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in text:
        return StoreError(
            f"result database {path} is locked: another program kept writing to it for longer "
            f"than the busy timeout ({busy_timeout_s():g} s; {BUSY_TIMEOUT_VARIABLE} sets it)"
        )
    if (
        name.startswith("SQLITE_FULL")
        or "disk is full" in text
        or getattr(exc, "errno", None) == errno.ENOSPC
        or (name.startswith("SQLITE_IOERR") and _nearly_full(path))
    ):
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
