#!/usr/bin/env python3
"""Race commscope-bench against hand-written MPI loops (raw_loops.c), interleaved.

For each MPI library in build/flavours.txt and each benchmark (latency, bw, allreduce,
bcast, put_latency), runs --rounds rounds; each round runs both programs over sizes
1 B - 4 MiB (allreduce and bcast: 1 MiB, OMB's collective default), alternating which
goes first. Noise on a shared machine only ever adds time, so the best value per
size over all rounds is compared: overhead = commscope time / raw time - 1 (for
bandwidth, raw MB/s / commscope MB/s - 1). Prints a Markdown table per library and the
geometric mean; target: geometric mean <= 2 %, no size > 5 %.

    .venv/bin/python bench/overhead/run.py [--rounds 8] [--max-size 4194304]
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "python"))
from mpi_flavours import Flavour, load_flavours  # noqa: E402

METRIC = {"latency": "latency_us", "bw": "bandwidth_MBps", "allreduce": "latency_us", "bcast": "latency_us",
          "put_latency": "latency_us"}
LOWER_IS_BETTER = {"latency": True, "bw": False, "allreduce": True, "bcast": True, "put_latency": True}
MAX_SIZE = {"allreduce": 1 << 20, "bcast": 1 << 20}  # OMB's collective default; others take --max-size


def run_raw(fl: Flavour, bench: str, lo: int, hi: int) -> dict[int, float]:
    out = subprocess.run(fl.argv(2, fl.build / "bench" / "overhead" / "raw_loops", bench, str(lo), str(hi)),
                         env=fl.env(), capture_output=True, text=True, check=True, timeout=600).stdout
    return {int(s): float(v) for s, v in (line.split() for line in out.splitlines())}


def run_commscope(fl: Flavour, bench: str, lo: int, hi: int) -> dict[int, float]:
    out = subprocess.run(fl.argv(2, fl.bench, bench, "-m", f"{lo}:{hi}", "--format", "json"),
                         env=fl.env(), capture_output=True, text=True, check=True, timeout=600).stdout
    return {r["size"]: r["metrics"][METRIC[bench]] for r in json.loads(out)["results"]}


def best(values: list[float], lower_is_better: bool) -> float:
    return min(values) if lower_is_better else max(values)


def race(fl: Flavour, bench: str, rounds: int, lo: int, hi: int,
         control: bool = False) -> list[tuple[int, float, float, float]]:
    """control: race the raw loop against itself, to measure how far apart two
    identical programs come out on this machine (the noise floor of the method)."""
    raw: dict[int, list[float]] = {}
    ours: dict[int, list[float]] = {}
    for r in range(rounds):
        order = [("raw", run_raw), ("cs", run_raw if control else run_commscope)]
        if r % 2:
            order.reverse()
        for name, fn in order:
            for size, v in fn(fl, bench, lo, hi).items():
                (raw if name == "raw" else ours).setdefault(size, []).append(v)
        print(f"  {fl.name} {bench}: round {r + 1}/{rounds}", file=sys.stderr)
    low = LOWER_IS_BETTER[bench]
    rows = []
    for size in sorted(raw):
        b_raw, b_cs = best(raw[size], low), best(ours[size], low)
        overhead = (b_cs / b_raw if low else b_raw / b_cs) - 1
        rows.append((size, b_raw, b_cs, overhead))
    return rows


def table(fl: Flavour, bench: str, rows) -> str:
    unit = "us" if LOWER_IS_BETTER[bench] else "MB/s"
    lines = [f"| size (B) | raw loop ({unit}) | commscope ({unit}) | overhead |", "|---:|---:|---:|---:|"]
    for size, raw, cs, ov in rows:
        lines.append(f"| {size} | {raw:.4g} | {cs:.4g} | {ov * 100:+.2f}% |")
    geo = math.exp(sum(math.log1p(ov) for *_, ov in rows) / len(rows)) - 1
    worst = max(rows, key=lambda r: r[3])
    lines.append(f"\n{fl.name} {bench}: geometric mean overhead {geo * 100:+.2f}%, "
                 f"worst {worst[3] * 100:+.2f}% at {worst[0]} B")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--min-size", type=int, default=1)
    ap.add_argument("--max-size", type=int, default=4 << 20)
    ap.add_argument("--bench", choices=sorted(METRIC), action="append")
    ap.add_argument("--control", action="store_true",
                    help="race the raw loop against itself (noise floor); the commscope column is a second raw run")
    args = ap.parse_args()
    flavours = load_flavours()
    if not flavours:
        print("no builds in build/flavours.txt: run `make flavours` first", file=sys.stderr)
        return 2
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"# bench/overhead, {datetime.date.today()}, {platform.node()}, {cpu}, "
          f"{os.cpu_count()} cores, {args.rounds} rounds\n")
    if args.control:
        print("CONTROL: both columns are the raw loop\n")
    for fl in flavours.values():
        for bench in args.bench or sorted(METRIC):
            print(f"## {fl.name} {bench}\n")
            hi = min(args.max_size, MAX_SIZE.get(bench, args.max_size))
            print(table(fl, bench, race(fl, bench, args.rounds, args.min_size, hi, args.control)), "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
