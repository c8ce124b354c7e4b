#!/usr/bin/env python3
"""Count the instructions commscope-bench's own code runs per iteration, against the
hand-written loops of raw_loops.c: a measure of loop overhead that the machine's noise
cannot touch (timings on a shared VM wander by more than the 2 % being looked for).

Both programs run under valgrind's callgrind at two iteration counts; the instructions
executed in the program's own binary (not in MPI or libc), summed over both ranks, are
differenced between the two runs and divided by the difference in iterations. Only the
measurement is counted (commscope's cs_pattern_run: warm-up and timed loop, not the
statistics over the samples that follow it); set-up and warm-up cancel out in the
difference, and what remains is what one timed iteration costs in our code. MPI's own
instructions are the same calls with the same arguments in both programs and are not
counted (with busy polling they are not even deterministic).

    .venv/bin/python performance/overhead/instructions.py [--size 8] [--bench put_latency ...]

Needs valgrind. commscope-bench runs with --batch equal to the iterations, as callgrind's
slowdown would otherwise shrink its automatic batches far below a normal run's.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# the same builds, launchers and pinning as the timed race
from run import METRIC, Flavour, load_flavours, pinned

# a function's line in callgrind_annotate: "  212,286 ( 0.46%)  ???:rma_iterations [/path/obj]"
FUNCTION_LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+.*\[(.+)\]\s*$")
ITERATIONS = (1000, 3000)


def own_instructions(profile: Path, binary: Path) -> int:
    """Instructions executed inside `binary` (its own functions, self cost) in one profile."""
    out = subprocess.run(
        ["callgrind_annotate", "--threshold=100", str(profile)], capture_output=True, text=True, check=True
    ).stdout
    total = 0
    for line in out.splitlines():
        m = FUNCTION_LINE.match(line)
        if m and Path(m.group(2)).resolve() == binary.resolve():
            total += int(m.group(1).replace(",", ""))
    return total


def counted(fl: Flavour, binary: Path, args: list[str], inside: str) -> int:
    """Own-code instructions of one run while `inside` a function, summed over its two ranks."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = pinned(
            fl,
            "valgrind",
            "--tool=callgrind",
            f"--toggle-collect={inside}",
            f"--callgrind-out-file={tmp}/profile.%p",
            str(binary),
            *args,
        )
        subprocess.run(cmd, env=fl.env(), capture_output=True, text=True, check=True, timeout=900)
        profiles = sorted(Path(tmp).glob("profile.*"))
        if len(profiles) != 2:
            raise RuntimeError(f"expected a profile per rank, found {len(profiles)}: {' '.join(cmd)}")
        return sum(own_instructions(p, binary) for p in profiles)


def per_iteration(fl: Flavour, binary: Path, args_for, inside: str) -> float:
    lo, hi = (counted(fl, binary, args_for(n), inside) for n in ITERATIONS)
    return (hi - lo) / (ITERATIONS[1] - ITERATIONS[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=8, help="message size in bytes (default 8)")
    ap.add_argument("--bench", choices=sorted(METRIC), action="append")
    args = ap.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        print("instructions.py needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    flavours = load_flavours()
    if not flavours:
        print("no builds in build/flavours.txt: run `make flavours` first", file=sys.stderr)
        return 2
    size = str(args.size)
    print(f"# own-code instructions per iteration, size {size} B, both ranks summed\n")
    print("| library | benchmark | raw loop | commscope | difference |")
    print("|---|---|---:|---:|---:|")
    for fl in flavours.values():
        raw_loops = fl.build / "performance" / "overhead" / "raw_loops"
        for bench in args.bench or sorted(METRIC):
            raw = per_iteration(fl, raw_loops, lambda n: [bench, size, size, str(n)], "main")
            ours = per_iteration(
                fl,
                fl.bench,
                lambda n: [bench, "-m", f"{size}:{size}", "-i", str(n), "-x", "10", "--batch", str(n)],
                "cs_pattern_run",
            )
            print(f"| {fl.name} | {bench} | {raw:.1f} | {ours:.1f} | {ours - raw:+.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
