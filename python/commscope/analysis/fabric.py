"""The parts of a fabric that a slow pair of hosts can be blamed on: each host, and each
switch's uplink (the link to its parent switch) that the pair's traffic crosses.

Hosts are parts 0..n-1; the uplink of switch s is part n + s. A pair of hosts under one
leaf switch crosses no uplink; a pair under different leaves crosses the uplinks from each
leaf up to (not including) their lowest common switch. Without a topology every host is
its own and no uplink exists: a slow pair is its two hosts' (or the link between them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from commscope.records.topology import Topology

#: Where a host sits in no switch the topology names.
NO_SWITCH = -1


@dataclass
class Fabric:
    """`n` hosts, the switches (by name) with their parents, and each host's leaf switch."""

    n: int
    switches: list[str] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)  # per switch: its parent's index, NO_SWITCH for a root
    leaf: np.ndarray = field(default=None)  # per host: its leaf switch's index, NO_SWITCH if none

    def __post_init__(self) -> None:
        if self.leaf is None:
            self.leaf = np.full(self.n, NO_SWITCH, dtype=np.int64)
        self._chains = [self._chain(s) for s in range(len(self.switches))]
        self._crossed: dict[tuple[int, int], tuple[int, ...]] = {}
        self.width = 2 + 2 * max((len(chain) - 1 for chain in self._chains), default=0)

    @classmethod
    def of(cls, hosts: Sequence[str], leaf_of: Mapping[str, str], parent_of: Mapping[str, str | None]) -> Fabric:
        """The fabric of `hosts` (by index) from each host's leaf switch and each switch's parent."""
        names = list(dict.fromkeys([*parent_of, *leaf_of.values()]))
        index = {name: k for k, name in enumerate(names)}
        parent = [index[parent_of[name]] if parent_of.get(name) is not None else NO_SWITCH for name in names]
        leaf = np.array([index[leaf_of[host]] if host in leaf_of else NO_SWITCH for host in hosts], dtype=np.int64)
        return cls(len(hosts), names, parent, leaf)

    @classmethod
    def of_topology(cls, hosts: Sequence[str], topology: Topology) -> Fabric:
        """The fabric of `hosts` under a site's topology (records/topology.py); a host it
        does not name sits under no switch: its pairs blame only hosts."""
        leaf_of = {host: leaf for leaf, members in topology.by_leaf(hosts).items() for host in members}
        parents = {name: topology.parent.get(name) for name in topology.switches}
        return cls.of(hosts, leaf_of, parents)

    @property
    def parts(self) -> int:
        return self.n + len(self.switches)

    @property
    def known(self) -> bool:
        """Whether a topology was given (else every pair is blamed on its hosts alone)."""
        return bool(self.switches)

    def uplink(self, switch: int) -> int:
        return self.n + switch

    def _chain(self, switch: int) -> list[int]:
        """The switch and its ancestors up to the root."""
        chain, seen = [switch], {switch}
        while self.parent[chain[-1]] != NO_SWITCH:
            up = self.parent[chain[-1]]
            if up in seen:
                raise ValueError(f"switch {self.switches[up]} is its own ancestor")
            chain.append(up)
            seen.add(up)
        return chain

    def crossed(self, a_leaf: int, b_leaf: int) -> tuple[int, ...]:
        """The uplinks (as parts) between two leaf switches: up from each to their lowest
        common switch, which neither crosses."""
        key = (a_leaf, b_leaf)
        if key not in self._crossed:
            if a_leaf == b_leaf or NO_SWITCH in key:
                found: tuple[int, ...] = ()  # one leaf; or a host the topology does not place
            else:
                up_b = set(self._chains[b_leaf])
                common = next((s for s in self._chains[a_leaf] if s in up_b), None)
                a_side = (
                    self._chains[a_leaf][: self._chains[a_leaf].index(common)]
                    if common is not None
                    else self._chains[a_leaf][:-1]
                )
                b_side = (
                    self._chains[b_leaf][: self._chains[b_leaf].index(common)]
                    if common is not None
                    else self._chains[b_leaf][:-1]
                )
                found = tuple(self.uplink(s) for s in (*a_side, *b_side))
            self._crossed[key] = found
        return self._crossed[key]

    def paths(self, pairs: np.ndarray) -> np.ndarray:
        """Each pair's parts, a row per pair: its two hosts, then the uplinks it crosses,
        NO_SWITCH where a row has fewer."""
        rows = np.full((len(pairs), self.width), NO_SWITCH, dtype=np.int64)
        rows[:, :2] = pairs
        if self.known:
            leaves = self.leaf[pairs]
            for k, (a_leaf, b_leaf) in enumerate(leaves.tolist()):
                uplinks = self.crossed(a_leaf, b_leaf)
                rows[k, 2 : 2 + len(uplinks)] = uplinks
        return rows

    def crossable(self) -> np.ndarray:
        """Per switch, whether a pair of the hosts can cross its uplink: it has a parent, a
        host under it and a placed host beyond it. A sweep of part of a site (40 hosts of a
        10,000-host topology) reaches only a few; the others' uplinks are out of its verdict."""
        placed = self.leaf[self.leaf != NO_SWITCH]
        per_leaf = np.bincount(placed, minlength=len(self.switches))
        under = np.zeros(len(self.switches), dtype=np.int64)
        for leaf in np.flatnonzero(per_leaf).tolist():
            under[self._chains[leaf]] += per_leaf[leaf]
        has_parent = np.array([up != NO_SWITCH for up in self.parent], dtype=bool)
        return has_parent & (under > 0) & (under < placed.size)

    def hosts_under(self, switch: int) -> np.ndarray:
        """The hosts whose leaf is `switch` or below it."""
        below = [s for s, chain in enumerate(self._chains) if switch in chain]
        return np.flatnonzero(np.isin(self.leaf, below))

    def leaf_groups(self) -> list[tuple[str, list[int]]]:
        """The hosts leaf by leaf, in the topology's order of switches; the hosts it does
        not place last, under "" (a heatmap ordered by switch)."""
        groups = [(name, np.flatnonzero(self.leaf == s).tolist()) for s, name in enumerate(self.switches)]
        unplaced = np.flatnonzero(self.leaf == NO_SWITCH).tolist()
        return [group for group in groups if group[1]] + ([("", unplaced)] if unplaced else [])


def fabric_record(fabric: Fabric | None, hosts: Sequence[str]) -> dict | None:
    """The topology a sweep judged with, as its run's provenance keeps it (each switch's
    parent, each leaf's hosts by name); None without one. locate and all-pairs keep it so."""
    if fabric is None or not fabric.known:
        return None
    leaves: dict[str, list[str]] = {}
    for host, leaf in enumerate(fabric.leaf.tolist()):
        if leaf != NO_SWITCH:
            leaves.setdefault(fabric.switches[leaf], []).append(hosts[host])
    parents = {
        name: fabric.switches[up] if up != NO_SWITCH else None for name, up in zip(fabric.switches, fabric.parent)
    }
    return {"parents": parents, "leaves": leaves}


def fabric_of_record(topology: object, labels: Sequence[str]) -> Fabric | None:
    """The fabric a stored sweep recorded (fabric_record), over its hosts by rank; None: none recorded."""
    if not isinstance(topology, dict):
        return None
    leaf_of = {host: leaf for leaf, hosts in (topology.get("leaves") or {}).items() for host in hosts}
    return Fabric.of(labels, leaf_of, topology.get("parents") or {})
