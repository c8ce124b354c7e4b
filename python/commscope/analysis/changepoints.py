"""Change points of a series over time: where the level of a benchmark's value moved, and
whether each move is real on the runs' own statistics.

Two steps. Candidates come from the least-squares segmentation with a penalty per change
(what PELT finds, as ruptures' KernelCPD with the linear kernel) over the series' ranks. Ranks make a launch that met a
busy neighbour one high value, not a level of its own; and where nothing changed they are
uniform, their variance 1/12 whatever the metric's distribution, so one penalty fits every
series: 2 log n times that variance per change, the Schwarz (BIC) penalty of one new mean.
Each candidate then moves to the nearest boundary between repeat groups
(analysis.repeats): the launches of one `run --repeat` ran back to back in one
environment, so nothing changed between them.

Second, a change point is kept only when `check` would tell the level after it from the
level before it (analysis.check's rule): the medians differ by more than max(tolerance x
before, floor), and the test `check` uses for that many runs (analysis.stats.worse_evidence;
two-sided, so alpha/2 in the direction seen) finds the difference significant. The weakest
change point that fails is dropped, its two levels merged, and the others judged again,
until every one left stands. Last, a change point one run away from where the environment
changed (analysis.provenance_diff) moves there when it stands there too.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from commscope.analysis.check import excess
from commscope.analysis.stats import ALPHA, Evidence, Summary, worse_evidence

#: The fewest runs a level may have: two, so a change is seen the second night after it.
MIN_LEVEL_RUNS = 2
#: The variance of ranks scaled to (0, 1] where nothing changed (a uniform distribution's).
_RANK_VARIANCE = 1 / 12
#: Segmentations whose costs differ by less than this share are equal (rounding apart).
_TIE = 1e-12


@dataclass(frozen=True)
class Rule:
    """When two levels differ, as `check` decides: the metric's bad direction, the tolerance
    and the floor (in the metric's unit)."""

    higher_worse: bool
    tolerance: float
    floor: float


@dataclass(frozen=True)
class Change:
    """The level moved at `index`: the first value of the new level."""

    index: int
    before: float  # median of the level before
    after: float  # median of the level after
    evidence: Evidence
    worse: bool  # in the metric's bad direction

    @property
    def ratio(self) -> float | None:
        return self.after / self.before if self.before else None


@dataclass(frozen=True)
class Level:
    """A stretch of the series between change points: values[start:end]."""

    start: int
    end: int
    median: float


def candidates(values: Sequence[float], boundaries: Sequence[int]) -> list[int]:
    """Where the penalised segmentation of the ranks puts change points, each moved to the
    nearest of `boundaries` (indices where a new repeat group starts)."""
    n = len(values)
    if n < 2 * MIN_LEVEL_RUNS or not boundaries:
        return []
    found = segmentation(ranks(values) / n, 2 * np.log(n) * _RANK_VARIANCE, MIN_LEVEL_RUNS)
    snapped = {min(boundaries, key=lambda boundary: (abs(boundary - cut), boundary)) for cut in found}
    return sorted(snapped)


def ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks 1..n, ties sharing the mean of their places (scipy.stats.rankdata's "average")."""
    _, group, counts = np.unique(np.asarray(values, dtype=float), return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return (0.5 * (ends + (ends - counts) + 1))[group.reshape(-1)]


def segmentation(signal: np.ndarray, penalty: float, min_size: int) -> list[int]:
    """The change points (starts of every segment but the first) that minimise the sum of
    squared deviations from each segment's mean plus `penalty` per segment, no segment
    shorter than `min_size`: optimal partitioning, the exact minimum PELT finds.

    Done here with numpy, a vector of every possible last segment per end, rather than
    with ruptures (KernelCPD, linear kernel, which tests/unit/test_changepoints.py checks
    this against): importing ruptures imports scipy.stats, scipy.signal and scipy.spatial
    for costs never used here, most of a second of every report and history."""
    n = len(signal)
    total = np.concatenate([[0.0], np.cumsum(signal)])
    squares = np.concatenate([[0.0], np.cumsum(signal * signal)])
    best = np.zeros(n + 1)  # best[t]: the least penalised cost of signal[:t]
    last = np.zeros(n + 1, dtype=int)  # where that segmentation's last segment starts
    for end in range(min_size, n + 1):
        # the last segment starts at 0 or leaves at least min_size before it
        starts = np.concatenate([[0], np.arange(min_size, end - min_size + 1)])
        length = end - starts
        cost = squares[end] - squares[starts] - (total[end] - total[starts]) ** 2 / length
        options = best[starts] + cost
        # the earliest of the options equal to the least but for rounding: a perfect step in
        # the ranks can split as well one run earlier as later
        chosen = int(np.argmax(options <= options.min() + _TIE * max(1.0, abs(options.min()))))
        best[end], last[end] = options[chosen] + penalty, starts[chosen]
    cuts, end = [], n
    while last[end] > 0:
        end = int(last[end])
        cuts.append(end)
    return cuts[::-1]


def _judge(
    values: np.ndarray, summaries: Sequence[Summary | None], start: int, index: int, end: int, rule: Rule
) -> tuple[Change, bool]:
    """The change at `index` between the levels [start, index) and [index, end), and whether
    it stands."""
    before, after = values[start:index], values[index:end]
    low, high = float(np.median(before)), float(np.median(after))
    higher = high > low
    evidence = worse_evidence(
        before,
        after,
        higher,
        summaries[start:index],
        summaries[index:end],
        alpha=ALPHA / 2,
    )
    change = Change(index, low, high, evidence, worse=higher == rule.higher_worse)
    beyond = excess(low, high, higher, rule.tolerance, rule.floor) > 0
    return change, beyond and evidence.allows_failure


def find_changes(
    values: Sequence[float],
    rule: Rule,
    boundaries: Sequence[int] | None = None,
    summaries: Sequence[Summary | None] = (),
    changed: Collection[int] = (),
    refine: bool = False,
) -> list[Change]:
    """The change points of `values` (in time order) that stand, oldest first. `boundaries`
    are the indices where a new repeat group starts (default: every index); `summaries`, one
    per value where each is one size's value of a time-derived metric, let a level of one run
    be tested as `check` tests one run (Welch on the sample statistics). `changed` are the
    indices where the environment changed: a change point one run away from one moves there
    when it still stands, since one noisy run may sit on either side of a step, the
    environment's change cannot. With `refine` (every index a boundary: a host's sweeps), a
    change point not moved so then moves to where the values either side of it fit their
    levels' medians best, when it stands there: ranks cannot tell a step from two slightly
    high values just before it, the values can."""
    series = np.asarray(values, dtype=float)
    boundaries = list(range(1, len(series))) if boundaries is None else list(boundaries)
    cuts = candidates(series, boundaries)
    while True:
        edges = [0, *cuts, len(series)]
        judged = [_judge(series, summaries, edges[i], cut, edges[i + 2], rule) for i, cut in enumerate(cuts)]
        failing = [(abs(np.log(change.ratio or 1)), i) for i, (change, stands) in enumerate(judged) if not stands]
        if not failing:
            return [
                _to_change(series, summaries, edges, i, rule, changed)
                or (_refined(series, summaries, edges, i, rule, boundaries) if refine else None)
                or change
                for i, (change, _) in enumerate(judged)
            ]
        cuts.pop(min(failing)[1])


def _to_change(
    series: np.ndarray,
    summaries: Sequence[Summary | None],
    edges: list[int],
    i: int,
    rule: Rule,
    changed: Collection[int],
) -> Change | None:
    """The change point between edges[i] and edges[i + 2] moved by one run to where the
    environment changed, if it is not there already and stands there; else None."""
    cut = edges[i + 1]
    if cut in changed:
        return None
    for moved in (cut - 1, cut + 1):
        if moved in changed and edges[i] + MIN_LEVEL_RUNS <= moved <= edges[i + 2] - MIN_LEVEL_RUNS:
            change, stands = _judge(series, summaries, edges[i], moved, edges[i + 2], rule)
            if stands:
                return change
    return None


def _refined(
    series: np.ndarray,
    summaries: Sequence[Summary | None],
    edges: list[int],
    i: int,
    rule: Rule,
    boundaries: Collection[int],
) -> Change | None:
    """The change point between edges[i] and edges[i + 2] moved to the boundary where the
    values deviate least from their two levels' medians (absolute deviations: one contended
    night pulls nothing), if it is not there already and stands there; else None."""
    start, end = edges[i], edges[i + 2]
    places = [k for k in range(start + MIN_LEVEL_RUNS, end - MIN_LEVEL_RUNS + 1) if k in boundaries]
    cost = [
        np.abs(series[start:k] - np.median(series[start:k])).sum()
        + np.abs(series[k:end] - np.median(series[k:end])).sum()
        for k in places
    ]
    best = places[int(np.argmin(cost))] if places else edges[i + 1]
    if best == edges[i + 1]:
        return None
    change, stands = _judge(series, summaries, start, best, end, rule)
    return change if stands else None


def levels(values: Sequence[float], changes: Sequence[Change]) -> list[Level]:
    """The series as levels between its change points, each with its median."""
    edges = [0, *(change.index for change in changes), len(values)]
    return [Level(start, end, float(np.median(values[start:end]))) for start, end in zip(edges, edges[1:])]
