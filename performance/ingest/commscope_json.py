#!/usr/bin/env python3
"""How long `commscope import` takes for one large commscope-bench JSON document.

Writes the document of an all-pairs link sweep (the core's golden `pairs` output,
tests/c/golden/pairs.json, its records repeated over as many pairs of ranks as make
--mb megabytes, a latency and a bandwidth record per pair), then imports it --rounds times
into a new database with each commscope program given (--commscope, repeatable: the
harness of two checkouts, say), A B A B so that the machine's load falls on each alike.
Wall and CPU seconds of each import (its own process), fastest and median.

    .venv/bin/python performance/ingest/commscope_json.py [--mb 28] [--rounds 3] [--commscope PROG ...]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "performance"))
from timing import add_programs_option, heading, programs, summary, timed  # noqa: E402

GOLDEN = REPO / "tests" / "c" / "golden" / "pairs.json"


def document(megabytes: float) -> str:
    """The golden pairs document with its records repeated over many pairs: one record a
    line, as the core writes them, about `megabytes` MB in all."""
    golden = json.loads(GOLDEN.read_text())
    latency, bandwidth = (next(r for r in golden["results"] if r["pair"]["metric"] == m) for m in ("latency", "bw"))
    head = {key: value for key, value in golden.items() if key not in ("results", "end_time", "status")}
    records: list[str] = []
    size, pair = 0, 0
    while size < megabytes * 1e6:
        src, dst = divmod(pair, 997)  # every pair of ranks once: (src, dst) never repeats
        for template in (latency, bandwidth):
            record = copy.deepcopy(template)
            record["pair"].update(src=src, dst=dst + src + 1, round=pair // 500, slot=pair % 500)
            record["pair"]["src_host"], record["pair"]["dst_host"] = f"node{src}", f"node{dst + src + 1}"
            record["stats"]["mean"] *= 1 + pair % 7 / 100
            records.append(json.dumps(record, separators=(",", ":")))
            size += len(records[-1]) + 2
        pair += 1
    head["options"]["scheduled_pairs"] = pair
    text = json.dumps(head, separators=(",", ":"))[:-1]
    tail = {key: golden[key] for key in ("end_time", "status")}
    return text + ',"results":[\n' + ",\n".join(records) + "\n]," + json.dumps(tail, separators=(",", ":"))[1:] + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=28)
    parser.add_argument("--rounds", type=int, default=3)
    add_programs_option(parser)
    args = parser.parse_args()
    harnesses = programs(args)
    with tempfile.TemporaryDirectory(prefix="commscope-json-bench-") as folder:
        path = Path(folder) / "pairs.json"
        path.write_text(document(args.mb))
        print(f"{path.stat().st_size / 1e6:.1f} MB, {path.read_text().count(chr(10))} lines")
        times: dict[str, list[tuple[float, float]]] = {program: [] for program in harnesses}
        for round_ in range(args.rounds):
            for index, program in enumerate(harnesses):
                env = {**os.environ, "COMMSCOPE_DB": str(Path(folder) / f"runs-{round_}-{index}.db")}
                wall, cpu, _ = timed([program, "import", str(path)], env, check=True, capture_output=True)
                times[program].append((wall, cpu))
    print(heading(f"{args.rounds} rounds"))
    for program, measured in times.items():
        print(summary(program, measured))
    print(f"load average: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
