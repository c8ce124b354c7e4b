"""Confirm before naming: a part whose evidence says it is slow (pending) is measured again
in a round of its own, alone on the fabric, before a verdict names it.

A confirmation round holds only

- each pending part's pairs: a pending host with `confirm` cleared partners, a pending
  uplink with `confirm` pairs of cleared hosts across it (every other uplink on their way
  cleared), so nothing but the part can make those pairs slow;
- control pairs, measured the same way beside them: 2 x `confirm` pairs of hosts cleared of
  the slowdown the pending parts point at (those cleared of the smallest first), whose
  median is what a healthy pair shows in such a round; and as many hosts still open with
  one of them (the round decides them too; a slow one is no control).

The round is measured one pair at a time (the core's `--serial`; an oracle is told
"alone"): no pair shares the network or the hosts' cores with another. Each of the part's
pairs is then judged against the controls' median (analysis.evidence, with the noise the
sweep fitted, widened by that median's own uncertainty), and the part is named only when
every one of its pairs is slow there and all its evidence together reaches the naming
threshold; else it goes back to undecided, its confirmation pairs counted with the rest.

This module plans the round and says what it found; analysis.locate asks for it (the
Locator's plan) and judges it (the Locator's record). A launcher measures what it is asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, combinations, islice

import numpy as np

#: A part refuted this many times is not confirmed again in the same sweep: the rounds left
#: go to the parts still open (the round limit bounds the sweep anyway).
MAX_CONFIRMATIONS = 2
#: A part goes to confirmation when its evidence reaches this share of the naming
#: threshold's (log scale: (parts / alpha) to the 0.6) and it was slow with this many
#: cleared partners (pairs of cleared hosts, for an uplink); the confirmation round's own
#: evidence must reach the rest (a healthy part passes both with probability alpha / parts).
SCREEN_SHARE = 0.5
SCREEN_PARTNERS = 2
#: Control pairs per pair of a part (`confirm` of those): the part's pairs are judged against
#: their median, which is off alike for all of them by some pi/2 sigma^2 over its count.
CONTROLS = 2


@dataclass(frozen=True)
class Confirmation:
    """How a part was confirmed (or not): its round, its pairs measured alone (host, host,
    value, slow there), the control pairs beside them and their median (the sweep's
    healthy median where there were none), and the slowdown its evidence pointed at."""

    round: int  # 1-based
    pairs: tuple[tuple[int, int, float, bool], ...]
    controls: tuple[tuple[int, int, float], ...]
    reference: float
    slowdown: float = float("nan")  # what the part was suspected of (0.8: 80 % slower)

    @property
    def reproduced(self) -> bool:
        return bool(self.pairs) and all(slow for *_, slow in self.pairs)


def plan_confirmation(locator) -> list[tuple[int, int]]:
    """The confirmation round of the Locator's pending parts: their pairs, then the control
    pairs. A part's partners are hosts with the slowdown its evidence points at ruled out
    (on a fabric too noisy to clear anyone of 20 %, hosts cleared of 80 % confirm a host 90 %
    slow), those ruled out the furthest first, `confirm` of them. Empty when no pending part
    has that many yet."""
    fabric, n = locator.fabric, locator.n
    ruled = locator.ruled_out_from
    # partners and controls among the hosts still in the sweep (not named, pending, set aside)
    free = np.flatnonzero(~locator.bad[:n] & ~locator.pending[:n] & locator.in_sweep)
    order = free[np.lexsort((free, ruled[free]))].tolist()
    want = locator.rules.confirm
    pairs: list[tuple[int, int]] = []
    for part in np.flatnonzero(locator.pending).tolist():
        pointed = int(np.argmax(locator.evidence[part]))
        good = (h for h in order if ruled[h] <= pointed)
        if part < n:
            found = list(islice(((part, h) for h in good if locator.path_cleared(part, h, pointed)), want))
        else:
            below = set(fabric.hosts_under(part - n).tolist())
            good = list(good)
            found = []
            for a, b in _spread([h for h in good if h in below], [h for h in good if h not in below]):
                crossed = fabric.crossed(int(fabric.leaf[a]), int(fabric.leaf[b]))
                if len(found) < want and part in crossed and all(ruled[u] <= pointed for u in crossed if u != part):
                    found.append((a, b))
        # fewer than `confirm` partners cleared yet: it waits for an ordinary round to clear
        # more (named through two, a host would be drained on less than the rules ask for)
        pairs += found if len(found) == want else []
    if not pairs:
        return []
    # beside them: 2 x `confirm` pairs of hosts with the depth ruled out, cleared ones first
    # (the controls), then hosts still open with the best of them (their pairs decide them too)
    deepest = depth(locator)
    controls: list[tuple[int, int]] = []
    good = [h for h in order if ruled[h] <= deepest]
    # disjoint pairs first: a host slow for a moment spoils one control, not all of them
    disjoint = list(zip(good[0::2], good[1::2]))
    for a, b in chain(disjoint, (pair for pair in combinations(good[: 4 * want], 2) if pair not in disjoint)):
        if len(controls) >= CONTROLS * want:
            break
        if clean(locator, a, b, deepest) and (a, b) not in pairs and (b, a) not in pairs:
            controls.append((a, b))
    # (a few: the round is measured one pair at a time, and a large sweep has its open hosts
    # by the thousand early on; a small one decides them all so)
    for host in np.flatnonzero(locator.open[:n]).tolist()[: CONTROLS * want]:
        partner = next((h for h in good if h != host and clean(locator, host, h, deepest)), None)
        if partner is not None:
            controls.append((host, partner))
    # each pair once (a launch measures a pair once; an open host's pair may be a control's)
    return list({frozenset(pair): pair for pair in pairs + controls}.values())


def clean(locator, a: int, b: int, index: int) -> bool:
    """Whether a pair of two hosts crosses only uplinks with that slowdown ruled out and none
    pending (a pair through a pending uplink is that uplink's, no control)."""
    crossed = locator.fabric.crossed(int(locator.fabric.leaf[a]), int(locator.fabric.leaf[b]))
    return locator.path_cleared(a, b, index) and not any(locator.pending[part] for part in crossed)


def _spread(inner: list[int], outer: list[int]):
    """Pairs of a host below and a host beyond, each host used once before any twice."""
    for k in range(max(len(inner), len(outer))):
        if inner and outer:
            yield inner[k % len(inner)], outer[k % len(outer)]


def part_pairs(locator, part: int, pairs: np.ndarray, paths: np.ndarray) -> np.ndarray:
    """The rows of a confirmation round's pairs that measure `part` (its host, or its uplink)."""
    if part < locator.n:
        return np.flatnonzero((pairs == part).any(axis=1))
    return np.flatnonzero((paths == part).any(axis=1))


def depth(locator) -> int:
    """The grid index of the largest slowdown a pending part's evidence points at: the
    controls' hosts have it ruled out."""
    pending = np.flatnonzero(locator.pending)
    return int(np.argmax(locator.evidence[pending], axis=1).max()) if pending.size else 0


def controls_of(locator, pairs: np.ndarray, paths: np.ndarray) -> np.ndarray:
    """The rows of a confirmation round's pairs through cleared parts only: its controls; on
    a fabric too noisy to clear anything, those through parts with the depth ruled out and
    no pending one (a host still open beside them is no reference: on a fabric with many bad
    nodes the open hosts are bad in numbers, and a host 50 % slow is cleared of 90 %)."""
    known = paths >= 0
    safe = np.where(known, paths, 0)
    cleared = np.all(~known | locator.cleared[safe], axis=1)
    if cleared.any():
        return np.flatnonzero(cleared)
    pending = np.any(known & locator.pending[safe], axis=1)
    ruled = np.where(known, locator.ruled_out_from[safe], 0)
    return np.flatnonzero(~pending & np.all(ruled <= depth(locator), axis=1))
