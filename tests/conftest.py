"""The test layers and their shared fixtures.

A folder per layer, each with its marker, so the fast tier runs without MPI (`make check`:
`pytest -m "not mpi and not browser and not cluster and not monitoring and not slow"`):

    unit/      the harness and the readers, no MPI (fakes stand in for the core and its launchers)
    mpi/       the real core under each MPI library (build/flavours.txt)      marker: mpi
    browser/   the HTML report in headless Chromium                           marker: browser
    cluster/   the virtual cluster with a real Slurm (root)                   marker: cluster
    monitoring/ Prometheus, a Pushgateway and node_exporter on local ports    marker: monitoring
    support/   helpers every layer imports: paths, MPI flavours, fixtures, fakes

A test elsewhere that needs an MPI build takes its flavour from mpi_flavours.flavour_params,
whose parameters carry the mpi marker too.

`make pytest` runs the tests in two steps: first every test not marked `timing` or `heavy`,
spread over several worker processes (pytest-xdist, `--dist loadgroup`: the cluster tests
share one virtual cluster, so they go to one worker in order, as do the tests sharing one
pip installation); then, alone on a quiet machine, the `timing` tests, which judge measured
speeds, and the `heavy` ones, which would keep both cores busy for minutes. While workers
share the cores, MPI ranks wait by yielding and Open MPI leaves them unpinned
(mpi_flavours.Flavour.env); nothing measured in that step is judged.
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
LAYER_MARKERS = {"mpi": "mpi", "browser": "browser", "cluster": "cluster", "monitoring": "monitoring"}
#: Tests that must run one after another in one worker process: the group's name, the
#: folder or file (relative to tests/) whose tests it holds.
WORKER_GROUPS = {"cluster": "vcluster", "mpi/test_install.py": "pip-install"}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items):
    for item in items:
        where = Path(item.fspath).relative_to(Path(__file__).parent)
        if where.parts[0] in LAYER_MARKERS:
            item.add_marker(LAYER_MARKERS[where.parts[0]])
        for place, group in WORKER_GROUPS.items():
            if where.as_posix().startswith(place):
                item.add_marker(pytest.mark.xdist_group(group))


#: Niceness of a test worker's other tests while cluster tests run beside them.
BESIDE_THE_CLUSTER = 10


@pytest.hookimpl(tryfirst=True)  # before the test's fixtures: the cluster's daemons inherit it
def pytest_runtest_setup(item):
    """In make pytest's parallel step the cluster tests, one after another in one worker,
    are the longest chain; the other workers' tests mostly wait. The chain gets the cores
    first: every other test (and what it starts) runs at a lower priority."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return
    try:  # raising the priority back needs root, as the cluster tests do
        cluster = item.get_closest_marker("cluster") is not None
        os.setpriority(os.PRIO_PROCESS, 0, 0 if cluster else BESIDE_THE_CLUSTER)
    except OSError:
        pass


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
    """The fake commscope-bench as $COMMSCOPE_BENCH and the fake launchers (mpirun, and mpiexec,
    which the harness asks for first when it cannot tell the core's MPI) first on PATH: no
    unit test starts a real MPI launcher."""
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
