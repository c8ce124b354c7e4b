#!/usr/bin/env python3
"""How `commscope report --all` scales with the number of runs stored.

Writes --runs OMB output files (latency, bw, mbw_mr and bcast layouts in turn, the
files of performance/ingest), imports them into a new database with one label, and
times `commscope report --all` over it --rounds times, reporting the fastest and the
median wall and CPU time and the peak memory (maximum resident set size) of the command.
Given several commscope programs (--commscope, repeatable: the harness of two
checkouts, say), each imports the files into a database of its own and they alternate
round by round, so that they are compared side by side on a shared machine. Target: 500 runs in under 3 s.

    .venv/bin/python performance/report/run.py [--runs 500] [--rounds 3] [--commscope PROG ...]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "performance" / "ingest"))
sys.path.insert(0, str(REPO / "performance"))
from run import omb_table  # noqa: E402  (the ingest benchmark's OMB files)
from timing import add_programs_option, heading, print_with_peaks, programs, timed  # noqa: E402

KINDS = ("latency", "bw", "mbw_mr", "bcast")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    add_programs_option(parser)
    args = parser.parse_args()
    harnesses = programs(args)
    rng = random.Random(1)
    with tempfile.TemporaryDirectory(prefix="commscope-report-bench-") as folder:
        root = Path(folder)
        files = []
        for index in range(args.runs):
            path = root / f"{index:05d}-{KINDS[index % len(KINDS)]}.out"
            path.write_text(omb_table(KINDS[index % len(KINDS)], rng))
            files.append(str(path))
        envs = {}
        for index, program in enumerate(harnesses):  # each imports into a database of its own schema
            envs[program] = {**os.environ, "COMMSCOPE_DB": str(root / f"runs-{index}.db")}
            subprocess.run(
                [program, "import", *files, "--label", "bench"], env=envs[program], check=True, capture_output=True
            )
        results: dict[str, list[tuple[float, float]]] = {program: [] for program in harnesses}
        peaks: dict[str, int] = dict.fromkeys(harnesses, 0)
        for _ in range(args.rounds):
            for program in harnesses:  # A B A B: the machine's load falls on each alike
                env = envs[program]
                argv = [program, "report", "--all", "-o", str(root / "report.html")]
                wall, cpu, _ = timed(argv, env, check=True, stdout=subprocess.DEVNULL)
                results[program].append((wall, cpu))
                # each child's own peak: measured alone, since RUSAGE_CHILDREN keeps the largest
                usage = subprocess.run(
                    ["/usr/bin/time", "-f", "%M", program, "report", "--all", "-o", str(root / "report.html")],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                peaks[program] = max(peaks[program], int(usage.stderr.strip().splitlines()[-1]))
    print_with_peaks(
        heading(f"{args.runs} runs", f"{args.rounds} rounds"),
        {program: results[program] for program in harnesses},
        peaks,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
