#!/usr/bin/env python3
"""`commscope history --hosts` over a month of nightly sweeps of many hosts: how long, how
much memory, and what it names.

Timing (the default): stores --nights sweeps of --hosts hosts in a new database, each its
own invocation a day apart, as the nightly loop stores them: --rounds-a-night rounds of
disjoint random pairs (10 rounds of 10,000 hosts: 50,000 pairs a sweep), values from the
simulator (commscope.sweep.simulate: 4 % noise, 1 % of pairs contended), every host healthy
unless --slow-from says one host is 12 % slower from that night on. Then times the whole
command `commscope history --hosts` --repeat times (wall, CPU, peak memory from
/usr/bin/time) and says what it named. Target: under 10 s and 1 GiB for 30 nights of
10,000 hosts.

Power (--months N): N simulated months of the analysis alone (no store), one pair a host a
night: how often a host slower by --factor over the last half of the nights is named, how
often it is named alone, and over --null-months months of healthy hosts how many name any.

    .venv/bin/python performance/history/hosts.py [--hosts 10000] [--nights 30] [--repeat 3] [--keep DB]
    .venv/bin/python performance/history/hosts.py --months 200 --hosts 240 --nights 12 --factor 0.88
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "performance"))
from timing import THIS_CHECKOUT, heading, summary, timed  # noqa: E402

from commscope.analysis.check import Policy  # noqa: E402
from commscope.analysis.host_history import HOST, TOLERANCE, many, matrix, sweep_pairs  # noqa: E402
from commscope.records.invocation import invocation  # noqa: E402
from commscope.records.run import Pair, Point, Run  # noqa: E402
from commscope.store.db import Store  # noqa: E402
from commscope.sweep.simulate import Network  # noqa: E402

SLOW_HOST = 117


def names(hosts: int) -> list[str]:
    return [f"cn{index:05d}" for index in range(hosts)]


def night_pairs(night: int, hosts: int, rounds: int, slow_from: int | None, factor: float):
    """One night's rounds of disjoint random pairs: ranks and simulated bandwidths."""
    hostnames = names(hosts)
    slow = {hostnames[SLOW_HOST]: factor} if slow_from is not None and night >= slow_from else {}
    network = Network(seed=1000 + night, slow_nodes=slow)
    rng = np.random.default_rng(night)
    found = []
    for number in range(rounds):
        pairs = rng.permutation(hosts)[: hosts - hosts % 2].reshape(-1, 2)
        values = network.measure(number, "bw", [(hostnames[a], hostnames[b]) for a, b in pairs])
        found.append((number, pairs, values))
    return found


def fill(db: Path, hosts: int, nights: int, rounds: int, slow_from: int | None) -> None:
    hostnames = names(hosts)
    rank_list = [{"name": name, "ranks": [rank]} for rank, name in enumerate(hostnames)]
    with Store(db) as store:
        for night in range(1, nights + 1):
            points = [
                Point(None, {"bandwidth_MBps": float(value)},
                      pair=Pair(int(a), int(b), "bw", hostnames[a], hostnames[b], round=number, slot=slot))
                for number, pairs, values in night_pairs(night, hosts, rounds, slow_from, 0.88)
                for slot, ((a, b), value) in enumerate(zip(pairs, values))
            ]  # fmt: skip
            start = datetime.datetime(2026, 1, 1, 2, tzinfo=datetime.timezone.utc) + datetime.timedelta(days=night)
            run = Run(
                "pairs", label="nightly", system="cluster", ranks=hosts, nodes=hosts, hosts=rank_list,
                started_at=start.isoformat(), points=points,
                provenance={"sweep": {"mode": "locate", "locate": {"metric": "bw"}}},
            )  # fmt: skip
            store.add_run(run, store.add_invocation(invocation("sweep", ["commscope", "sweep", "locate"])))


def timing(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="commscope-host-history-") as folder:
        db = Path(args.keep) if args.keep else Path(folder) / "nights.db"
        if not db.exists():
            started = time.perf_counter()
            fill(db, args.hosts, args.nights, args.rounds_a_night, args.slow_from)
            print(f"stored {args.nights} sweeps of {args.hosts} hosts in {time.perf_counter() - started:.0f} s")
        argv = ["/usr/bin/time", "-f", "%M", THIS_CHECKOUT, "history", "--hosts", "--db", str(db)]
        measured, peak, done = [], 0, None
        for _ in range(args.repeat):
            wall, cpu, done = timed(argv, dict(os.environ), capture_output=True, text=True)
            measured.append((wall, cpu))
            peak = max(peak, int(done.stderr.strip().splitlines()[-1]))
        pairs = args.hosts // 2 * args.rounds_a_night
        print(heading(f"history --hosts over {args.nights} sweeps of {args.hosts} hosts ({pairs} pairs each)"))
        print(f"{summary('history --hosts', measured)}; peak memory {peak / 1024:.0f} MiB")
        print(f"load average: {os.getloadavg()[0]:.1f}; exit {done.returncode}; {done.stdout.splitlines()[0]}")


def power(args: argparse.Namespace) -> None:
    hostnames = names(args.hosts)
    slow_from = args.nights - args.nights // 2 + 1
    policy = Policy(TOLERANCE)

    def month(seed: int, slow: bool):
        sweeps = []
        for night in range(1, args.nights + 1):
            run = Run("pairs", id=night, started_at=f"{night:04d}", invocation_id=night)
            [(_, pairs, values)] = night_pairs(seed * 1000 + night, args.hosts, 1, None, 1.0)
            if slow and night >= slow_from:  # the slow host's pair at its speed (the slower part of a pair)
                values = np.where((pairs == SLOW_HOST).any(axis=1), values * args.factor, values)
            sweeps.append(sweep_pairs(run, hostnames, pairs[:, 0], pairs[:, 1], values))
        return [series.subject for series in many(matrix(sweeps, "bw", HOST), policy).series]

    named = [month(seed, True) for seed in range(args.months)]
    hits = sum(hostnames[SLOW_HOST] in found for found in named)
    alone = sum(found == [hostnames[SLOW_HOST]] for found in named)
    healthy = [month(10**6 + seed, False) for seed in range(args.null_months)]
    print(heading(f"history --hosts power: {args.hosts} hosts, {args.nights} nights, one pair a host a night"))
    print(
        f"a host at {args.factor:g} of its speed from night {slow_from}: named in {hits} of {args.months} months, "
        f"alone in {alone}; healthy months naming any host: {sum(map(bool, healthy))} of {args.null_months}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=10000)
    parser.add_argument("--nights", type=int, default=30)
    parser.add_argument("--rounds-a-night", type=int, default=10)
    parser.add_argument("--slow-from", type=int, help="one host 12 %% slower from this night on (default: none)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", metavar="DB", help="store the sweeps in DB and keep it (reused when it exists)")
    parser.add_argument("--months", type=int, help="measure the power over this many simulated months instead")
    parser.add_argument("--null-months", type=int, default=20)
    parser.add_argument("--factor", type=float, default=0.88)
    args = parser.parse_args()
    power(args) if args.months else timing(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
