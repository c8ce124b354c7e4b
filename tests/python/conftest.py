"""Shared fixtures of the harness tests (test_harness_*.py).

The fakes in tests/python/fakes stand in for commscope-bench and Open MPI's
mpirun, so run/store logic (crashes, timeouts, Ctrl-C) is tested without MPI;
test_harness_e2e.py runs the real core under both MPI libraries.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
FAKES = Path(__file__).resolve().parent / "fakes"
FAKE_CORE = FAKES / "commscope-bench"
_FAKE_VARIABLES = ("FAKE_CORE_BENCHMARKS", "FAKE_CORE_SLEEP", "FAKE_CORE_CRASH_AFTER", "FAKE_CORE_STATUS",
                   "FAKE_CORE_TRACE")
# Variables from the caller's shell that would change what the harness picks.
_HARNESS_VARIABLES = ("COMMSCOPE_DB", "COMMSCOPE_LAUNCHER", "COMMSCOPE_SYSTEM", "SLURM_JOB_ID",
                      "SLURM_JOB_NUM_NODES", "SLURM_NNODES")


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """The environment without harness settings the developer's shell may carry, and
    with the default database location inside the test's folder."""
    for variable in _HARNESS_VARIABLES + _FAKE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    return monkeypatch


@pytest.fixture
def fake_core(clean_env) -> Path:
    """The fake commscope-bench as $COMMSCOPE_BENCH and the fake mpirun first on PATH."""
    clean_env.setenv("COMMSCOPE_BENCH", str(FAKE_CORE))
    clean_env.setenv("PATH", f"{FAKES}{os.pathsep}{os.environ['PATH']}")
    return FAKE_CORE


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "results.db"


@pytest.fixture
def cli():
    """`commscope ARGS...` in this process; returns click's Result (exit_code, stdout, stderr)."""
    from commscope.cli.main import main

    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(main, [str(arg) for arg in args], catch_exceptions=False)

    return invoke


@pytest.fixture
def commscope_argv() -> list[str]:
    """Command line of `commscope` in a child process (for signal tests)."""
    return [sys.executable, "-m", "commscope"]


@pytest.fixture
def child_env(fake_core) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH")]))
    return env
