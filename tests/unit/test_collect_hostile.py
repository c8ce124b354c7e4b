"""`commscope collect` on job folders that are not as commscope left them: a launch's
stdout that is a symbolic link to a file of another user's or to /dev/zero, an exit-status
that is a named pipe, a meta.json that is not UTF-8, a job.json that is not JSON or is
missing, and two collects at once. Each damaged job is said and skipped, the others stored
once, exit 1; nothing outside the job folder is read. The jobs are a scheduled check's,
made by a real night of the entry (cron's stand-in, the fake core) and copied."""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_schedule import _only_scheduler
from test_schedule_night import _accepted, _night

from commscope.store.db import Store
from paths import FAKES

SECRET = "TOPSECRET-not-for-the-database"


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Where this module's night is made, once: home/ (its database, crontab and schedule
    folder, all named by absolute path in the entry) and made/, a copy of home/ as the night
    left it, put back before each test."""
    return tmp_path_factory.mktemp("night")


@pytest.fixture
def db(made):
    return made / "home" / "results.db"


@pytest.fixture
def night(cli, fake_core, clean_env, made, db):
    """One night's job folder of entry `latency` (its check passed), not collected yet: made
    by the module's first test, put back as it was made for each test after it."""
    home, kept = made / "home", made / "made"
    if not kept.exists():
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir()
        table = _only_scheduler(clean_env, home, "crontab")
        clean_env.setenv("XDG_DATA_HOME", str(home / "xdg-data"))
        _accepted(cli, db)
        assert cli("schedule", "latency", "--every", "1d", "--baseline", "ref", "--db", db).exit_code == 0
        code, log, _ = _night(table, db, home)
        assert code == 0, log
        shutil.copytree(home, kept, symlinks=True)
    else:
        shutil.rmtree(home)
        shutil.copytree(kept, home, symlinks=True)
    # the environment the night was made in, as the table fixture and clean_env set it
    clean_env.setenv("FAKE_CRONTAB", str(home / "table"))
    clean_env.setenv("PATH", f"{home / 'schedulers'}{os.pathsep}{FAKES}{os.pathsep}/usr/bin:/bin")
    clean_env.setenv("XDG_DATA_HOME", str(home / "xdg-data"))
    [job] = (home / "xdg-data" / "commscope" / "schedule" / "latency" / "jobs").iterdir()
    return job


def _copy(job, name: str):
    """Another job folder of the same entry, before `job` in time (name sorts first)."""
    copy = job.parent / name
    shutil.copytree(job, copy, symlinks=True)
    return copy


def _collect(db) -> subprocess.CompletedProcess:
    """`commscope collect` in a child with 2 GiB of address space at most (so that reading
    /dev/zero whole ends at once) and a time limit (so that a pipe read for ever fails)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))

    return subprocess.run(
        [sys.executable, "-m", "commscope", "collect", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )


def _stored_launches(db) -> list[tuple[str, bytes]]:
    """(label, raw outputs joined) of every stored run."""
    with Store(db, readonly=True) as store:
        ids = [summary.id for summary in store.summaries()]
        return [(store.run(i).label, b"".join(store.raw_outputs(i).values())) for i in ids]


def _launch(job):
    [launch] = [path for path in (job / "runs").iterdir() if path.is_dir()]
    return launch


def _damage(job, tmp_path, how: str):
    launch = _launch(job)
    if how == "stdout-to-secret":
        secret = tmp_path / "secret"
        secret.write_text(SECRET)
        (launch / "stdout").unlink()
        (launch / "stdout").symlink_to(secret)
        return "is a symbolic link or not a folder; not read"
    if how == "launch-to-elsewhere":
        elsewhere = tmp_path / "elsewhere"
        shutil.copytree(launch, elsewhere)
        (elsewhere / "stdout").write_text(SECRET)
        shutil.rmtree(launch)
        launch.symlink_to(elsewhere)
        return "is a symbolic link or not a file; not read"
    if how == "stdout-to-dev-zero":
        (launch / "stdout").unlink()
        (launch / "stdout").symlink_to("/dev/zero")
        return "is a symbolic link or not a folder; not read"
    if how == "exit-status-fifo":
        (job / "exit-status").unlink()
        os.mkfifo(job / "exit-status")
        return "exit-status is not a regular file (a pipe, socket or device); not read"
    if how == "meta-not-utf8":
        (launch / "meta.json").write_bytes(b'{"run": {"benchmark": "lat\xe9ncy"}}')
        return "meta.json is not JSON"
    if how == "job-json-not-json":
        (job / "job.json").write_text("{not json")
        return "job.json: Expecting property name"
    if how == "job-json-missing":
        (job / "job.json").unlink()
        return "its job.json is missing; skipped"
    raise AssertionError(how)


def _held_or_done(children: list[subprocess.Popen], within: float) -> None:
    """Waits until each child has ended or waits to open a named pipe (Linux names that
    wait wait_for_partner in /proc/PID/wchan), or `within` seconds have passed, whichever
    is first."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if all(child.poll() is not None or _waits_on(child.pid) == "wait_for_partner" for child in children):
            return
        time.sleep(0.05)


def _waits_on(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return ""


DAMAGES = [
    "stdout-to-secret",
    "launch-to-elsewhere",
    "stdout-to-dev-zero",
    "exit-status-fifo",
    "meta-not-utf8",
    "job-json-not-json",
    "job-json-missing",
]


@pytest.mark.slow
@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_job_is_said_and_skipped_and_the_others_are_stored(night, db, tmp_path, how):
    damaged = _copy(night, "20000101-000000-000000-aaaaaa")
    said = _damage(damaged, tmp_path, how)
    before = len(_stored_launches(db))
    done = _collect(db)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and said in done.stderr, done.stderr
    assert str(damaged) in done.stderr
    assert f"job cron of scheduled check latency ({night.name}): stored 1 run(s)" in done.stderr, done.stderr
    stored = _stored_launches(db)
    assert len(stored) == before + 1  # the healthy night's
    [night_raw] = [raw for label, raw in stored if label == "latency"]
    assert b'"header"' in night_raw  # its core stream, read from its own folder
    assert all(SECRET.encode() not in raw for _, raw in stored)
    again = _collect(db)  # the damage is said again until mended; nothing is stored twice
    assert again.returncode == 1 and said in again.stderr and len(_stored_launches(db)) == before + 1


@pytest.mark.slow
def test_collects_at_once_store_each_job_once(night, db):
    """Four collects started together over 20 job folders: each folder is recorded and its
    run stored once. They used to read the jobs known, then each record the rest: an
    entry.json that is a named pipe (which a collect of today skips without waiting) held
    every one of them between the two, until the test closed it."""
    for number in range(19):
        _copy(night, f"20000101-000000-{number:06d}-aaaaaa")
    barrier = night.parents[2] / "zzz-held" / "entry.json"
    barrier.parent.mkdir()
    os.mkfifo(barrier)
    before = len(_stored_launches(db))
    children = [
        subprocess.Popen(
            [sys.executable, "-m", "commscope", "collect", "--db", str(db)], stderr=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    _held_or_done(children, within=10)
    with contextlib.suppress(OSError):  # no reader left: nothing to let go
        os.close(os.open(barrier, os.O_WRONLY | os.O_NONBLOCK))
    for child in children:
        _, said = child.communicate(timeout=300)
        assert child.returncode == 0, said
    assert len(_stored_launches(db)) == before + 20
    with Store(db, readonly=True) as store:
        folders = [job["folder"] for job in store.jobs([], uncollected=False)]
    assert len(folders) == len(set(folders)) == 20
