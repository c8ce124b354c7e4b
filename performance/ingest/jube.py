#!/usr/bin/env python3
"""How reading a JUBE result table grows with its rows: one `osu_bw` size sweep of N
distinct sizes (one run of N points), read at --rows and ten times as many, side by side
(A B A B), reporting each size's fastest time and the ratio. Linear reading gives about
10x; the quadratic reader it replaced gave about 100x.

    .venv/bin/python performance/ingest/jube.py [--rows 4000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from commscope.ingest.parse import parse_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from timing import heading  # noqa: E402


def table(rows: int) -> str:
    head = "nodes,taskspernode,osu_exe,msg_size,size,result\n"
    return head + "".join(f"2,1,osu_bw,{size},{size},1.5\n" for size in range(rows))


def seconds(text: str, rows: int) -> float:
    began = time.perf_counter()
    (run,) = parse_text(text, "long.csv")
    assert len(run.points) == rows
    return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sizes = (args.rows, 10 * args.rows)
    texts = {rows: table(rows) for rows in sizes}
    best = {rows: float("inf") for rows in sizes}
    for _ in range(args.rounds):
        for rows in sizes:
            best[rows] = min(best[rows], seconds(texts[rows], rows))
    print(heading(f"{args.rounds} rounds"))
    for rows in sizes:
        print(f"{rows:>8} rows: {best[rows]:.3f} s")
    print(f"ratio: {best[sizes[1]] / best[sizes[0]]:.1f}x for 10x the rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
