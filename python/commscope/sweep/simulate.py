"""A simulated network for `commscope sweep locate --oracle`: the tests and
performance/sweep/locate.py run the real locate code against it, and a site can write its
own in the same protocol.

    python -m commscope.sweep.simulate NETWORK.json < round.json > values.json

The network file says what is wrong; every key is optional:

    {"seed": 1,                      # the same seed and round give the same values
     "base": {"bw": 12000, "bibw": 20000, "latency": 1.5},
     "noise": 0.04,                  # log-normal: sigma of the log of every value
     "noise_dof": null,              # a number: the log noise a Student-t of these degrees of freedom
     "contention": 0.01,             # share of each round's pairs slowed for that round only
     "contention_factor": [0.3, 0.8],
     "bursts": 0.0,                  # per pair, each host's chance of a burst (descheduled, a daemon
     "burst_factor": [0.2, 0.7],     #   waking) that slows that one pair by such a factor
     "outliers": 0.0,                # share of pairs preempted outright, slowed by such a factor
     "outlier_factor": [0.02, 0.2],
     "slow_nodes": {"cn00017": 0.5}, # a host's speed: every pair of it at 50 %
     "bad_links": [["cn00001", "cn00002", 0.3]],
     "leaves": {"leaf01": ["cn00000", ...], ...},   # leaf switches under one spine
     "bad_uplinks": {"leaf03": 0.5},  # a leaf's uplink: every pair across it at 50 %
     "dead": {"cn00042": "SIGSEGV"},  # its MPI dies at start, every launch
     "hung": ["cn00077"]}             # its MPI hangs at start, every launch

A round (stdin) is {"round": 1, "metric": "bw", "pairs": [["cn00001", "cn00417"], ...],
"hosts": [...]}; the answer (stdout) {"values": [["cn00001", "cn00417", 11873.2], ...]}: MB/s
for bw and bibw, microseconds for latency. A pair runs at the speed of the slowest part it
crosses (its two hosts and, between different leaves, both leaves' uplinks) times its
link's factor; contention, bursts, outliers and noise change from round to round, faults do
not. A round with "alone": true (locate's confirmation round) is measured one pair at a
time: no contention from the other pairs, but bursts and outliers (the hosts' own) all the
same. A launch over `hosts` (one rank each, in rank order) with a dead or hung host among
them fails as a launch of the core would show it (sweep/oracle.py): {"failed": {"dead":
[{"host", "rank", "signal"}, ...]}} for each dead host, else {"failed": {"started": [the
others]}}, or `"started": null` where rank 0's host hangs. A start-up probe {"probe": [HOST,
...]} is answered {"started": true} or a "failed" of the same kind.
"""

from __future__ import annotations

import json
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from commscope.errors import UsageError
from commscope.records.inputs import read_text

BASE = {"bw": 12000.0, "bibw": 20000.0, "latency": 1.5}


@dataclass
class Network:
    seed: int = 0
    base: dict[str, float] = field(default_factory=lambda: dict(BASE))
    noise: float = 0.04
    noise_dof: float | None = None
    contention: float = 0.01
    contention_factor: tuple[float, float] = (0.3, 0.8)
    bursts: float = 0.0
    burst_factor: tuple[float, float] = (0.2, 0.7)
    outliers: float = 0.0
    outlier_factor: tuple[float, float] = (0.02, 0.2)
    slow_nodes: dict[str, float] = field(default_factory=dict)
    bad_links: dict[frozenset, float] = field(default_factory=dict)
    leaf_of: dict[str, str] = field(default_factory=dict)
    bad_uplinks: dict[str, float] = field(default_factory=dict)
    dead: dict[str, str] = field(default_factory=dict)  # host: the signal its ranks die by at start
    hung: frozenset[str] = frozenset()

    @classmethod
    def of(cls, document: dict) -> Network:
        links = {frozenset((a, b)): float(factor) for a, b, factor in document.get("bad_links", [])}
        return cls(
            seed=int(document.get("seed", 0)),
            base={**BASE, **document.get("base", {})},
            noise=float(document.get("noise", 0.04)),
            noise_dof=None if document.get("noise_dof") is None else float(document["noise_dof"]),
            contention=float(document.get("contention", 0.01)),
            contention_factor=tuple(document.get("contention_factor", (0.3, 0.8))),
            bursts=float(document.get("bursts", 0.0)),
            burst_factor=tuple(document.get("burst_factor", (0.2, 0.7))),
            outliers=float(document.get("outliers", 0.0)),
            outlier_factor=tuple(document.get("outlier_factor", (0.02, 0.2))),
            slow_nodes={host: float(speed) for host, speed in document.get("slow_nodes", {}).items()},
            bad_links=links,
            leaf_of={host: leaf for leaf, hosts in document.get("leaves", {}).items() for host in hosts},
            bad_uplinks={leaf: float(speed) for leaf, speed in document.get("bad_uplinks", {}).items()},
            dead={host: str(signal) for host, signal in document.get("dead", {}).items()},
            hung=frozenset(document.get("hung", [])),
        )

    def failed(self, hosts: Sequence[str]) -> dict | None:
        """How a launch over `hosts` (rank order) fails at start; None when it starts."""
        dead = [host for host in hosts if host in self.dead]
        if dead:  # as srun says it: each task that died, by its signal
            return {
                "dead": [{"host": host, "rank": list(hosts).index(host), "signal": self.dead[host]} for host in dead]
            }
        if self.hung.isdisjoint(hosts):
            return None
        return {"started": None if hosts[0] in self.hung else [host for host in hosts if host not in self.hung]}

    def measure(
        self, round_number: int, metric: str, pairs: Sequence[Sequence[str]], alone: bool = False
    ) -> np.ndarray:
        """The values of a round's pairs, in their order; `alone`: one pair at a time."""
        rng = np.random.default_rng([self.seed, round_number, zlib.crc32(metric.encode())])
        k = len(pairs)
        speed = np.array([self._speed(a, b) for a, b in pairs], dtype=np.float64).reshape(k)
        noise = rng.standard_t(self.noise_dof, k) if self.noise_dof is not None else rng.normal(0.0, 1.0, k)
        speed *= np.exp(self.noise * noise)
        # in the order drawn before bursts and outliers were: a seed's values stay as they were
        busy = (rng.random(k) < self.contention) & (not alone)
        speed[busy] *= rng.uniform(*self.contention_factor, int(busy.sum()))
        if self.bursts or self.outliers:  # a stream of their own: the same alone or not
            hosts = np.random.default_rng([self.seed, round_number, zlib.crc32(metric.encode()), 1])
            burst = (hosts.random((k, 2)) < self.bursts).any(axis=1)
            burst_factor = hosts.uniform(*self.burst_factor, k)
            outlier = hosts.random(k) < self.outliers
            outlier_factor = hosts.uniform(*self.outlier_factor, k)
            speed *= np.where(burst, burst_factor, 1.0) * np.where(outlier, outlier_factor, 1.0)
        base = self.base[metric]
        return base / speed if metric == "latency" else base * speed

    def locate(self, locator, hosts: Sequence[str], metric: str = "bw"):
        """A Locator's rounds (analysis.locate) measured by this network, in this process,
        until it stops; its verdict (the tests' and benchmarks' sweeps, without an oracle)."""
        while True:
            pairs = locator.plan()
            if locator.stop:
                break
            named = [(hosts[a], hosts[b]) for a, b in pairs]
            locator.record(pairs, self.measure(len(locator.rounds) + 1, metric, named, locator.alone))
            if locator.stop:
                break
        return locator.verdict()

    def _speed(self, a: str, b: str) -> float:
        """The pair's speed without noise: its slowest part, times its link's factor."""
        parts = [self.slow_nodes.get(a, 1.0), self.slow_nodes.get(b, 1.0)]
        leaf_a, leaf_b = self.leaf_of.get(a), self.leaf_of.get(b)
        if leaf_a != leaf_b:
            parts += [self.bad_uplinks.get(leaf_a, 1.0), self.bad_uplinks.get(leaf_b, 1.0)]
        return min(parts) * self.bad_links.get(frozenset((a, b)), 1.0)


def answer(network: Network, request: dict) -> dict:
    if "probe" in request:
        failed = network.failed(request["probe"])
        return {"started": True} if failed is None else {"failed": failed}
    pairs = request["pairs"]
    failed = network.failed(request.get("hosts") or list(dict.fromkeys(host for pair in pairs for host in pair)))
    if failed is not None:
        return {"failed": failed}
    values = network.measure(int(request["round"]), request["metric"], pairs, bool(request.get("alone", False)))
    return {"values": [[a, b, round(float(v), 4)] for (a, b), v in zip(pairs, values)]}


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m commscope.sweep.simulate NETWORK.json < round.json", file=sys.stderr)
        return 2
    try:
        network = Network.of(json.loads(read_text(Path(argv[0]), "network file")))
    except UsageError as exc:  # names the file: missing, too large, a pipe, not UTF-8
        print(f"error: {exc}", file=sys.stderr)
        return 2
    json.dump(answer(network, json.load(sys.stdin)), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
