#!/usr/bin/env python3
"""How long `commscope history` takes over thousands of stored runs.

Stores --runs latency runs as nightly checks store them (each its own `commscope run`, a
day apart, 23 sizes 0 B .. 4 MiB with sample statistics, the provenance the core records),
the transport changing two thirds of the way through (--steady: never), in a new database; then times
`commscope history --benchmark latency --format json` over it --rounds times (the whole
command, Python's start included) and, in this process, its two halves: loading the runs
with their points at the sizes looked at, and finding the series and its change points.
Wall and CPU seconds: on a shared machine the CPU time is what the command costs. Target:
well under a second for thousands of runs.

    .venv/bin/python performance/history/run.py [--runs 3000] [--rounds 5] [--steady]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "performance"))
from timing import summary, timed  # noqa: E402

from commscope.analysis.history import history, sizes_to_load  # noqa: E402
from commscope.records.invocation import invocation  # noqa: E402
from commscope.records.run import Point, Run  # noqa: E402
from commscope.store.db import Store  # noqa: E402
from commscope.store.selection import Selection, select_run_ids  # noqa: E402

SIZES = [0] + [2**e for e in range(23)]


def nightly_run(day: int, slow: bool, rng: np.random.Generator) -> Run:
    start = datetime.datetime(2020, 1, 1, 2, tzinfo=datetime.timezone.utc) + datetime.timedelta(days=day)
    level = (12.0 if slow else 1.0) * rng.lognormal(0, 0.1)
    points = []
    for size in SIZES:
        mean = level + size / 5000
        points.append(
            Point(
                size=size,
                metrics={"latency_us": mean, "min_latency_us": mean * 0.9, "max_latency_us": mean * 1.2},
                iterations=1000,
                warmup=100,
                samples=1000,
                stats={"min": mean * 0.9, "max": mean * 1.5, "mean": mean, "median": mean, "stddev": mean * 0.05,
                       "ci95_low": mean * 0.997, "ci95_high": mean * 1.003},
            )
        )  # fmt: skip
    return Run(
        "latency",
        label="nightly",
        system="cluster",
        started_at=start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        flags=["-m", "0:4M"],
        ranks=2,
        nodes=2,
        hosts=[{"name": "node1", "ranks": [0]}, {"name": "node2", "ranks": [1]}],
        mpi_library="Open MPI",
        mpi_version="4.1.4",
        tool_name="commscope-bench",
        tool_version="0.1.0",
        environment={"OMPI_MCA_btl": "tcp,self" if slow else "vader,self", "SLURM_JOB_ID": str(day)},
        provenance={"transport": {"requested": "net" if slow else "shm"}},
        points=points,
    )


def fill(db: Path, runs: int, steady: bool = False) -> None:
    rng = np.random.default_rng(1)
    with Store(db) as store:
        for day in range(runs):
            slow = not steady and day >= 2 * runs // 3
            store.add_runs([nightly_run(day, slow, rng)], store.add_invocation(
                invocation("run", ["commscope", "run", "latency"])))  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--steady", action="store_true", help="nothing changes (the usual night): no change point, nothing to test"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="commscope-history-bench-") as folder:
        db = Path(folder) / "results.db"
        started = time.perf_counter()
        fill(db, args.runs, args.steady)
        print(f"stored {args.runs} runs in {time.perf_counter() - started:.1f} s")
        argv = [str(REPO / ".venv" / "bin" / "commscope"), "history", "--benchmark", "latency", "--format", "json"]
        env = {**os.environ, "COMMSCOPE_DB": str(db)}
        # wall and CPU seconds: on a shared machine the CPU time says what the command costs
        commands, loads, analyses = [], [], []
        for _ in range(args.rounds):
            wall, cpu, done = timed(argv, env, stdout=subprocess.DEVNULL)
            commands.append((wall, cpu))
            expected = 0 if args.steady else 1  # the newest level is the slow one: history exits 1
            assert done.returncode == expected, f"history exited {done.returncode}, not {expected}"
            start, cpu = time.perf_counter(), time.process_time()
            with Store(db, create=False, readonly=True) as store:  # as the command loads them
                ids = select_run_ids(store, Selection(benchmark="latency"))
                runs = store.runs_at_sizes(ids, sizes_to_load(store.point_sizes(ids), None, False))
            loads.append((time.perf_counter() - start, time.process_time() - cpu))
            start, cpu = time.perf_counter(), time.process_time()
            found = history(runs)
            analyses.append((time.perf_counter() - start, time.process_time() - cpu))
        [series] = found.series
        print(f"series: {len(series.samples)} runs, change points after runs {[p.before.id for p in series.changes]}")
        for name, times in (("command", commands), ("  load runs", loads), ("  history()", analyses)):
            print(summary(f"{name:<12}", times, digits=3))
        print(f"load average during the runs: {os.getloadavg()[0]:.1f}")
        print(f"machine: {platform.node()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
