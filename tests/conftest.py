"""The test layers and their shared fixtures.

A folder per layer, each with its marker, so a quick loop runs without MPI
(`make quick`: `pytest -m "not mpi and not cluster and not browser"`):

    unit/      the harness and the readers, no MPI (fakes stand in for the core and mpirun)
    mpi/       the real core under each MPI library (build/flavours.txt)      marker: mpi
    browser/   the HTML report in headless Chromium                           marker: browser
    cluster/   the virtual cluster with a real Slurm (root)                   marker: cluster
    support/   helpers every layer imports: paths, MPI flavours, fixtures, fakes

A test elsewhere that needs an MPI build takes its flavour from mpi_flavours.flavour_params,
whose parameters carry the mpi marker too.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from fixtures.analysis.report_runs import stored  # noqa: F401 (a fixture: the runs a report renders)
from paths import FAKE_CORE, FAKES, REPO

#: Marker of each layer folder (see the docstring).
LAYER_MARKERS = {"mpi": "mpi", "browser": "browser", "cluster": "cluster"}


def pytest_collection_modifyitems(items):
    for item in items:
        layer = Path(item.fspath).relative_to(Path(__file__).parent).parts[0]
        if layer in LAYER_MARKERS:
            item.add_marker(LAYER_MARKERS[layer])


_FAKE_VARIABLES = (
    "FAKE_CORE_BENCHMARKS",
    "FAKE_CORE_SLEEP",
    "FAKE_CORE_CRASH_AFTER",
    "FAKE_CORE_STATUS",
    "FAKE_CORE_TRACE",
)
# Variables from the caller's shell that would change what the harness picks.
_HARNESS_VARIABLES = (
    "COMMSCOPE_DB",
    "COMMSCOPE_LAUNCHER",
    "COMMSCOPE_SYSTEM",
    "SLURM_JOB_ID",
    "SLURM_JOB_NUM_NODES",
    "SLURM_NNODES",
)


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
