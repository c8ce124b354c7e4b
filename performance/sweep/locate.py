"""`commscope sweep locate` against all-pairs on simulated clusters of 100, 1,000 and
10,000 hosts, with 0, 1, 8 and n/100 bad nodes at 40-75 % speed, 4 % log-normal noise and
transient contention on 1 % of every round's pairs (python/commscope/sweep/simulate.py).

Per configuration, SEEDS runs of the real planner and judge (analysis.locate) against the
simulator in this process: the rounds it took (all-pairs takes n-1, or n for odd n), bad
nodes missed, healthy hosts accused, and the CPU time of planning and judging per round.
Then one end-to-end `commscope sweep locate --oracle` per size (1 % bad nodes): the whole
command's wall time, an oracle process per round and the store included.

    .venv/bin/python performance/sweep/locate.py [--seeds 5] [--sizes 100,1000,10000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
from commscope.analysis.locate import Locator  # noqa: E402
from commscope.analysis.sweep import LocateRules  # noqa: E402
from commscope.sweep.simulate import Network  # noqa: E402

NOISE, CONTENTION = 0.04, 0.01


def planted(n: int, bad: int, seed: int) -> tuple[list[str], set[int], dict]:
    rng = np.random.default_rng([seed, n, bad])
    hosts = [f"cn{i:05d}" for i in range(n)]
    chosen = set(rng.choice(n, bad, replace=False).tolist())
    network = {
        "seed": seed,
        "noise": NOISE,
        "contention": CONTENTION,
        "slow_nodes": {hosts[i]: float(rng.uniform(0.4, 0.75)) for i in chosen},
    }
    return hosts, chosen, network


def simulated(locator: Locator, network: Network, hosts: list[str]) -> list[float]:
    """The locate sweep's rounds measured by the simulated network until it stops; the CPU
    time of planning and judging each round."""
    cpu = [0.0]
    while True:
        start = time.process_time()
        pairs = locator.plan()
        planning = time.process_time() - start
        if locator.stop:
            break
        named = [(hosts[a], hosts[b]) for a, b in pairs]
        values = network.measure(len(locator.rounds) + 1, "bw", named, locator.alone)
        start = time.process_time()
        locator.record(pairs, values)
        cpu.append(planning + time.process_time() - start)
        if locator.stop:
            break
    return cpu


def one_run(n: int, bad: int, seed: int) -> dict:
    hosts, chosen, document = planted(n, bad, seed)
    locator = Locator(n, "bw", LocateRules(), seed=seed)
    cpu = simulated(locator, Network.of(document), hosts)
    verdict = locator.verdict()
    named = {node.host for node in verdict.bad_nodes}
    return {
        "rounds": verdict.rounds,
        "missed": len(chosen - named),
        "accused": len(named - chosen),
        "undecided": len(verdict.undecided),
        "suspect_pairs": len(verdict.suspect_pairs),
        "pairs": verdict.pairs_measured,
        "cpu_per_round": max(cpu),
    }


def end_to_end(n: int, folder: Path) -> tuple[float, dict]:
    hosts, _, document = planted(n, max(1, n // 100), 1)
    network = folder / f"network-{n}.json"
    network.write_text(json.dumps(document))
    hostfile = folder / f"hosts-{n}.txt"
    hostfile.write_text("\n".join(hosts) + "\n")
    out = folder / f"verdict-{n}.json"
    argv = [
        sys.executable,
        "-m",
        "commscope",
        "sweep",
        "locate",
        "--hostfile",
        str(hostfile),
        "--oracle",
        f"{sys.executable} -m commscope.sweep.simulate {network}",
        "--seed",
        "1",
        "--json",
        str(out),
        "--db",
        str(folder / "locate.db"),
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    start = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if result.returncode not in (0, 1):
        raise SystemExit(result.stderr)
    return wall, json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--sizes", default="100,1000,10000")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print(
        "| hosts | bad nodes | locate rounds (max of seeds) | all-pairs rounds | pairs measured | "
        "missed | healthy accused | undecided | suspect pairs | plan+judge CPU per round (max) |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        for bad in dict.fromkeys((0, 1, 8, n // 100)):
            runs = [one_run(n, bad, seed) for seed in range(args.seeds)]
            rounds = sorted(run["rounds"] for run in runs)
            print(
                f"| {n:,} | {bad} | {', '.join(map(str, rounds))} (max {rounds[-1]}) | {n - 1 if n % 2 == 0 else n:,} "
                f"| {max(run['pairs'] for run in runs):,} | {sum(run['missed'] for run in runs)} "
                f"| {sum(run['accused'] for run in runs)} | {sum(run['undecided'] for run in runs)} "
                f"| {max(run['suspect_pairs'] for run in runs)} "
                f"| {max(run['cpu_per_round'] for run in runs) * 1000:.1f} ms |"
            )
    print()
    print("| hosts | bad nodes | rounds | bad nodes named | `commscope sweep locate --oracle` wall time |")
    print("|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            wall, verdict = end_to_end(n, Path(folder))
            print(f"| {n:,} | {max(1, n // 100)} | {verdict['rounds']} | {len(verdict['bad_nodes'])} | {wall:.2f} s |")


if __name__ == "__main__":
    main()
