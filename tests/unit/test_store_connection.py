"""The journal mode of a result database by the file system it is on: WAL on a local one, the
rollback journal on a network one (NFS, Lustre, GPFS, ...), where WAL's shared-memory index
is not shared between hosts. This machine cannot mount a network file system (its kernel
has no NFS and the sandbox no FUSE daemon to spare), so the kernel's mount table is the
input fed here: a file in /proc/self/mountinfo's format that puts the test's folder on one."""

from __future__ import annotations

import sqlite3

import pytest

from commscope.errors import StoreError
from commscope.store import connection
from commscope.store.connection import file_system_type, network_file_system
from commscope.store.db import Store

LOCAL = "22 1 0:21 / / rw,relatime - ext4 /dev/vda rw\n25 22 0:23 / /dev/shm rw - tmpfs tmpfs rw\n"


def _mounted(monkeypatch, tmp_path, kind: str, where=None) -> None:
    """The mount table says `where` (default tmp_path) is a file system of type `kind`."""
    table = tmp_path / "mountinfo"
    escaped = str(where or tmp_path).replace(" ", "\\040")
    table.write_text(LOCAL + f"40 22 0:50 / {escaped} rw,relatime shared:1 - {kind} server:/export rw\n")
    monkeypatch.setattr(connection, "MOUNTINFO", table)


@pytest.mark.parametrize(
    "kind",
    ["nfs", "nfs4", "cifs", "smb3", "lustre", "gpfs", "beegfs", "ceph", "9p", "fuse.sshfs", "fuse.ceph-fuse"],
)
def test_network_file_systems_are_told(monkeypatch, tmp_path, kind):
    _mounted(monkeypatch, tmp_path, kind)
    assert network_file_system(tmp_path / "deep" / "results.db") == kind  # its folder's mount decides
    assert network_file_system(tmp_path.parent / "results.db") is None


@pytest.mark.parametrize("kind", ["ext4", "xfs", "btrfs", "tmpfs", "overlay", "fuseblk", "fuse.ntfs-3g", "zfs"])
def test_local_file_systems_are_local(monkeypatch, tmp_path, kind):
    _mounted(monkeypatch, tmp_path, kind)
    assert file_system_type(tmp_path) == kind and network_file_system(tmp_path / "results.db") is None


def test_the_innermost_and_latest_mount_decides(monkeypatch, tmp_path):
    folder = tmp_path / "with space"
    folder.mkdir()
    _mounted(monkeypatch, tmp_path, "nfs4", where=folder)
    assert file_system_type(folder) == "nfs4" and file_system_type(tmp_path) == "ext4"
    table, escaped = connection.MOUNTINFO, str(folder).replace(" ", "\\040")
    table.write_text(table.read_text() + f"41 40 0:51 / {escaped} rw - tmpfs none rw\n")
    assert file_system_type(folder) == "tmpfs"  # mounted over the NFS one


def test_no_mount_table_is_a_local_file_system(monkeypatch, tmp_path):
    monkeypatch.setattr(connection, "MOUNTINFO", tmp_path / "absent")
    assert file_system_type(tmp_path) is None and network_file_system(tmp_path / "r.db") is None


def test_a_database_on_a_network_file_system_keeps_a_rollback_journal(monkeypatch, tmp_path):
    db = tmp_path / "results.db"
    with Store(db) as store:  # made on a local disk: WAL
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    _mounted(monkeypatch, tmp_path, "nfs4")  # the same folder, now shared over NFS
    for _ in range(2):
        with Store(db) as store:
            assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
            assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
            store.set_baseline("b", [])
    assert not (tmp_path / "results.db-wal").exists() and not (tmp_path / "results.db-shm").exists()
    with sqlite3.connect(db) as plain:
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_a_wal_database_held_open_elsewhere_is_refused_on_a_network_file_system(monkeypatch, tmp_path, clean_env):
    clean_env.setenv("COMMSCOPE_BUSY_TIMEOUT", "0.5")
    db = tmp_path / "results.db"
    Store(db).close()
    other = sqlite3.connect(db, isolation_level=None)  # another process reading it, in WAL mode
    other.execute("BEGIN")
    other.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    _mounted(monkeypatch, tmp_path, "lustre")
    with pytest.raises(StoreError) as refused:
        Store(db)
    other.close()
    assert f"{db} is on a network file system (lustre), where SQLite's WAL mode does not work" in str(refused.value)
    with Store(db) as store:  # once the other has closed it, it is switched
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
