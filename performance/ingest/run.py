#!/usr/bin/env python3
"""Harness speed: bulk import and the cost `commscope run` adds over the bare launcher.

1. Writes --files OMB output files (latency, bw, mbw_mr and bcast -f layouts, 23-24 sizes
   each, numbers varied per file) and times `commscope import` of all of them into a new
   database, --imports times (a fresh database each), reporting the fastest and the median
   wall time and the least CPU time (user + system) of the command. Target: 10,000 files in
   under 10 s.
2. With --one-file-mb M (0: skip), writes one file of M MB of concatenated OMB tables, as
   `cat osu_*.out > all.txt` makes, and reports the time and the database size of its
   import (a file's text is stored once, not once per table it holds).
3. Times a one-size benchmark started by the bare launcher and by `commscope run`
   (same core, same flags), interleaved --rounds times, and reports the difference of the
   medians and of the minima. Target: under 0.3 s.

    .venv/bin/python performance/ingest/run.py [--files 10000] [--imports 3] [--rounds 10]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "support"))
from mpi_flavours import load_flavours  # noqa: E402

COMMSCOPE = str(REPO / ".venv" / "bin" / "commscope")
SIZES = [0] + [1 << i for i in range(23)]


def omb_table(kind: str, rng: random.Random) -> str:
    """One OMB 7.x output in the layout of `kind`."""
    if kind == "latency":
        head = "\n# OSU MPI Latency Test v7.4\n# Datatype: MPI_CHAR.\n# Size       Avg Latency(us)\n"
        rows = [f"{s:<10d}{0.2 + s / 9e3 * rng.uniform(0.9, 1.1):18.2f}" for s in SIZES]
    elif kind == "bw":
        head = "\n# OSU MPI Bandwidth Test v7.4\n# Datatype: MPI_CHAR.\n# Size      Bandwidth (MB/s)\n"
        rows = [f"{s:<10d}{min(s * 9.5, 12000) * rng.uniform(0.9, 1.1):18.2f}" for s in SIZES[1:]]
    elif kind == "mbw_mr":
        head = (
            "# OSU MPI Multiple Bandwidth / Message Rate Test v7.4\n# [ pairs: 1 ] [ window size: 64 ]\n"
            "# Datatype: MPI_CHAR.\n# Size                  MB/s        Messages/s\n"
        )
        rows = []
        for s in SIZES[1:]:
            mbs = min(s * 9.2, 11000) * rng.uniform(0.9, 1.1)
            rows.append(f"{s:<10d}{mbs:18.2f}{mbs * 1e6 / s:18.2f}")
    else:
        head = (
            "\n# OSU MPI Broadcast Latency Test v7.4\n# Datatype: MPI_CHAR.\n"
            "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n"
        )
        rows = []
        for s in SIZES[1:21]:
            avg = 0.4 + s / 5e3 * rng.uniform(0.9, 1.1)
            rows.append(f"{s:<10d}{avg:18.2f}{avg * 0.8:18.2f}{avg * 1.2:18.2f}{1000 if s <= 8192 else 100:12d}")
    return head + "\n".join(rows) + "\n"


def bench_import(nfiles: int, imports: int, workdir: Path) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system) seconds of each `commscope import` of the files."""
    rng = random.Random(42)
    kinds = ["latency", "bw", "mbw_mr", "bcast"]
    files = []
    for i in range(nfiles):
        path = workdir / f"osu_{i:05d}.out"
        path.write_text(omb_table(kinds[i % len(kinds)], rng))
        files.append(str(path))
    walls, cpus = [], []
    for attempt in range(imports):
        db = workdir / f"ingest{attempt}.db"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        res = subprocess.run(
            [COMMSCOPE, "import", "--db", str(db), "--label", "bulk", *files], capture_output=True, text=True
        )
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if res.returncode != 0:
            sys.exit(f"import failed ({res.returncode}): {res.stderr[-2000:]}")
    return walls, cpus


def bench_one_file(megabytes: float, workdir: Path) -> tuple[int, int, float, int]:
    """(bytes, tables, seconds, database bytes) of importing one file of concatenated tables."""
    rng = random.Random(7)
    kinds = ["latency", "bw", "mbw_mr", "bcast"]
    path = workdir / "all_tables.txt"
    tables = 0
    with open(path, "w") as handle:
        while handle.tell() < megabytes * 1e6:
            handle.write(omb_table(kinds[tables % len(kinds)], rng))
            tables += 1
    db = workdir / "one_file.db"
    t0 = time.perf_counter()
    res = subprocess.run([COMMSCOPE, "import", "--db", str(db), str(path)], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if res.returncode != 0:
        sys.exit(f"import failed ({res.returncode}): {res.stderr[-2000:]}")
    size = sum(f.stat().st_size for f in workdir.glob("one_file.db*"))
    return path.stat().st_size, tables, seconds, size


def bench_run_overhead(rounds: int, workdir: Path) -> tuple[list[float], list[float]]:
    flavour = next(iter(load_flavours().values()), None)
    if flavour is None:
        sys.exit("no builds in build/flavours.txt: run `make flavours` first")
    core_flags = ["-m", "8:8", "-i", "100", "-x", "10"]
    bare_cmd = flavour.argv(2, flavour.bench, "latency", *core_flags, "--format", "json")
    env = flavour.env() | {"COMMSCOPE_BENCH": str(flavour.bench), "COMMSCOPE_DB": str(workdir / "run.db")}
    harness_cmd = [COMMSCOPE, "run", "latency", "--np", "2", "--launcher", flavour.launcher, "--", *core_flags]
    bare, harness = [], []
    for r in range(rounds):
        pair = [(bare, bare_cmd), (harness, harness_cmd)]
        if r % 2:
            pair.reverse()
        for times, cmd in pair:
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, capture_output=True, check=True)
            times.append(time.perf_counter() - t0)
    return bare, harness


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--imports", type=int, default=3, help="times to import the files (the machine is shared)")
    ap.add_argument("--one-file-mb", type=float, default=4, help="size of the one-file import; 0 skips it")
    ap.add_argument("--rounds", type=int, default=10, help="rounds of the run overhead test; 0 skips it")
    args = ap.parse_args()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"# performance/ingest, {datetime.date.today()}, {platform.node()}, {cpu}, {os.cpu_count()} cores\n")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.files:
            walls, cpus = bench_import(args.files, args.imports, work)
            print(
                f"import of {args.files} OMB files, {args.imports} times: fastest {min(walls):.2f} s "
                f"({args.files / min(walls):.0f} files/s), median {statistics.median(walls):.2f} s, "
                f"least CPU {min(cpus):.2f} s; target: 10,000 in < 10 s"
            )
        if args.one_file_mb:
            size, tables, seconds, db_size = bench_one_file(args.one_file_mb, work)
            print(
                f"import of one {size / 1e6:.1f} MB file of {tables} OMB tables: {seconds:.2f} s, "
                f"database {db_size / 1e6:.1f} MB"
            )
        if not args.rounds:
            return 0
        bare, harness = bench_run_overhead(args.rounds, work)
    med = statistics.median(harness) - statistics.median(bare)
    low = min(harness) - min(bare)
    print(
        f"one-size latency, {args.rounds} interleaved rounds: bare launcher median "
        f"{statistics.median(bare):.3f} s (min {min(bare):.3f}), commscope run median "
        f"{statistics.median(harness):.3f} s (min {min(harness):.3f})"
    )
    print(f"commscope run adds {med:.3f} s (medians), {low:.3f} s (minima); target < 0.3 s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
