#!/usr/bin/env python3
"""Race commscope-bench against hand-written MPI loops (raw_loops.c), interleaved.

For each MPI library in build/flavours.txt and each benchmark (latency, bw, allreduce,
bcast, put_latency), runs --rounds rounds; each round runs both programs over sizes
1 B - 4 MiB (allreduce and bcast: 1 MiB, OMB's collective default), alternating which
goes first. Noise on a shared machine only ever adds time, so the best value per
size over all rounds is compared: overhead = commscope time / raw time - 1 (for
bandwidth, raw MB/s / commscope MB/s - 1). On a VM whose speed changes from launch to
launch that is not enough, so the main estimate pairs the two runs of each round: a
round's overhead is the geometric mean over sizes of its paired overheads, and the
result is the median over rounds with a bootstrap 95 % interval. Target: 2 %. Both
programs run with every rank pinned to a core (see BIND).

    .venv/bin/python performance/overhead/run.py [--rounds 8] [--max-size 4194304] [--save FILE]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "support"))
from mpi_flavours import Flavour, load_flavours  # noqa: E402

METRIC = {
    "latency": "latency_us",
    "bw": "bandwidth_MBps",
    "allreduce": "latency_us",
    "bcast": "latency_us",
    "put_latency": "latency_us",
}
LOWER_IS_BETTER = {"latency": True, "bw": False, "allreduce": True, "bcast": True, "put_latency": True}
MAX_SIZE = {"allreduce": 1 << 20, "bcast": 1 << 20}  # OMB's collective default; others take --max-size


# Both programs run with each rank pinned to its own core: Hydra (MPICH) leaves ranks
# unbound, and an unbound pair on this VM lands in slow states per launch (1.2 us instead
# of 0.3 us per MPICH put + flush), which would swamp the overhead being measured.
BIND = {"mpich": ["-bind-to", "core"], "openmpi": ["--bind-to", "core"]}


def pinned(fl: Flavour, program: str | Path, *args: str) -> list[str]:
    cmd = fl.argv(2, program, *args)
    return cmd[:1] + BIND.get(fl.name, []) + cmd[1:]


def pinned_output(fl: Flavour, program: str | Path, *args: str) -> str:
    """What the program prints on 2 pinned ranks (an error if it fails)."""
    return subprocess.run(
        pinned(fl, program, *args), env=fl.env(), capture_output=True, text=True, check=True, timeout=600
    ).stdout


def run_raw(fl: Flavour, bench: str, lo: int, hi: int) -> dict[int, float]:
    out = pinned_output(fl, fl.build / "performance" / "overhead" / "raw_loops", bench, str(lo), str(hi))
    return {int(s): float(v) for s, v in (line.split() for line in out.splitlines())}


def run_commscope(fl: Flavour, bench: str, lo: int, hi: int) -> dict[int, float]:
    out = pinned_output(fl, fl.bench, bench, "-m", f"{lo}:{hi}", "--format", "json")
    return {r["size"]: r["metrics"][METRIC[bench]] for r in json.loads(out)["results"]}


def best(values: list[float], lower_is_better: bool) -> float:
    return min(values) if lower_is_better else max(values)


def race(
    fl: Flavour, bench: str, rounds: int, lo: int, hi: int, control: bool = False
) -> dict[int, tuple[list[float], list[float]]]:
    """Per size: (raw values, commscope values), one of each per round, in round order.
    control: race the raw loop against itself, to measure how far apart two identical
    programs come out on this machine (the noise floor of the method)."""
    values: dict[int, tuple[list[float], list[float]]] = {}
    for r in range(rounds):
        order = [(0, run_raw), (1, run_raw if control else run_commscope)]
        if r % 2:
            order.reverse()
        for column, fn in order:
            for size, v in fn(fl, bench, lo, hi).items():
                values.setdefault(size, ([], []))[column].append(v)
        print(f"  {fl.name} {bench}: round {r + 1}/{rounds}", file=sys.stderr)
    return values


def overhead(bench: str, raw: float, cs: float) -> float:
    return (cs / raw if LOWER_IS_BETTER[bench] else raw / cs) - 1


def summarise(bench: str, values: dict[int, tuple[list[float], list[float]]]):
    """Per size: best raw, best commscope, overhead of the bests, and the median over
    rounds of the overhead within a round (the two runs of a round are back to back, so
    a slow spell of the machine that spans both cancels out)."""
    low = LOWER_IS_BETTER[bench]
    rows = []
    for size in sorted(values):
        raw, cs = values[size]
        paired = statistics.median(overhead(bench, a, b) for a, b in zip(raw, cs))
        b_raw, b_cs = best(raw, low), best(cs, low)
        rows.append((size, b_raw, b_cs, overhead(bench, b_raw, b_cs), paired))
    return rows


def geometric_mean(overheads) -> float:
    overheads = list(overheads)
    return math.exp(sum(math.log1p(o) for o in overheads) / len(overheads)) - 1


def per_round(bench: str, values: dict[int, tuple[list[float], list[float]]]) -> tuple[float, float, float]:
    """The overhead of each round as the geometric mean over sizes of its paired overheads;
    returns their median and a bootstrap 95 % interval of that median. One launch's slow
    or fast state moves every size of it together, so rounds, not sizes, are the
    independent samples."""
    sizes = sorted(values)
    rounds = min(len(values[s][0]) for s in sizes)
    g = [geometric_mean(overhead(bench, values[s][0][r], values[s][1][r]) for s in sizes) for r in range(rounds)]
    rng = random.Random(1)  # a fixed seed: the same data gives the same interval
    boots = sorted(statistics.median(rng.choices(g, k=rounds)) for _ in range(2000))
    return statistics.median(g), boots[49], boots[1949]


def table(fl: Flavour, bench: str, values: dict[int, tuple[list[float], list[float]]]) -> str:
    rows = summarise(bench, values)
    unit = "us" if LOWER_IS_BETTER[bench] else "MB/s"
    lines = [
        f"| size (B) | raw loop, best ({unit}) | commscope, best ({unit}) | overhead of bests "
        "| median paired overhead |",
        "|---:|---:|---:|---:|---:|",
    ]
    for size, raw, cs, ov, paired in rows:
        lines.append(f"| {size} | {raw:.4g} | {cs:.4g} | {ov * 100:+.2f}% | {paired * 100:+.2f}% |")
    worst = max(rows, key=lambda r: r[3])
    median, lo, hi = per_round(bench, values)
    lines.append(
        f"\n{fl.name} {bench}: per round {median * 100:+.2f}% (95% CI {lo * 100:+.2f}% .. {hi * 100:+.2f}%); "
        f"bests {geometric_mean(r[3] for r in rows) * 100:+.2f}%, worst {worst[3] * 100:+.2f}% at {worst[0]} B"
    )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--min-size", type=int, default=1)
    ap.add_argument("--max-size", type=int, default=4 << 20)
    ap.add_argument("--bench", choices=sorted(METRIC), action="append")
    ap.add_argument(
        "--save",
        type=Path,
        metavar="FILE",
        help="also write every round's values as JSON, to re-read without re-running",
    )
    ap.add_argument(
        "--control",
        action="store_true",
        help="race the raw loop against itself (noise floor); the commscope column is a second raw run",
    )
    args = ap.parse_args()
    flavours = load_flavours()
    if not flavours:
        print("no builds in build/flavours.txt: run `make flavours` first", file=sys.stderr)
        return 2
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(
        f"# performance/overhead, {datetime.date.today()}, {platform.node()}, {cpu}, "
        f"{os.cpu_count()} cores, {args.rounds} rounds\n"
    )
    if args.control:
        print("CONTROL: both columns are the raw loop\n")
    saved: dict[str, dict[str, dict[int, tuple[list[float], list[float]]]]] = {}
    for fl in flavours.values():
        for bench in args.bench or sorted(METRIC):
            print(f"## {fl.name} {bench}\n")
            hi = min(args.max_size, MAX_SIZE.get(bench, args.max_size))
            values = race(fl, bench, args.rounds, args.min_size, hi, args.control)
            saved.setdefault(fl.name, {})[bench] = values
            print(table(fl, bench, values), "\n", flush=True)
            if args.save:
                args.save.write_text(json.dumps(saved, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
