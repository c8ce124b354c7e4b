"""`commscope sweep locate` against faults that real fabrics have, on the simulator
(python/commscope/sweep/simulate.py): leaf switches of 40 hosts under a spine, a bad uplink,
a bad node beside it, one node 10, 15 or 20 % slow under 4 % and 8 % measurement noise, and
healthy sweeps under 8 % noise with 5 % transient contention.

Per scenario and size, SEEDS runs of the real planner and judge (analysis.locate) in this
process: the rounds taken, the pairs measured, whether every planted fault was named
(found), what was named that is healthy (falsely accused: hosts and switches), how many
sweeps ended certain, and the CPU time of planning and judging per round (the largest).

    .venv/bin/python performance/sweep/fabric.py [--seeds 10] [--healthy-seeds 100] [--sizes 1000,10000]
        [--small-seeds 40]   # also the virtual cluster's eight hosts under leaves of 3, 3 and 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
from locate import simulated  # noqa: E402  (performance/sweep/locate.py, beside this script)

from commscope.analysis.fabric import Fabric  # noqa: E402
from commscope.analysis.locate import Locator  # noqa: E402
from commscope.analysis.locate_verdict import CERTAIN  # noqa: E402
from commscope.analysis.sweep import LocateRules  # noqa: E402
from commscope.sweep.simulate import Network  # noqa: E402

LEAF = 40


def one_sweep(
    n: int, faults: dict, noise: float, contention: float, seed: int, rules: LocateRules, leaf: int = LEAF
) -> dict:
    hosts = [f"cn{i:05d}" for i in range(n)]
    leaves = {f"leaf{k:03d}": hosts[start : start + leaf] for k, start in enumerate(range(0, n, leaf))}
    leaf_of = {host: leaf for leaf, members in leaves.items() for host in members}
    fabric = Fabric.of(hosts, leaf_of, {**dict.fromkeys(leaves, "spine"), "spine": None})
    network = Network.of({"seed": seed, "noise": noise, "contention": contention, "leaves": leaves, **faults})
    locator = Locator(n, "bw", rules, seed=seed, fabric=fabric)
    cpu = simulated(locator, network, hosts)
    verdict = locator.verdict()
    named = {hosts[node.host] for node in verdict.bad_nodes} | {found.switch for found in verdict.bad_switches}
    planted = set(faults.get("slow_nodes", {})) | set(faults.get("bad_uplinks", {}))
    return {
        "rounds": verdict.rounds,
        "pairs": verdict.pairs_measured,
        "found": planted <= named,
        "accused": len(named - planted),
        "certain": verdict.stop == CERTAIN,
        "limit": verdict.detection_limit,
        "cpu": max(cpu),
    }


def scenarios(n: int) -> list[tuple[str, dict, float, float, LocateRules]]:
    node = f"cn{n // 2 + 17:05d}"
    found = [
        ("bad uplink (leaf003 at 50 %)", {"bad_uplinks": {"leaf003": 0.5}}, 0.04, 0.01, LocateRules()),
        (
            "bad node (50 %) + bad uplink",
            {"slow_nodes": {node: 0.5}, "bad_uplinks": {"leaf003": 0.5}},
            0.04,
            0.01,
            LocateRules(),
        ),
    ]
    for noise, contention in ((0.04, 0.01), (0.08, 0.05)):
        for slow in (0.10, 0.15, 0.20):
            label = f"one node {slow:.0%} slow, {noise:.0%} noise, {contention:.0%} contention, --detect {slow:.0%}"
            found.append((label, {"slow_nodes": {node: 1 - slow}}, noise, contention, LocateRules(detect=slow)))
    found.append(
        (
            "one node 15% slow, 8% noise, 5% contention, --detect 15%, 16 rounds at most",
            {"slow_nodes": {node: 0.85}},
            0.08,
            0.05,
            LocateRules(detect=0.15, max_rounds=16),
        )
    )
    return found


#: The virtual cluster's fabric of tests/cluster/test_locate_fabric.py: eight hosts under
#: leaves of 3, 3 and 2, a fault at 5 % of a healthy pair, --detect 80.
SMALL = 8
SMALL_LEAF = 3
SMALL_RULES = LocateRules(detect=0.8)


def small_scenarios() -> list[tuple[str, dict, float]]:
    found = []
    for noise in (0.1, 0.3, 0.5, 0.7):
        found.append(
            (f"bad uplink (leaf000 at 5 %), {noise:.0%} noise, --detect 80%", {"bad_uplinks": {"leaf000": 0.05}}, noise)
        )
        found.append((f"bad node (5 %), {noise:.0%} noise, --detect 80%", {"slow_nodes": {"cn00004": 0.05}}, noise))
    return found


def row(label: str, n: int, runs: list[dict]) -> str:
    rounds = sorted(run["rounds"] for run in runs)
    limits = [run["limit"] for run in runs if run["limit"] is not None]
    limit = f"{max(limits):.0%}" if len(limits) == len(runs) else "not reached in some"
    return (
        f"| {label} | {n:,} | {len(runs)} | {rounds[0]}-{rounds[-1]} | {max(run['pairs'] for run in runs):,} "
        f"| {sum(run['found'] for run in runs)}/{len(runs)} | {sum(run['accused'] for run in runs)} "
        f"| {sum(run['certain'] for run in runs)}/{len(runs)} | {limit} "
        f"| {max(run['cpu'] for run in runs) * 1000:.0f} ms |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--healthy-seeds", type=int, default=100)
    parser.add_argument("--sizes", default="1000,10000", help="host counts, comma-separated ('' for none)")
    parser.add_argument("--small-seeds", type=int, default=0, help="also the eight-host fabric, this many seeds a row")
    args = parser.parse_args()
    print(
        "| scenario | hosts | sweeps | rounds | pairs (max) | found | falsely accused | certain "
        "| detection limit (worst) | plan+judge CPU per round (max) |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for n in [int(size) for size in args.sizes.split(",") if size]:
        for label, faults, noise, contention, rules in scenarios(n):
            runs = [one_sweep(n, faults, noise, contention, seed, rules) for seed in range(args.seeds)]
            print(row(label, n, runs), flush=True)
        healthy = [one_sweep(n, {}, 0.08, 0.05, seed, LocateRules()) for seed in range(args.healthy_seeds)]
        print(row("healthy, 8% noise, 5% contention", n, healthy), flush=True)
    for label, faults, noise in small_scenarios() if args.small_seeds else ():
        runs = [one_sweep(SMALL, faults, noise, 0.0, seed, SMALL_RULES, SMALL_LEAF) for seed in range(args.small_seeds)]
        print(row(label, SMALL, runs), flush=True)


if __name__ == "__main__":
    main()
