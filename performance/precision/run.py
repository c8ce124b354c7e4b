#!/usr/bin/env python3
"""How repeatable is a result from one launch, and what does a launch cost?

Runs N interleaved launches of each variant (commscope-bench with OMB's fixed counts,
commscope-bench with --precision, and optionally OMB's own binaries), reads each launch's
OSU table (the same layout for all), and prints per size the coefficient of variation of
the reported number across launches, the median of those over sizes, and the wall time
per launch. Interleaving (variant A, B, C, A, B, C, ...) spreads a slow spell of the
machine over every variant instead of one.

    .venv/bin/python performance/precision/run.py [--launches 10] [--mpi mpich,openmpi]
        [--bench latency,bw] [--precision 2 --max-time 0.5] [--omb-prefix DIR] [--save FILE]

--omb-prefix DIR: an OMB install (DIR/libexec/osu-micro-benchmarks/mpi/pt2pt/osu_latency)
or a folder holding osu_latency etc. directly; it is run with the launcher of the first
--mpi given, so it must be built with that MPI. Builds come from build/flavours.txt
(`make flavours`). Ranks are bound to cores, as `commscope run` binds them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OMB_SUBDIR = Path("libexec/osu-micro-benchmarks/mpi/pt2pt")


def flavours() -> dict[str, tuple[Path, str]]:
    found = {}
    for line in (REPO / "build" / "flavours.txt").read_text().splitlines():
        name, build, launcher = line.split()
        found[name] = (Path(build) / "commscope-bench", launcher)
    return found


def omb_program(prefix: Path, bench: str) -> Path:
    """osu_BENCH under an install prefix or in a flat folder."""
    for folder in (prefix / OMB_SUBDIR, prefix):
        if (folder / f"osu_{bench}").is_file():
            return folder / f"osu_{bench}"
    sys.exit(f"error: --omb-prefix {prefix}: no osu_{bench} in {prefix / OMB_SUBDIR} or {prefix}")


def launch_argv(launcher: str, np: int) -> list[str]:
    if "openmpi" in launcher or "orterun" in launcher:
        return [launcher, "-np", str(np), "--bind-to", "core"]
    return [launcher, "-n", str(np), "-bind-to", "core"]


def table(stdout: str) -> dict[int, float]:
    """Size -> the first value column of an OSU table."""
    values = {}
    for line in stdout.splitlines():
        words = line.split()
        if len(words) >= 2 and not line.startswith("#") and words[0].isdigit():
            values[int(words[0])] = float(words[1])
    return values


def run_once(argv: list[str], env: dict[str, str]) -> tuple[dict[int, float], float]:
    began = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=1800)
    wall = time.monotonic() - began
    if done.returncode != 0:
        sys.exit(f"error: {' '.join(argv)} exited with {done.returncode}:\n{done.stderr[-2000:]}")
    return table(done.stdout), wall


def summarise(launches: list[tuple[dict[int, float], float]]) -> dict:
    sizes = sorted(set.intersection(*(set(values) for values, _ in launches)))
    cov = {}
    for size in sizes:
        values = [values[size] for values, _ in launches]
        mean = statistics.fmean(values)
        cov[size] = statistics.stdev(values) / mean if mean > 0 and len(values) > 1 else 0.0
    walls = [wall for _, wall in launches]
    return {
        "cov": cov,
        "median_cov": statistics.median(cov.values()) if cov else None,
        "max_cov": max(cov.values()) if cov else None,
        "wall_median_s": statistics.median(walls),
        "wall_mean_s": statistics.fmean(walls),
        "launches": len(walls),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--launches", type=int, default=10)
    parser.add_argument("--mpi", default="mpich,openmpi", help="flavours from build/flavours.txt, comma-separated")
    parser.add_argument("--bench", default="latency,bw")
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--precision", default="2", help="--precision of the precision variant")
    parser.add_argument("--max-time", default="0.5", help="--max-time of the precision variant")
    parser.add_argument("--sizes", help="-m for every variant (default: each benchmark's OMB default)")
    parser.add_argument("--omb-prefix", type=Path, help="an OMB 7.x install prefix or folder of osu_* programs")
    parser.add_argument("--save", type=Path, help="also write the results as JSON")
    args = parser.parse_args()
    if args.launches < 2:
        parser.error("--launches: at least 2, for a spread across launches")
    builds = flavours()
    env = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    sizes = ["-m", args.sizes] if args.sizes else []
    variants: dict[tuple[str, str, str], list[str]] = {}
    mpis = args.mpi.split(",")
    for mpi in mpis:
        if mpi not in builds:
            parser.error(f"--mpi {mpi}: not in build/flavours.txt (run `make flavours`)")
        core, launcher = builds[mpi]
        for bench in args.bench.split(","):
            base = [*launch_argv(launcher, args.np), str(core), bench, *sizes]
            variants[(mpi, bench, "commscope, OMB counts")] = base
            variants[(mpi, bench, f"commscope --precision {args.precision} --max-time {args.max_time}")] = [
                *base,
                "--precision",
                args.precision,
                "--max-time",
                args.max_time,
            ]
            if args.omb_prefix and mpi == mpis[0]:
                variants[(mpi, bench, "OMB")] = [
                    *launch_argv(launcher, args.np),
                    str(omb_program(args.omb_prefix, bench)),
                    *sizes,
                ]
    results: dict = {key: [] for key in variants}
    for launch in range(args.launches):  # interleaved: one launch of every variant per pass
        for key, argv in variants.items():
            results[key].append(run_once(argv, env))
        print(f"# pass {launch + 1}/{args.launches} done", file=sys.stderr)
    cpu = platform.processor() or platform.machine()
    print(
        f"# performance/precision, {datetime.date.today()}, {platform.node()}, {os.cpu_count()} CPUs ({cpu}), "
        f"{args.launches} interleaved launches, {args.np} ranks bound to cores"
    )
    print(f"{'MPI':<8} {'benchmark':<9} {'variant':<44} {'median CoV':>10} {'max CoV':>8} {'wall/launch':>12}")
    saved = []
    for (mpi, bench, variant), launches in results.items():
        s = summarise(launches)
        print(
            f"{mpi:<8} {bench:<9} {variant:<44} {100 * s['median_cov']:>9.1f}% {100 * s['max_cov']:>7.1f}% "
            f"{s['wall_median_s']:>11.1f}s"
        )
        saved.append(
            {"mpi": mpi, "benchmark": bench, "variant": variant, **s, "cov": {str(k): v for k, v in s["cov"].items()}}
        )
    print("\n# per-size CoV across launches (%)")
    for (mpi, bench, variant), launches in results.items():
        s = summarise(launches)
        print(f"{mpi} {bench} {variant}: " + " ".join(f"{size}:{100 * c:.1f}" for size, c in s["cov"].items()))
    if args.save:
        args.save.write_text(json.dumps(saved, indent=2) + "\n")


if __name__ == "__main__":
    main()
