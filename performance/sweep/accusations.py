"""How often `commscope sweep locate` names a healthy part, and how often it names a bad one,
on the simulator (python/commscope/sweep/simulate.py) with the default rules: 6, 16, 64 and
1,000 hosts under log-normal noise and under bursty noise (bursts that hit a host for one
pair, preemption-like outliers), SWEEPS healthy sweeps each, and a host at SLOW of a healthy
pair's speed in FOUND sweeps each. The rounds each took count its confirmation rounds.

Per case: sweeps that named anything (false accusations), hosts and switches named in all,
the rounds (median, most), sweeps that ended certain; for the bad host, the sweeps that
named it and no other part.

    .venv/bin/python performance/sweep/accusations.py [--sweeps 1000] [--found 100] [--sizes 6,16,64,1000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
from commscope.analysis.locate import Locator  # noqa: E402
from commscope.analysis.locate_verdict import CERTAIN  # noqa: E402
from commscope.analysis.sweep import LocateRules  # noqa: E402
from commscope.sweep.simulate import Network  # noqa: E402

#: The noise models: the simulator's log-normal with transient contention, and the same with
#: bursts (each host of a pair descheduled in 3 % of pairs, the pair at 20-70 %) and outliers
#: (1 % of pairs preempted outright, at 2-20 %); and what a loaded 2-core machine shows
#: (tests/cluster, performance/sweep/busy_cluster.py): a wide, heavy-tailed spread.
NOISE = {
    "log-normal": {"noise": 0.08, "contention": 0.05},
    "bursty": {"noise": 0.08, "contention": 0.05, "bursts": 0.03, "outliers": 0.01},
    "busy cores": {"noise": 0.35, "noise_dof": 4, "contention": 0.1, "bursts": 0.05, "outliers": 0.02},
    "virtual cluster": {"noise": 0.6, "noise_dof": 4, "contention": 0.05, "bursts": 0.02},
}
#: The bad host's speed, as a share of a healthy pair's.
SLOW = 0.5


def one_sweep(n: int, network: dict, seed: int, rules: LocateRules) -> tuple:
    hosts = [f"cn{i:05d}" for i in range(n)]
    verdict = Network.of({"seed": seed, **network}).locate(Locator(n, "bw", rules, seed=seed), hosts)
    named = {hosts[node.host] for node in verdict.bad_nodes} | {s.switch for s in verdict.bad_switches}
    return named, verdict.rounds, verdict.stop == CERTAIN


def case(n: int, noise: str, sweeps: int, found: int, rules: LocateRules, slow: float = SLOW) -> str:
    start = time.process_time()
    healthy = [one_sweep(n, NOISE[noise], seed, rules) for seed in range(sweeps)]
    accused = sum(1 for named, _, _ in healthy if named)
    parts = sum(len(named) for named, _, _ in healthy)
    rounds = [r for _, r, _ in healthy]
    certain = sum(c for *_, c in healthy)
    bad = f"cn{n // 2:05d}"
    hits = [one_sweep(n, {**NOISE[noise], "slow_nodes": {bad: slow}}, 10**6 + seed, rules) for seed in range(found)]
    named_alone = sum(1 for named, _, _ in hits if named == {bad})
    hit_rounds = [r for _, r, _ in hits]
    return (
        f"| {n:,} | {noise} | {sweeps:,} | {accused} | {parts} | {statistics.median(rounds):g} ({max(rounds)}) "
        f"| {certain:,} | {named_alone}/{found} | {statistics.median(hit_rounds) if hits else 0:g} "
        f"({max(hit_rounds) if hits else 0}) | {time.process_time() - start:.0f} s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sweeps", type=int, default=1000, help="healthy sweeps per case")
    parser.add_argument("--found", type=int, default=100, help="sweeps with a bad host per case")
    parser.add_argument("--sizes", default="6,16,64,1000")
    parser.add_argument("--noise", default="log-normal,bursty", help=f"of: {', '.join(NOISE)}")
    parser.add_argument("--slow", type=float, default=SLOW, help="the bad host's share of a healthy pair's speed")
    args = parser.parse_args()
    print(
        "| hosts | noise | healthy sweeps | naming anything | parts named | rounds: median (most) | certain "
        f"| host at {args.slow:.0%} named alone | its rounds: median (most) | CPU |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in (int(size) for size in args.sizes.split(",")):
        for noise in args.noise.split(","):
            print(case(n, noise, args.sweeps, args.found, LocateRules(), args.slow), flush=True)


if __name__ == "__main__":
    main()
