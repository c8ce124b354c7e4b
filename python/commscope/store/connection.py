"""Opening a result database: its journal mode, foreign keys, how long a writer waits for
another one (the busy timeout, written here once), write transactions, and read-only
opening.

Several `commscope run` processes may write to one file at once: every write is one
short ``BEGIN IMMEDIATE`` transaction and waits for the lock (busy_timeout) instead of
failing. On a local file system the database is in WAL mode (readers never wait for a
writer). WAL needs every process that opens the database on one host: its index (-shm)
is memory each maps, which a network file system does not share between hosts. So a
database on one (NFS, Lustre, GPFS, ...: the home and project folders of most clusters)
keeps SQLite's rollback journal instead (DELETE mode), whose locks are the file system's
own; commscope writes it from one host at a time (`submit` and `schedule` keep what
compute nodes measure as files, stored later by `collect`).
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from commscope.errors import StoreError, UsageError
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
    not changed the file yet: set_journal_mode() does, once the caller knows the file is ours."""
    refuse_wal_held_elsewhere(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s() * 1000)}")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


#: Where the kernel lists this process's mounts (tests point it at a file of their own).
MOUNTINFO = Path("/proc/self/mountinfo")
#: File systems that hosts share over a network (mountinfo's type field).
NETWORK_FILE_SYSTEMS = frozenset(
    {
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "afs", "coda", "9p", "lustre", "gpfs",
        "beegfs", "ceph", "glusterfs", "ocfs2", "gfs2", "panfs", "pvfs2", "orangefs", "wekafs",
    }
)  # fmt: skip
#: FUSE file systems (type "fuse.NAME") that reach their files over a network.
NETWORK_FUSE = frozenset(
    {
        "sshfs", "glusterfs", "ceph-fuse", "ceph", "s3fs", "rclone", "gcsfuse", "juicefs", "davfs2",
        "lizardfs", "mfs", "moosefs", "beegfs", "smbnetfs", "curlftpfs", "fuse-nfs", "cvmfs", "gvfsd-fuse",
    }
)  # fmt: skip


def file_system_type(folder: Path) -> str | None:
    """The type of the file system `folder` is on (the mount with the longest path that
    holds it, the last one mounted there), from MOUNTINFO; None where that cannot be read
    (not Linux)."""
    try:
        table = MOUNTINFO.read_text(errors="replace")
    except OSError:
        return None
    where = os.path.realpath(folder)
    found, longest = None, -1
    for line in table.split("\n"):
        fields, separator, rest = line.partition(" - ")
        if not separator or len(fields.split()) < 5 or not rest.split():
            continue
        # mountinfo writes a space, tab, newline and backslash of a path as octal escapes
        mount = re.sub(r"\\([0-7]{3})", lambda match: chr(int(match[1], 8)), fields.split()[4])
        inside = where == mount or where.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= longest:
            found, longest = rest.split()[0], len(mount)
    return found


def network_file_system(path: Path) -> str | None:
    """The type of the network file system the database `path` is on; None on a local one."""
    kind = file_system_type(path.absolute().parent)
    if kind is None:
        return None
    if kind in NETWORK_FILE_SYSTEMS or (kind.startswith("fuse.") and kind.removeprefix("fuse.") in NETWORK_FUSE):
        return kind
    return None


#: Bytes 18 and 19 of an SQLite file: its write and read versions, 2 in WAL mode.
_WAL_VERSIONS = b"\x02\x02"


def refuse_wal_held_elsewhere(path: Path) -> None:
    """A database on a network file system that a process holds open in WAL mode (its -wal or
    -shm beside it) is refused before this process touches it: a process on another host
    takes its locks where this host never sees them, so the switch to the rollback journal
    would look free, go ahead, and leave that process a database it calls malformed."""
    shared = network_file_system(path) if path.exists() else None
    if shared is None:
        return
    try:
        with open(path, "rb") as handle:
            in_wal = handle.read(20)[18:20] == _WAL_VERSIONS
    except OSError:
        return  # the opening says what is wrong with it
    beside = [name for name in (f"{path.name}-wal", f"{path.name}-shm") if path.with_name(name).exists()]
    if in_wal and beside:
        raise StoreError(
            f"{path} is on a network file system ({shared}), where SQLite's WAL mode does not work across "
            f"hosts, and it is held open in WAL mode ({' and '.join(beside)} beside it): another process, maybe "
            "on another host, has it open, or one that had it ended without closing it. Close it there, or open "
            "it once on the host that wrote it (or copy the database to a local disk), and try again"
        )


def set_journal_mode(conn: sqlite3.Connection, path: Path) -> None:
    """WAL on a local file system; the rollback journal on a network one, where WAL does
    not work (see the module's text). An existing database is switched either way."""
    shared = network_file_system(path)
    try:
        mode = _journal_mode(conn, "DELETE" if shared else "WAL")
    except sqlite3.OperationalError as exc:
        if not shared or exc.sqlite_errorcode != sqlite3.SQLITE_BUSY:
            raise
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0].lower()
    if shared and mode != "delete":
        raise StoreError(
            f"{path} is on a network file system ({shared}), where SQLite's WAL mode does not work across "
            f"hosts, and it stays in {mode} mode: another process has it open. Close it there (or copy the "
            "database to a local disk) and try again"
        )
    # WAL is durable at checkpoints with NORMAL; a rollback journal needs FULL for that
    conn.execute(f"PRAGMA synchronous = {'FULL' if shared else 'NORMAL'}")


def _journal_mode(conn: sqlite3.Connection, wanted: str) -> str:
    # Switching a new file to WAL may fail with SQLITE_BUSY without calling the busy
    # handler while another process creates the same file, so wait here instead.
    deadline = time.monotonic() + busy_timeout_s()
    while True:
        try:
            return conn.execute(f"PRAGMA journal_mode = {wanted}").fetchone()[0].lower()
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
