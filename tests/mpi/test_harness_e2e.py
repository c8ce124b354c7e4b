"""`commscope run` end to end with the real commscope-bench under each MPI library.

Skips when a library's build is missing (make test builds them), fails instead
when COMMSCOPE_REQUIRE_MPI names that library (see mpi_flavours.py).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from commscope.execute.core import core_mpi_flavour
from commscope.execute.launchers import program_flavour, resolve_launcher
from commscope.store.db import Store
from mpi_flavours import flavour_params, need
from processes import processes_mentioning

MPI_LIBRARY = {"mpich": "MPICH", "openmpi": "Open MPI"}


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def commscope_run(mpi, db: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """`commscope run --launcher L --db DB ARGS` with this library's core and launcher."""
    return mpi.commscope(db, "run", "--launcher", mpi.launcher, *args, timeout=timeout)


def test_core_mpi_and_auto_launcher_are_detected(mpi):
    assert core_mpi_flavour(mpi.bench) == mpi.name
    assert program_flavour(mpi.launcher) == mpi.name
    assert resolve_launcher("auto", mpi.name).flavour == mpi.name


def test_quick_suite_runs_and_is_stored_with_provenance(mpi, tmp_path):
    db = tmp_path / "results.db"
    done = commscope_run(mpi, db, "quick", "--np", "2", "--label", f"e2e-{mpi.name}")
    assert done.returncode == 0, done.stderr
    assert "# Size       Avg Latency(us)" in done.stdout and "# Size      Bandwidth (MB/s)" in done.stdout
    with Store(db, create=False) as store:
        runs = [store.run(row.id) for row in reversed(store.summaries())]
        raw = store.raw_outputs(runs[0].id)
    assert [run.benchmark for run in runs] == ["latency", "bw", "bibw"]
    for run in runs:
        assert run.status == "complete", run.status_reason
        assert [point.size for point in run.points] == [2**i for i in range(17)]  # 1 B .. 64 KiB
        assert run.ranks == 2 and run.label == f"e2e-{mpi.name}"
        assert run.mpi_library == MPI_LIBRARY[mpi.name] and run.mpi_version
        assert sorted(rank for host in run.hosts for rank in host["ranks"]) == [0, 1] and run.nodes == 1
        assert run.cpu_model and run.compiler and run.tool_name == "commscope-bench" and run.tool_version
        assert run.launcher_argv[0] == mpi.launcher and run.launcher_argv[1:3] in (["-np", "2"], ["-n", "2"])
        assert all(point.stats["min"] > 0 and point.iterations > 0 for point in run.points)
        assert run.commscope_version == "0.1.0"
    assert all(point.metrics["latency_us"] > 0 for point in runs[0].points)
    assert all(point.metrics["bandwidth_MBps"] > 0 for point in runs[1].points)
    assert raw["jsonl"].decode().rstrip().splitlines()[-1].startswith('{"end"')


def test_timeout_stops_every_rank(mpi, tmp_path, monkeypatch):
    db = tmp_path / "results.db"
    scratch = tmp_path / "tmp"  # the run's JSONL file goes here: its ranks name it, other tests' do not
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    # Large messages with many iterations run far longer than the timeout.
    done = commscope_run(
        mpi, db, "latency", "--timeout", "2", "--", "-m", "1:4M", "-i", "100000", "-x", "10", timeout=120
    )
    assert done.returncode == 1, done.stderr
    with Store(db, create=False) as store:
        [row] = store.summaries()
        run = store.run(row.id)
    assert run.status == "incomplete" and run.status_reason.startswith("timed out after 2 s; ")
    assert processes_mentioning(str(scratch)) == []


def test_ranks_are_bound_and_report_their_cpus(mpi, tmp_path):
    """Bound by default, each rank on a CPU set of its own; unbound, with a warning, when
    there are more ranks than cores (Open MPI would refuse to bind) or on request."""
    cores = len(os.sched_getaffinity(0))
    db = tmp_path / "results.db"
    done = commscope_run(mpi, db, "latency", "--np", "2", "--", "-m", "1:1", "-i", "20", "-x", "2")
    assert done.returncode == 0, done.stderr
    with Store(db, create=False) as store:
        run = store.run(store.last_run_id())
    (host,) = run.hosts
    assert host["cpu_count"] >= 1 and len(host["affinity"]) == 2 and all(host["affinity"])
    if cores >= 2:
        assert run.provenance["binding"] == {"asked": "core", "requested": "core", "reason": None}
        assert host["affinity"][0] != host["affinity"][1]  # a core each
        assert "not bound" not in done.stderr
    if cores <= 4:  # multi_lat on twice as many ranks as cores: starts, unbound, says so
        over = commscope_run(mpi, db, "multi_lat", "--np", str(2 * cores), "--", "-m", "1:1", "-i", "20", "-x", "2")
        assert over.returncode == 0, over.stderr
        assert f"ranks are not bound to cores (oversubscribed: {2 * cores} ranks on {cores} core(s))" in over.stderr
    unbound = commscope_run(mpi, db, "latency", "--np", "2", "--bind", "none", "--", "-m", "1:1", "-i", "20")
    assert unbound.returncode == 0 and "ranks are not bound to cores (--bind none)" in unbound.stderr
    with Store(db, create=False) as store:
        assert store.run(store.last_run_id()).provenance["binding"]["asked"] == "none"


def test_core_pairs_bind_the_two_ranks_to_the_pair(mpi, tmp_path):
    """the JUPITER rules' core half on this machine (one socket, one NUMA node: one pair, core 0 with
    core 1): each launcher's binding options put rank 0 on CPU 0 and rank 1 on CPU 1."""
    suite = tmp_path / "cores.yaml"
    suite.write_text(
        "description: core pairs\nbenchmarks:\n  - benchmark: latency\n    flags: ['-m', '0:0', '-i', '100']\n"
        "    placement: intra-node\n    core_pairs: one-to-all\n"
    )
    db = tmp_path / "results.db"
    done = commscope_run(mpi, db, "--suite-file", str(suite))
    assert done.returncode == 0, done.stderr
    with Store(db, create=False) as store:
        (run,) = [store.run(row.id) for row in store.summaries()]
    assert run.status == "complete" and run.label == "core0-core1"
    assert run.provenance["core_pair"] == {"cpus": [0, 1], "path": "same NUMA node"}
    (host,) = run.hosts
    assert host["affinity"] == ["0", "1"]  # unbound, each rank would have 0-1
