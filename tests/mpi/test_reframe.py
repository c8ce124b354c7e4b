"""commscope.reframe: ReFrame (reframe-hpc from PyPI) runs the shipped tests on this
machine against the real core (the MPICH build), with references and tolerances."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from commscope.store.db import Store
from mpi_flavours import load_flavours, required
from paths import REPO

pytestmark = pytest.mark.slow
PACKAGE = REPO / "python" / "commscope" / "reframe"
SIZES = [1, 2, 4, 8, 16, 32, 64]

CHECKS = """
import reframe as rfm
from commscope.reframe.checks import CommscopeBenchmark

SIZES = {sizes}

@rfm.simple_test
class latency_within_reach(CommscopeBenchmark):
    flags = ["-m", "1:64", "-i", "200", "-x", "20"]
    reference_values = {{size: 1.0e6 for size in SIZES}}  # one second: any machine passes
    commscope_db = {db!r}

@rfm.simple_test
class latency_out_of_reach(CommscopeBenchmark):
    flags = ["-m", "1:64", "-i", "200", "-x", "20"]
    reference_values = {{size: 1.0e-6 for size in SIZES}}  # a picosecond, 10 % allowed: fails
"""


@pytest.fixture
def reframe_run(tmp_path):
    if shutil.which("reframe", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("reframe-hpc is not installed (pip install .[test])")
    flavours = load_flavours()
    if "mpich" not in flavours:
        if "mpich" in required():
            pytest.fail("COMMSCOPE_REQUIRE_MPI asks for MPICH, which has no build")
        pytest.skip("needs the MPICH build of commscope-bench (make flavours)")
    launcher_dir = tmp_path / "bin"
    launcher_dir.mkdir()
    # the configuration's launcher is `mpiexec`: MPICH's, whatever Debian's alternative says
    (launcher_dir / "mpiexec").write_text(f'#!/bin/sh\nexec {flavours["mpich"].launcher} "$@"\n')
    (launcher_dir / "mpiexec").chmod(0o755)
    env = {
        **os.environ,
        "COMMSCOPE_BENCH": str(flavours["mpich"].bench),
        "HOME": str(tmp_path),
        "PATH": f"{launcher_dir}:{Path(sys.executable).parent}:{os.environ['PATH']}",
    }

    def run(checks: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
        report = tmp_path / "report.json"
        done = subprocess.run(
            [
                str(Path(sys.executable).parent / "reframe"),
                "-C",
                str(PACKAGE / "config.py"),
                "-c",
                str(checks),
                "--prefix",
                str(tmp_path / "rfm"),
                "--report-file",
                str(report),
                *args,
                "-r",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            cwd=tmp_path,
        )
        return done, json.loads(report.read_text()) if report.exists() else {}

    return run


def _cases(report: dict) -> dict[str, dict]:
    return {case["name"].split()[0]: case for case in report["runs"][0]["testcases"]}


def test_the_shipped_latency_test_reports_every_size(reframe_run):
    done, report = reframe_run(PACKAGE / "checks.py", "-n", "commscope_latency$")
    assert done.returncode == 0, done.stdout[-3000:]
    [case] = report["runs"][0]["testcases"]
    assert case["result"] == "pass"
    assert sorted(int(name.rsplit("_", 1)[1]) for name in case["perfvalues"] for name in [name.split(":")[-1]]) == SIZES
    assert "latency_us_64" in done.stdout  # the performance report names each size


def test_references_pass_and_fail_and_runs_land_in_the_commscope_store(reframe_run, tmp_path):
    db = tmp_path / "commscope.db"
    checks = tmp_path / "mychecks.py"
    checks.write_text(CHECKS.format(sizes=SIZES, db=str(db)))
    done, report = reframe_run(checks)
    assert done.returncode != 0  # one test fails its references
    cases = _cases(report)
    assert cases["latency_within_reach"]["result"] == "pass"
    out = cases["latency_out_of_reach"]
    assert out["result"] == "fail" and out["fail_phase"] == "performance"
    assert "latency_us_1" in out["fail_reason"]
    with Store(db) as store:
        [row] = store.summaries()
        run = store.run(row.id)
    assert run.benchmark == "latency" and [point.size for point in run.points] == SIZES
    assert run.label.startswith("reframe latency_within_reach")
