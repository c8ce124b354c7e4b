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
from pathlib import Path

import pytest

from commscope.store.connection import network_file_system

SFTP_SERVER = Path("/usr/lib/openssh/sftp-server")


@pytest.fixture
def mounted(tmp_path):
    """A folder of tmp_path mounted with sshfs at tmp_path/mnt."""
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
        ["sshfs", "-o", f"ssh_command={ssh}", f"localhost:{export}", str(mount)],
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
