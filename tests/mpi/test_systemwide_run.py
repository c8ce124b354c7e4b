"""`commscope run hpl` with Debian's hpcc, `commscope run storage` with fio, for real; and
`commscope compare` / `report` of what they and seed 001 store. Each HPL run is a few
seconds (N=400..560); the storage runs write a few MiB."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from commscope.store.db import Store
from paths import REPO

needs_hpcc = pytest.mark.skipif(shutil.which("hpcc") is None, reason="hpcc (Debian package hpcc) not installed")
needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio (Debian package fio) not installed")
SEED001 = next(iter(sorted(Path("/work/shared/seeds").glob("001_*.txt"))), None)


def _runs(db: Path):
    if not db.exists():
        return []
    with Store(db, create=False) as store:
        return [store.run(row.id) for row in store.summaries()]


@needs_hpcc
@pytest.mark.parametrize("ranks", [1, 2])
def test_run_hpl_through_hpcc(cli, clean_env, db, ranks):
    result = cli("run", "hpl", "--np", ranks, "--n", 480, "--nb", 80, "--db", db, "--label", f"hpl{ranks}")
    assert result.exit_code == 0, result.output
    runs = {run.benchmark: run for run in _runs(db)}
    hpl = runs["hpl"]
    assert hpl.status == "complete" and hpl.ranks == ranks
    point = hpl.points[0]
    assert point.size == 480 and point.metrics["block_size"] == 80
    assert point.metrics["grid_rows"] * point.metrics["grid_cols"] == ranks
    assert point.metrics["gflops"] > 0 and point.validation == "Pass"
    assert hpl.provenance["blas_library"] and "cores" in hpl.provenance
    assert hpl.provenance["mpi_flavour"] == "openmpi"  # Debian's hpcc links Open MPI
    assert {"hpcc_stream", "hpcc_ptrans", "hpcc_randomaccess", "hpcc_fft", "hpcc_dgemm"} <= set(runs)
    assert ("hpcc_beff" in runs) == (ranks > 1)  # b_eff needs two processes
    assert "hpccoutf.txt" in Store(db, create=False).raw_outputs(hpl.id)


@needs_hpcc
def test_hpl_problem_size_from_memory_fraction(cli, clean_env, db):
    result = cli("run", "hpl", "--np", 1, "--memory-fraction", "0.00005", "--nb", 64, "--dry-run", "--db", db)
    assert result.exit_code == 0
    from commscope.execute.hpl import problem_size
    from commscope.execute.tools import memory_bytes

    n = problem_size(memory_bytes(), 0.00005, 64)
    assert n % 64 == 0 and n <= (0.00005 * memory_bytes() / 8) ** 0.5 < n + 64
    assert f"{n:<12d} Ns" in result.output and "1            Ps" in result.output
    assert not db.exists()


def test_grid_is_near_square():
    from commscope.execute.hpl import near_square_grid

    assert [near_square_grid(n) for n in (1, 2, 4, 6, 8, 12, 13)] == [
        (1, 1),
        (1, 2),
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 4),
        (1, 13),
    ]


def test_hpl_bad_grid_and_missing_hpcc(cli, clean_env, db, tmp_path):
    result = cli("run", "hpl", "--np", 2, "--grid", "2x1", "--db", db)
    assert result.exit_code == 2 and "P <= Q" in result.output
    result = cli("run", "hpl", "--np", 2, "--grid", "two", "--db", db)
    assert result.exit_code == 2 and "process grid" in result.output
    clean_env.setenv("PATH", str(tmp_path))
    result = cli("run", "hpl", "--n", 400, "--db", db)
    assert result.exit_code == 1 and "Debian package hpcc" in result.output
    assert _runs(db) == []


@needs_fio
def test_run_storage_with_fio(cli, clean_env, db, tmp_path):
    target = tmp_path / "fs"
    result = cli("run", "storage", "--dir", target, "--size", "8M", "--procs", "1,2", "--runtime", "0.3", "--db", db)
    assert result.exit_code == 0, result.output
    (run,) = _runs(db)
    assert run.benchmark == "storage" and [p.size for p in run.points] == [1, 2]
    for point in run.points:
        for name in ("seq_write_MBps", "seq_read_MBps", "rand_write_iops", "rand_read_iops"):
            assert point.metrics[name] > 0
            assert point.metrics[name + "_per_process"] == pytest.approx(point.metrics[name] / point.size)
    assert run.provenance["cache_policy"] == "direct I/O (O_DIRECT)"  # the test folder is on ext4
    assert not target.exists()  # commscope created it, so it is gone again


@needs_fio
def test_storage_guard_rails(cli, clean_env, db, tmp_path):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "precious").write_text("keep me")
    result = cli("run", "storage", "--dir", busy, "--size", "4M", "--procs", "1", "--runtime", "0.2", "--db", db)
    assert result.exit_code == 2 and "not empty" in result.output
    result = cli(
        "run",
        "storage",
        "--dir",
        busy,
        "--size",
        "4M",
        "--procs",
        "1",
        "--runtime",
        "0.2",
        "--allow-nonempty",
        "--db",
        db,
    )
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in busy.iterdir()) == ["precious"]
    assert (busy / "precious").read_text() == "keep me"
    result = cli("run", "storage", "--dir", tmp_path / "huge", "--size", "100T", "--db", db)
    assert result.exit_code == 1 and "GiB free" in result.output and not (tmp_path / "huge").exists()
    result = cli("run", "storage", "--dir", "/proc/commscope-no", "--size", "4M", "--db", db)
    assert result.exit_code == 2 and "/proc/commscope-no" in result.output
    result = cli("run", "storage", "--dir", tmp_path / "x", "--size", "lots", "--db", db)
    assert result.exit_code == 2 and "'lots'" in result.output
    clean_env.setenv("PATH", str(tmp_path))
    result = cli("run", "storage", "--dir", tmp_path / "y", "--size", "4M", "--db", db)
    assert result.exit_code == 1 and "Debian package fio" in result.output
    assert len(_runs(db)) == 1  # only the --allow-nonempty run


@needs_fio
def test_storage_sigterm_removes_files_and_keeps_counts(clean_env, db, tmp_path, commscope_argv):
    target = tmp_path / "fs"
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    process = subprocess.Popen(
        [
            *commscope_argv,
            "run",
            "storage",
            "--dir",
            str(target),
            "--size",
            "4M",
            "--procs",
            "1,2",
            "--runtime",
            "3",
            "--db",
            str(db),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(target.glob("commscope-storage-*/commscope.1")):
        time.sleep(0.1)  # the 2-process count has started
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 3, stderr
    assert not target.exists()
    (run,) = _runs(db)
    assert run.status == "incomplete" and [p.size for p in run.points] == [1]


@pytest.mark.skipif(SEED001 is None, reason="shared seeds not present")
def test_compare_prints_seed001_tables(cli, clean_env, db):
    assert cli("import", SEED001, "--db", db).exit_code == 0
    result = cli("compare", "--benchmark", "hpl", "--peak-per-core", "48", "--db", db)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[1].split()[:9] == ["T/V", "N_cores", "MEM/node", "(GB)", "N", "NB", "P", "Q", "Time(secs)"]
    assert lines[2].split() == [
        "1-gpuv100-node:WC00C2R2",
        "24",
        "192",
        "141312",
        "384",
        "1",
        "1",
        "1,182",
        "1,591",
        "1,152",
        "138.1%",
    ]
    markdown = cli("compare", "--benchmark", "storage", "--format", "markdown", "--db", db).output
    assert "| 13 | 4,141,840 | 6,861,047 | 78,951 | 147,316 |" in markdown
    result = cli("compare", "--benchmark", "latency", "--peak-per-core", "48", "--db", db)
    assert result.exit_code == 2


@pytest.mark.skipif(SEED001 is None, reason="shared seeds not present")
def test_report_has_compute_and_storage_sections(cli, clean_env, db, tmp_path):
    assert cli("import", SEED001, "--db", db).exit_code == 0
    out = tmp_path / "report.html"
    result = cli("report", "--all", "-o", out, "--markdown", tmp_path / "report.md", "--db", db)
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert "Compute: HPL and hpcc" in html and "Storage: throughput and IOPS over clients" in html
    assert "22,219 Gflop/s HPL (N=448512, 400 cores)" in html  # the summary row
    assert "multi_lat" in html  # the network beside them
    markdown = (tmp_path / "report.md").read_text()
    assert "| 10-stdmem-nodes:WC00C2R2 | 400 | 192 | 448512 | 384 | 2 | 5 | 2,707 | 22,219 |" in markdown
