"""A store locked by another writer past the busy timeout loses nothing, for every kind
that measures besides the `run` of a suite (tests/unit/test_reliability_store.py) and the
sweeps: `run hpl` (the real hpcc), `run congestion` and `overhead` (the real core, under
each MPI library). The database is locked from the moment the command has opened it until
it ends; each run it measured is kept as files, the command exits 4 naming them, and
`commscope import` stores them later. (`run storage`, fio: tests/mpi/test_hpl_storage_run.py.)"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from commscope.errors import EXIT_STORE
from commscope.store.db import Store
from mpi_flavours import Flavour, flavour_params, need
from paths import REPO

needs_hpcc = pytest.mark.skipif(shutil.which("hpcc") is None, reason="hpcc (Debian package hpcc) not installed")


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def _environment(tmp_path: Path, base: dict[str, str]) -> dict[str, str]:
    """The child's environment: no settings of the caller's, a short busy timeout, the
    unsaved-results folder inside the test's own."""
    env = {key: value for key, value in base.items() if not key.startswith(("COMMSCOPE_", "SLURM_"))}
    env.update(PYTHONPATH=str(REPO / "python"), COMMSCOPE_BUSY_TIMEOUT="0.5", XDG_DATA_HOME=str(tmp_path / "xdg"))
    return env


def _invoked(db: Path) -> bool:
    """Whether the command has opened the store and written its invocation."""
    if not db.exists():
        return False
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return conn.execute("SELECT count(*) FROM invocations").fetchone()[0] > 0
    except sqlite3.Error:  # still being created
        return False


def run_with_the_store_locked(args: list[str], env: dict[str, str], db: Path, timeout: float = 300):
    """`commscope ARGS` on DB, with another writer holding the database's lock from the
    moment the command has opened it (before it measures) until it has ended."""
    process = subprocess.Popen(
        [sys.executable, "-m", "commscope", *args],
        env={**env, "COMMSCOPE_DB": str(db)},  # not an option: what follows "--" is the core's
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    other = None
    try:
        deadline = time.monotonic() + 60
        while not _invoked(db) and process.poll() is None:
            assert time.monotonic() < deadline, "the command never opened its store"
            time.sleep(0.01)
        other = sqlite3.connect(db, isolation_level=None, timeout=30)
        other.execute("BEGIN IMMEDIATE")  # another writer that keeps the lock
        stdout, stderr = process.communicate(timeout=timeout)
    finally:
        process.kill()
        if other is not None:
            other.execute("ROLLBACK")
            other.close()
    return process.returncode, stdout, stderr


def imported_again(tmp_path: Path, env: dict[str, str], stderr: str) -> list:
    """The runs kept as files, each named on stderr, imported into a new database."""
    kept = sorted((tmp_path / "xdg" / "commscope" / "unsaved").glob("*.jsonl"))
    assert kept, stderr
    for path in kept:
        assert f"commscope import {path}" in stderr
    later = tmp_path / "later.db"
    done = subprocess.run(
        [sys.executable, "-m", "commscope", "import", *map(str, kept), "--db", str(later)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    with Store(later, create=False) as store:
        return [store.run(row.id) for row in reversed(store.summaries())]


def _assert_nothing_stored(db: Path) -> None:
    with Store(db, create=False) as store:
        assert store.summaries() == []


@needs_hpcc
def test_run_hpl_keeps_every_test_it_measured_when_the_store_is_locked(tmp_path):
    env = _environment(tmp_path, dict(os.environ))
    db = tmp_path / "results.db"
    code, stdout, stderr = run_with_the_store_locked(
        ["run", "hpl", "--np", "2", "--n", "480", "--nb", "80", "--label", "kept"], env, db
    )
    assert code == EXIT_STORE, stderr
    assert "is locked" in stderr and "Traceback" not in stderr
    _assert_nothing_stored(db)
    runs = {run.benchmark: run for run in imported_again(tmp_path, env, stderr)}
    assert {"hpl", "hpcc_stream", "hpcc_ptrans", "hpcc_randomaccess", "hpcc_fft", "hpcc_dgemm", "hpcc_beff"} <= set(
        runs
    )
    hpl = runs["hpl"]
    assert hpl.status == "complete" and hpl.label == "kept" and hpl.ranks == 2
    assert hpl.points[0].size == 480 and hpl.points[0].metrics["gflops"] > 0


def test_run_congestion_keeps_its_runs_when_the_store_is_locked(mpi: Flavour, tmp_path):
    env = _environment(tmp_path, mpi.env(4))
    env["COMMSCOPE_BENCH"] = str(mpi.bench)
    db = tmp_path / "results.db"
    args = ["run", "congestion", "--np", "4", "--launcher", mpi.launcher, "--label", "kept"]
    code, stdout, stderr = run_with_the_store_locked(
        [*args, "--", "-i", "10", "-x", "1", "--congestor", "alltoall"], env, db
    )
    assert code == EXIT_STORE, stderr
    assert "is locked" in stderr and "Traceback" not in stderr
    _assert_nothing_stored(db)
    (run,) = imported_again(tmp_path, env, stderr)
    assert run.benchmark == "congestion" and run.status == "complete" and run.label == "kept"
    assert len(run.points) == 4  # a record per canary test beside the one congestor
    assert all(point.metrics["impact_avg"] > 0 for point in run.points)


def test_overhead_keeps_both_sides_when_the_store_is_locked(mpi: Flavour, tmp_path):
    env = _environment(tmp_path, mpi.env(2))
    env["COMMSCOPE_BENCH"] = str(mpi.bench)
    db = tmp_path / "results.db"
    args = ["overhead", "barrier", "--np", "2", "--repeat", "2", "--launcher", mpi.launcher, "--wrap", "env"]
    code, stdout, stderr = run_with_the_store_locked([*args, "--", "-i", "100"], env, db)
    assert code == EXIT_STORE, stderr
    assert "is locked" in stderr and "Traceback" not in stderr
    assert "barrier under env" in stdout  # the slowdown is still worked out and printed
    _assert_nothing_stored(db)
    runs = imported_again(tmp_path, env, stderr)
    assert sorted(bool((run.provenance or {}).get("wrapper")) for run in runs) == [False, False, True, True]
    assert all(run.benchmark == "barrier" and run.status == "complete" and run.points for run in runs)
