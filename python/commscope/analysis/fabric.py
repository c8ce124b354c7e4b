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
        # Everything below is linear in the switches, however deep the tree: a chain of
        # 3,200 switches took minutes when each switch kept its whole chain of ancestors.
        self._depth = self._depths()
        self._crossed: dict[tuple[int, int], tuple[int, ...]] = {}
        self._below = self._intervals()
        self.width = 2 + 2 * max((depth for depth in self._depth), default=0)

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

    def _depths(self) -> list[int]:
        """Each switch's number of switches above it, each switch walked once; a ValueError
        for a switch that is its own ancestor."""
        depth = [-1] * len(self.switches)
        for start in range(len(self.switches)):
            climb, on_path = [], set()
            current = start
            while current != NO_SWITCH and depth[current] < 0:
                if current in on_path:
                    raise ValueError(f"switch {self.switches[current]} is its own ancestor")
                climb.append(current)
                on_path.add(current)
                current = self.parent[current]
            known = -1 if current == NO_SWITCH else depth[current]
            for switch in reversed(climb):
                known += 1
                depth[switch] = known
        return depth

    def _intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """Each switch's place in a depth-first walk of the trees and the last place below
        it: a switch is below another when its place falls in the other's interval."""
        children: list[list[int]] = [[] for _ in self.switches]
        roots = []
        for switch, up in enumerate(self.parent):
            (roots if up == NO_SWITCH else children[up]).append(switch)
        first = np.zeros(len(self.switches), dtype=np.int64)
        last = np.zeros(len(self.switches), dtype=np.int64)
        order = 0
        for root in roots:
            stack = [(root, False)]
            while stack:
                switch, done = stack.pop()
                if done:
                    last[switch] = order - 1
                    continue
                first[switch] = order
                order += 1
                stack.append((switch, True))
                stack.extend((child, False) for child in reversed(children[switch]))
        return first, last

    def _chain(self, switch: int) -> list[int]:
        """The switch and its ancestors up to the root."""
        chain = [switch]
        while self.parent[chain[-1]] != NO_SWITCH:
            chain.append(self.parent[chain[-1]])
        return chain

    def crossed(self, a_leaf: int, b_leaf: int) -> tuple[int, ...]:
        """The uplinks (as parts) between two leaf switches: up from each to their lowest
        common switch, which neither crosses."""
        key = (a_leaf, b_leaf)
        if key not in self._crossed:
            if a_leaf == b_leaf or NO_SWITCH in key:
                found: tuple[int, ...] = ()  # one leaf; or a host the topology does not place
            else:
                a_side, b_side = [], []
                a, b = a_leaf, b_leaf
                while self._depth[a] > self._depth[b]:
                    a_side.append(a)
                    a = self.parent[a]
                while self._depth[b] > self._depth[a]:
                    b_side.append(b)
                    b = self.parent[b]
                while a != b and self.parent[a] != NO_SWITCH and self.parent[b] != NO_SWITCH:
                    a_side.append(a)
                    b_side.append(b)
                    a, b = self.parent[a], self.parent[b]
                if a != b:  # separate trees: up to each root, whose uplink is none
                    a_side, b_side = self._chain(a_leaf)[:-1], self._chain(b_leaf)[:-1]
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
        under = np.bincount(placed, minlength=len(self.switches)).astype(np.int64)
        for switch in sorted(range(len(self.switches)), key=self._depth.__getitem__, reverse=True):
            if self.parent[switch] != NO_SWITCH:  # deepest first: each adds its whole subtree
                under[self.parent[switch]] += under[switch]
        has_parent = np.array([up != NO_SWITCH for up in self.parent], dtype=bool)
        return has_parent & (under > 0) & (under < placed.size)

    def hosts_under(self, switch: int) -> np.ndarray:
        """The hosts whose leaf is `switch` or below it."""
        first, last = self._below
        placed = self.leaf != NO_SWITCH
        where = first[np.where(placed, self.leaf, 0)]
        return np.flatnonzero(placed & (where >= first[switch]) & (where <= last[switch]))

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
