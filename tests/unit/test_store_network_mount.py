"""A result database on a real network file system mount keeps SQLite's rollback journal.

This machine's kernel has no NFS, but it has FUSE: sshfs mounts a folder through SFTP
(the protocol every cluster's login node speaks), with the local sftp-server standing in
for ssh, so that no daemon and no keys are needed. The mount is of type fuse.sshfs in
/proc/self/mountinfo, as a site's sshfs mount is. Skips where sshfs, sftp-server
(Debian: sshfs, openssh-sftp-server) or /dev/fuse are missing."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from commscope.store.connection import network_file_system

SFTP_SERVER = Path("/usr/lib/openssh/sftp-server")


@pytest.fixture
def mounted(tmp_path):
    """A folder of tmp_path mounted with sshfs at tmp_path/mnt; what it saw of a folder kept
    for 1 s (dcache_timeout; 20 s unless told), so a file gone on the other host is gone
    here soon after."""
    needed = {
        "sshfs": shutil.which("sshfs"),
        "sftp-server": SFTP_SERVER.exists(),
        "/dev/fuse": Path("/dev/fuse").exists(),
        "fusermount": shutil.which("fusermount"),
    }
    missing = [what for what, found in needed.items() if not found]
    if missing:
        pytest.skip(f"no {', '.join(missing)}: cannot mount a network file system here")
    export, mount, ssh = tmp_path / "export", tmp_path / "mnt", tmp_path / "ssh"
    export.mkdir()
    mount.mkdir()
    ssh.write_text(f"#!/bin/sh\nexec {SFTP_SERVER}\n")  # speaks SFTP with this machine, whatever host is named
    ssh.chmod(0o755)
    done = subprocess.run(
        ["sshfs", "-o", f"ssh_command={ssh}", "-o", "dcache_timeout=1", f"localhost:{export}", str(mount)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if done.returncode != 0:
        pytest.skip(f"sshfs cannot mount here: {done.stderr.strip()}")
    yield mount
    subprocess.run(["fusermount", "-u", str(mount)], check=True, timeout=30)


@pytest.mark.slow
def test_a_database_on_an_sshfs_mount_keeps_a_rollback_journal(cli, fake_core, mounted, clean_env):
    db = mounted / "results.db"
    assert network_file_system(db) == "fuse.sshfs"
    for label in ("first", "second"):
        result = cli("run", "latency", "--label", label, "--db", db)
        assert result.exit_code == 0, result.output
    plain = sqlite3.connect(db)
    assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert [row[0] for row in plain.execute("SELECT label FROM runs ORDER BY id")] == ["first", "second"]
    plain.close()
    assert sorted(path.name for path in mounted.iterdir()) == ["results.db"]  # no -wal, no -shm


@pytest.mark.slow
def test_a_wal_database_another_host_holds_open_is_refused_not_switched(cli, fake_core, mounted, clean_env):
    """The file server's host (the export folder, its local disk) holds the database open in
    WAL mode; this host sees it through sshfs, whose locks the other host never sees, so
    the switch to the rollback journal looked free and went ahead. It must be refused, and
    the other program's writes go on."""
    export = mounted.parent / "export"
    assert cli("run", "latency", "--label", "there", "--db", export / "results.db").exit_code == 0
    other = sqlite3.connect(export / "results.db", isolation_level=None)
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other.execute("UPDATE runs SET label = 'held' WHERE id = 1")  # open, its -wal and -shm beside it
    assert (export / "results.db-wal").exists()
    for argv in (("run", "latency", "--label", "here"), ("show", "1")):
        result = cli(*argv, "--db", mounted / "results.db")
        assert result.exit_code == 4, result.output
        assert "is on a network file system (fuse.sshfs)" in result.stderr, result.stderr
        assert "held open in WAL mode" in result.stderr
    other.execute("UPDATE runs SET label = 'still held' WHERE id = 1")
    assert other.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert [row[0] for row in other.execute("SELECT label FROM runs")] == ["still held"]
    other.close()
    assert sorted(path.name for path in export.iterdir()) == ["results.db"]  # closed: the next open may switch it
    for _ in range(600):  # sshfs keeps what it saw of a folder for a while (dcache_timeout, here 1 s)
        if not (mounted / "results.db-wal").exists() and not (mounted / "results.db-shm").exists():
            break
        time.sleep(0.1)
    result = cli("run", "latency", "--label", "here", "--db", mounted / "results.db")
    assert result.exit_code == 0, result.output
