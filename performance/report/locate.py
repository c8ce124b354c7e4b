#!/usr/bin/env python3
"""How long `commscope report` takes on one locate run of many hosts.

Writes a hostfile of --hosts hosts and a simulated network with two slow hosts, runs
`commscope sweep locate --oracle 'python -m commscope.sweep.simulate NETWORK'` (the real
locate code against the simulator, docs/sweep.md) once per program into a database of its
own, then times `commscope report RUN -o report.html --markdown report.md` --rounds times
per program (alternating, A B A B), with --timeout seconds at most per report, and prints
the wall and CPU time and the peak memory. Target (issue 38): 10,000 hosts within a few
seconds.

    .venv/bin/python performance/report/locate.py [--hosts 10000] [--rounds 3] [--commscope PROG ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "performance"))
from timing import add_programs_option, heading, print_with_peaks, programs, timed  # noqa: E402

SLOW = {"cn00017": 0.5, "cn04242": 0.4}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300)
    add_programs_option(parser)
    args = parser.parse_args()
    harnesses = programs(args)
    with tempfile.TemporaryDirectory(prefix="commscope-locate-report-") as folder:
        root = Path(folder)
        hostfile, network = root / "hosts.txt", root / "network.json"
        hostfile.write_text("".join(f"cn{index:05d}\n" for index in range(args.hosts)))
        network.write_text(json.dumps({"seed": 1, "slow_nodes": SLOW}))
        oracle = f"{sys.executable} -m commscope.sweep.simulate {network}"
        envs, run_ids = {}, {}
        for index, program in enumerate(harnesses):
            envs[program] = {**os.environ, "COMMSCOPE_DB": str(root / f"runs-{index}.db")}
            verdict = root / f"verdict-{index}.json"
            argv = [program, "sweep", "locate", "--hostfile", str(hostfile), "--oracle", oracle, "--seed", "1"]
            wall, _, _ = timed([*argv, "--json", str(verdict)], envs[program], capture_output=True)
            run_ids[program] = str(json.loads(verdict.read_text())["run_id"])
            print(f"{program}: locate of {args.hosts} hosts in {wall:.1f} s")
        results: dict[str, list[tuple[float, float]]] = {program: [] for program in harnesses}
        peaks: dict[str, int] = dict.fromkeys(harnesses, 0)
        for _ in range(args.rounds):
            for program in harnesses:
                argv = ["/usr/bin/time", "-f", "%M", "timeout", str(args.timeout), program, "report"]
                argv += [run_ids[program], "-o", str(root / "r.html"), "--markdown", str(root / "r.md")]
                wall, cpu, done = timed(argv, envs[program], capture_output=True, text=True)
                if done.returncode != 0:
                    print(f"{program}: report did not finish (exit {done.returncode}) in {wall:.0f} s")
                results[program].append((wall, cpu))
                peaks[program] = max(peaks[program], int(done.stderr.strip().splitlines()[-1]))
    print_with_peaks(
        heading(f"report of a locate run of {args.hosts} hosts", f"{args.rounds} rounds"),
        {program: results[program] for program in harnesses},
        peaks,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
