"""The cost of a tool (Sigma2's perf-report page): `commscope run --wrap` places a tool between the launcher
and the core, `commscope overhead` measures its slowdown with the real core under a real
tool (valgrind --tool=none, which runs every instruction through its JIT)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from commscope.store.db import Store
from mpi_flavours import load_flavours
from paths import REPO

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")


def _core() -> tuple[Path, str | None]:
    flavours = load_flavours()
    if flavours:
        flavour = flavours.get("openmpi") or next(iter(flavours.values()))
        return flavour.bench, flavour.launcher
    default = REPO / "build" / "default" / "commscope-bench"
    if default.exists():
        return default, None
    pytest.skip("no commscope-bench build (make build)")


def commscope(db: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    bench, launcher = _core()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("COMMSCOPE_", "SLURM_"))}
    env.update(COMMSCOPE_BENCH=str(bench), PYTHONPATH=str(REPO / "python"))
    if launcher:
        env["COMMSCOPE_LAUNCHER"] = launcher
    env["COMMSCOPE_DB"] = str(db)  # not an option: everything after "--" belongs to the core
    return subprocess.run(
        [sys.executable, "-m", "commscope", *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def test_wrap_goes_between_launcher_and_core(tmp_path):
    done = commscope(
        tmp_path / "r.db", "run", "barrier", "--np", "2", "--dry-run", "--wrap", "env 'A B=1' FOO=bar", "--", "-i", "10"
    )
    assert done.returncode == 0, done.stderr
    line = [text for text in done.stdout.splitlines() if "commscope-bench" in text][0]
    before, _, after = line.partition(" env ")
    assert "-np 2" in before or "-n 2" in before
    assert after.startswith("'A B=1' FOO=bar ") and "commscope-bench barrier -i 10" in after


def test_wrap_mistakes_are_usage_errors(tmp_path):
    db = tmp_path / "r.db"
    done = commscope(db, "run", "barrier", "--wrap", "no-such-profiler --flag")
    assert done.returncode == 2 and "no-such-profiler" in done.stderr and "not found" in done.stderr
    done = commscope(db, "run", "barrier", "--wrap", "valgrind 'unbalanced")
    assert done.returncode == 2 and "quotation" in done.stderr.lower()
    done = commscope(db, "overhead", "barrier", "--wrap", "")
    assert done.returncode == 2
    assert not db.exists()


@pytest.mark.timing
@needs_valgrind
def test_overhead_of_valgrind_on_barrier(tmp_path):
    db = tmp_path / "r.db"
    done = commscope(
        db, "overhead", "barrier", "--np", "2", "--repeat", "3", "--wrap", "valgrind --tool=none -q", "--", "-i", "500"
    )  # three a side: one plain launch slowed by a noisy spell (1.44x in CI with two) cannot set the factor
    assert done.returncode == 0, done.stderr
    row = [line for line in done.stdout.splitlines() if "bootstrap" in line]
    assert len(row) == 1, done.stdout
    factor = float(row[0].split()[-4].rstrip("x"))
    assert factor > 3  # valgrind's JIT costs far more than that on an MPI call
    with Store(db, create=False) as store:
        runs = [store.run(r.id) for r in store.summaries()]
    wrapped = [run for run in runs if (run.provenance or {}).get("wrapper")]
    assert len(runs) == 6 and len(wrapped) == 3
    assert wrapped[0].provenance["wrapper"] == ["valgrind", "--tool=none", "-q"]
    assert "valgrind" in wrapped[0].launcher_argv
    # interleaved: plain, wrapped, plain, wrapped, ...
    assert [bool((run.provenance or {}).get("wrapper")) for run in sorted(runs, key=lambda r: r.id)] == [
        False,
        True,
    ] * 3


def test_slowdown_interval_from_samples_with_one_run_a_side():
    from commscope.analysis.overhead import slowdowns
    from commscope.records.run import Point, Run

    def run(mean: float, wrapper: list[str] | None) -> Run:
        point = Point(size=None, metrics={"latency_us": mean}, samples=100, stats={"mean": mean, "stddev": mean * 0.1})
        return Run(benchmark="barrier", points=[point], provenance={"wrapper": wrapper} if wrapper else None)

    (row,) = slowdowns([run(9.25, None), run(238.15, ["perf-report"])])
    assert row.factor == pytest.approx(238.15 / 9.25)  # Sigma2's perf-report page's 26x
    assert row.method == "samples" and row.low < row.factor < row.high
