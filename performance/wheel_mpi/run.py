#!/usr/bin/env python3
"""The MPICH wheel from PyPI against Debian's MPICH: shared-memory latency and bandwidth.

Runs commscope-bench `latency` and `bw` on 2 ranks of this machine under several
launch variants, interleaved round by round (the order shuffled in each round), and
prints per size the median and the best value over the rounds, of OMB's average
(latency, bandwidth) and of each run's median iteration (latency). The variants:

    wheel            the wheel's own mpiexec, as pip installs it
    wheel-no-yield   .venv/bin/commscope-mpiexec (scripts/find-mpi): sched_yield() preloaded away
    debian           Debian's MPICH 4.0.2 (mpiexec.mpich, build/mpich)
    wheel+VAR=VALUE  the wheel's mpiexec with one more setting (candidates tried on the way)
    ...+bind         any of these with Hydra's -bind-to core

Needs the two builds (paths relative to the repository):

    cmake -S . -B build/wheel -DCMAKE_C_COMPILER=$PWD/.venv/bin/mpicc && cmake --build build/wheel
    make flavours                                   # build/mpich, with Debian's MPICH
    .venv/bin/python performance/wheel_mpi/run.py [--rounds 5] [--variants wheel,wheel-no-yield,debian]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WHEEL_BENCH = REPO / "build" / "wheel" / "commscope-bench"
DEBIAN_BENCH = REPO / "build" / "mpich" / "commscope-bench"
WHEEL_MPIEXEC = REPO / ".venv" / "bin" / "mpiexec"
WHEEL_WRAPPER = REPO / ".venv" / "bin" / "commscope-mpiexec"
DEBIAN_MPIEXEC = Path("/usr/bin/mpiexec.mpich")
METRIC = {"latency": "latency_us", "bw": "bandwidth_MBps"}
SIZES = (0, 8, 1024, 65536, 1048576)


def variant(name: str) -> tuple[list[str], Path, dict[str, str]]:
    """(launcher argv, core, extra environment) for a variant name."""
    bind = name.endswith("+bind")
    base = name.removesuffix("+bind")
    env: dict[str, str] = {}
    if base == "debian":
        launcher, bench = [str(DEBIAN_MPIEXEC)], DEBIAN_BENCH
    elif base == "wheel-no-yield":
        launcher, bench = [str(WHEEL_WRAPPER)], WHEEL_BENCH
    elif base == "wheel" or base.startswith("wheel+"):
        launcher, bench = [str(WHEEL_MPIEXEC)], WHEEL_BENCH
        for setting in base.split("+")[1:]:
            key, _, value = setting.partition("=")
            env[key] = value
    else:
        raise SystemExit(f"unknown variant {name!r}")
    return launcher + (["-bind-to", "core"] if bind else []), bench, env


def run_once(name: str, benchmark: str) -> dict[int, float]:
    launcher, bench, env = variant(name)
    argv = [*launcher, "-n", "2", str(bench), benchmark, "-m", f"0:{max(SIZES)}", "--format", "json"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, env={**os.environ, **env})
    if done.returncode != 0:
        raise SystemExit(f"{name} {benchmark} failed ({done.returncode}): {' '.join(argv)}\n{done.stderr[-2000:]}")
    values: dict[int, float] = {}
    for record in json.loads(done.stdout)["results"]:
        if record["size"] in SIZES:
            values[record["size"]] = record["metrics"][METRIC[benchmark]]
            if benchmark == "latency":  # the median iteration: what a busy machine's spikes leave alone
                values[-record["size"] - 1] = record["stats"]["median"]
    return values


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--variants", default="wheel,wheel-no-yield,debian")
    parser.add_argument("--benchmarks", default="latency,bw")
    args = parser.parse_args()
    names = args.variants.split(",")
    benchmarks = args.benchmarks.split(",")
    for name in names:
        _, bench, _ = variant(name)
        if not bench.exists():
            raise SystemExit(f"{bench} is missing; see the build commands in {__file__}")
    samples: dict[tuple[str, str, int], list[float]] = {}
    for round_no in range(args.rounds):
        order = [(n, b) for n in names for b in benchmarks]
        random.shuffle(order)
        for name, benchmark in order:
            for size, value in run_once(name, benchmark).items():
                samples.setdefault((name, benchmark, size), []).append(value)
        print(f"round {round_no + 1}/{args.rounds} done", file=sys.stderr)
    tables = [(b, b, 1) for b in benchmarks]
    if "latency" in benchmarks:
        tables.append(("latency", "latency, median iteration of each run", -1))
    for benchmark, title, sign in tables:
        unit = "us" if benchmark == "latency" else "MB/s"
        best = min if benchmark == "latency" else max
        print(f"\n{title} ({unit}), median / best of {args.rounds} rounds\n")
        print("| variant | " + " | ".join(f"{s} B" for s in SIZES) + " |")
        print("|---|" + "---:|" * len(SIZES))
        for name in names:
            cells = []
            for size in SIZES:
                values = samples.get((name, benchmark, size if sign > 0 else -size - 1), [])
                cells.append(f"{statistics.median(values):.3g} / {best(values):.3g}" if values else "-")
            print(f"| {name} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
