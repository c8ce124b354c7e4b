"""An all-pairs sweep judged with the fabric's topology (analysis/fabric.py): a switch whose
uplink is bad, named as the switch, instead of every host under it as a bad node.

A bad uplink makes the hosts under a switch fine with each other and slow with every host
elsewhere; each of them is slow with most partners, so the host rules alone name them all.
Here, per metric, before the retest:

1. The reference is the pairs inside leaf switches (they cross no uplink), leaving out the
   node candidates: the healthy pairs a slow uplink cannot have touched.
2. A switch with an uplink and two hosts or more is a candidate when the median of its
   pairs across its uplink is worse than that reference (the metric's rule, as a pair is
   judged) and the median of its pairs inside it is not. Candidates are named one at a
   time, the one with the largest share of slow pairs across first; the pairs across an
   uplink named already no longer count for the others (a healthy leaf is slow with the
   hosts of a bad one, and only with them). A candidate left with no pair of its own to
   judge cannot be told apart from the switch that explained it: it is named with it
   (`alike`: two leaves under one spine look the same whichever uplink is bad).
3. A node candidate under a candidate switch whose pairs inside the switch are fine is the
   switch's, not a bad node; a suspect pair across a candidate's uplink is the switch's.
4. The retest measures a few pairs across each candidate alone: still slow, the switch is
   named; fine alone, its pairs were contention (an oversubscribed fabric under the
   sweep's load) and are cleared like any pair.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from commscope.analysis.fabric import NO_SWITCH, Fabric
from commscope.analysis.sweep import (
    HIGHER_IS_WORSE,
    NAME,
    UNIT,
    Cleared,
    MetricRule,
    Population,
    Suspects,
    number,
    population,
    worse,
)

Pair = tuple[int, int]
#: Fewer pairs inside leaves than this and the reference is all pairs touching no node candidate.
LEAST_REFERENCE = 3


@dataclass(frozen=True)
class SwitchFlag:
    """A switch whose uplink is bad, with its evidence: its pairs across the uplink against
    its pairs inside it and the pairs inside leaves fabric-wide."""

    metric: str
    switch: str
    hosts: tuple[int, ...]
    across: float  # median of its pairs across its uplink
    across_pairs: int
    across_slow: int  # of those, judged slow against the reference
    inside: float  # median of the pairs among its hosts
    inside_pairs: int
    reference: float  # median of the pairs inside leaf switches
    retest: float | None = None  # median of its pairs across, measured again alone
    alike: tuple[str, ...] = ()  # switches its pairs cannot tell it from
    retest_pairs: tuple[Pair, ...] = field(default=(), compare=False)

    def evidence(self) -> str:
        unit = UNIT[self.metric]
        alone = f"; alone {number(self.retest)} {unit}" if self.retest is not None else "; not retested"
        alike = (
            f"; not told apart from {', '.join(self.alike)} (every pair across one crosses both)" if self.alike else ""
        )
        inside = f"{self.inside_pairs} pair{'s' if self.inside_pairs != 1 else ''}"
        return (
            f"{NAME[self.metric]} across its uplink {number(self.across)} {unit} (median of {self.across_pairs} "
            f"pairs, {self.across_slow} slow), inside it {number(self.inside)} {unit} (median of {inside}; "
            f"pairs inside leaves {number(self.reference)} {unit}){alone}{alike}"
        )


@dataclass
class SwitchSuspects:
    """What the topology explains in one metric's suspects, before the retest."""

    reference: Population
    switches: list[SwitchFlag]
    explained_nodes: list[int]  # node candidates that are their switch's


def _inside(values: np.ndarray, hosts: np.ndarray) -> np.ndarray:
    block = values[np.ix_(hosts, hosts)]
    cells = block[np.triu_indices(len(hosts), 1)]
    return cells[~np.isnan(cells)]


def leaf_reference(values: np.ndarray, fabric: Fabric, suspects: Suspects) -> Population:
    candidate = np.zeros(fabric.n, dtype=bool)
    candidate[suspects.nodes] = True
    inside = [
        _inside(values, np.flatnonzero((fabric.leaf == leaf) & ~candidate))
        for leaf in np.unique(fabric.leaf[fabric.leaf != NO_SWITCH]).tolist()
    ]
    cells = np.concatenate([np.zeros(0, dtype=np.float32), *inside]).astype(np.float32)
    return population(cells) if cells.size >= LEAST_REFERENCE else suspects.pair_population


@dataclass(eq=False)
class _Candidate:
    switch: int
    under: np.ndarray  # bool per host
    inside: np.ndarray


def find_switches(
    values: np.ndarray, suspects: Suspects, rule: MetricRule, fabric: Fabric, retest_per_switch: int = 3
) -> SwitchSuspects:
    """Step 1-3 of the module's doc for one metric's matrix and suspects."""
    metric = suspects.metric
    reference = leaf_reference(values, fabric, suspects)
    placed = fabric.leaf != NO_SWITCH
    candidates = []
    for switch in range(len(fabric.switches)):
        hosts = fabric.hosts_under(switch)
        if fabric.parent[switch] == NO_SWITCH or len(hosts) < 2:
            continue  # no uplink, or a single host: a switch and its host cannot be told apart
        inside = _inside(values, hosts)
        if inside.size and not worse(metric, float(np.median(inside)), reference, rule):
            under = np.zeros(fabric.n, dtype=bool)
            under[hosts] = True
            candidates.append(_Candidate(switch, under, inside))
    named: list[np.ndarray] = []  # per switch named (or alike): which hosts are under it
    found: list[SwitchFlag] = []
    while candidates:
        judged = [(candidate, _across(values, candidate, named, placed)) for candidate in candidates]
        slow = [
            (float(np.mean(worse(metric, cells, reference, rule))), -k, k)
            for k, (candidate, (cells, _)) in enumerate(judged)
            if cells.size and worse(metric, float(np.median(cells)), reference, rule)
        ]
        if not slow:
            break
        _, _, best = max(slow)
        candidate, (cells, pairs) = judged[best]
        explained = [*named, candidate.under]
        alike = [  # left with no pair of their own once the candidate explains its pairs
            other
            for other, (others, _) in judged
            if other is not candidate and others.size and not _across(values, other, explained, placed)[0].size
        ]
        found.append(
            SwitchFlag(
                metric,
                fabric.switches[candidate.switch],
                tuple(np.flatnonzero(candidate.under).tolist()),
                float(np.median(cells)),
                int(cells.size),
                int(np.count_nonzero(worse(metric, cells, reference, rule))),
                float(np.median(candidate.inside)),
                int(candidate.inside.size),
                reference.median,
                alike=tuple(fabric.switches[other.switch] for other in alike),
                retest_pairs=_worst(cells, pairs, metric, set(suspects.nodes), retest_per_switch),
            )
        )
        named += [c.under for c in (candidate, *alike)]
        candidates = [c for c in candidates if c is not candidate and c not in alike]
    return SwitchSuspects(reference, found, _explained(values, suspects, named, reference, rule))


def _worst(
    cells: np.ndarray, pairs: tuple[np.ndarray, np.ndarray], metric: str, nodes: set[int], count: int
) -> tuple[Pair, ...]:
    """The `count` worst pairs across, for the retest: its hosts are node candidates, so
    only partners that are no candidates tell the uplink from them."""
    chosen: list[Pair] = []
    for k in np.argsort(-cells if HIGHER_IS_WORSE[metric] else cells, kind="stable").tolist():
        if len(chosen) == count:
            break
        inner, outer = int(pairs[0][k]), int(pairs[1][k])
        if outer not in nodes:
            chosen.append((min(inner, outer), max(inner, outer)))
    return tuple(chosen)


def _across(
    values: np.ndarray, candidate: _Candidate, named: list[np.ndarray], placed: np.ndarray
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The candidate's pairs across its uplink that cross no uplink named already: their
    values, its hosts and the hosts elsewhere."""
    rows = np.flatnonzero(candidate.under)
    cols = np.flatnonzero(placed & ~candidate.under)
    keep = ~np.isnan(values[np.ix_(rows, cols)])
    for under in named:  # a pair crosses a switch's uplink when one host is under it and one not
        keep &= under[rows][:, None] == under[cols][None, :]
    r, c = np.nonzero(keep)
    cells = values[rows[r], cols[c]]
    return cells, (rows[r], cols[c])


def _explained(
    values: np.ndarray,
    suspects: Suspects,
    named: list[np.ndarray],
    reference: Population,
    rule: MetricRule,
) -> list[int]:
    """Node candidates under a named switch whose pairs inside it are fine."""
    explained = []
    for node in suspects.nodes:
        for under in named:
            mates = np.flatnonzero(under)
            row = values[node, mates[mates != node]]
            row = row[~np.isnan(row)]
            if under[node] and row.size and not worse(suspects.metric, float(np.median(row)), reference, rule):
                explained.append(node)
                break
    return explained


def without_explained(suspects: Suspects, found: SwitchSuspects, fabric: Fabric) -> Suspects:
    """The suspects the host rules still judge: the explained node candidates and the pairs
    across a named uplink left out."""
    unders = []
    for flag in found.switches:
        for name in (flag.switch, *flag.alike):
            under = np.zeros(fabric.n, dtype=bool)
            under[fabric.hosts_under(fabric.switches.index(name))] = True
            unders.append(under)
    pairs = [pair for pair in suspects.pairs if all(under[pair[0]] == under[pair[1]] for under in unders)]
    explained = set(found.explained_nodes)
    return replace(
        suspects,
        nodes=[node for node in suspects.nodes if node not in explained],
        pairs=pairs,
        values={pair: suspects.values[pair] for pair in pairs},
    )


def confirm_switches(
    found: SwitchSuspects, rule: MetricRule, alone: Mapping[Pair, float], values: np.ndarray
) -> tuple[list[SwitchFlag], list[Cleared]]:
    """Step 4: a switch stays named when its pairs across, measured alone, are still slow;
    without a retest it stands as found."""
    named: list[SwitchFlag] = []
    cleared: list[Cleared] = []
    for flag in found.switches:
        checked = [pair for pair in flag.retest_pairs if pair in alone]
        if not checked:
            named.append(flag)
            continue
        median = float(np.median([alone[pair] for pair in checked]))
        if worse(flag.metric, median, found.reference, rule):
            named.append(replace(flag, retest=median))
        else:
            cleared += [Cleared(flag.metric, pair, float(values[pair]), alone[pair]) for pair in checked]
    return named, cleared
