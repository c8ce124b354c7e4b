"""Repeated launches of one benchmark (`commscope run --repeat K`): which runs are repeats
of each other, and their per-size median across launches with a distribution-free 95 %
interval.

Why the median and order statistics: launches differ by more than their samples say
(placement, frequency, the neighbours of the moment), so the launch is the unit; with
few launches the median resists the one odd launch, and the interval between two order
statistics X(j) <= median <= X(k) covers the true median with a probability computed
exactly from the binomial distribution, whatever the distribution of launches. With
fewer than 6 launches no pair of order statistics reaches 95 %; the interval is then
the whole range and says how much it covers (5 launches: 93.8 %).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from commscope.records.run import PointKey, Run

CONFIDENCE = 0.95


@dataclass(frozen=True)
class MedianInterval:
    """The median of one size's values across launches and its interval."""

    median: float
    low: float
    high: float
    n: int
    coverage: float  # probability that [low, high] holds the true median


def order_statistic_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int, float]:
    """1-based ranks (j, k) of the narrowest symmetric pair with P(X(j) <= median <= X(k))
    >= confidence, and that probability; (1, n, its coverage) when no pair reaches it."""
    # scipy.stats imported when used: it takes half a second, and most reports test nothing
    from scipy import stats as sps

    best = (1, n, 1 - 2 * sps.binom.cdf(0, n, 0.5)) if n > 0 else (1, 1, 0.0)
    for j in range(1, n // 2 + 1):
        k = n - j + 1
        coverage = 1 - 2 * sps.binom.cdf(j - 1, n, 0.5)
        if coverage < confidence:
            break
        best = (j, k, coverage)
    return best


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> MedianInterval:
    ordered = sorted(values)
    j, k, coverage = order_statistic_ranks(len(ordered), confidence)
    return MedianInterval(statistics.median(ordered), ordered[j - 1], ordered[k - 1], len(ordered), float(coverage))


def median_series(columns: Sequence[dict[PointKey, float]]) -> dict[PointKey, MedianInterval]:
    """Per point, the median of the launches' values (one series each, as
    analysis.compare.series gives them) over the launches that have it there."""
    values: dict[PointKey, list[float]] = {}
    for column in columns:
        for key, value in column.items():
            values.setdefault(key, []).append(float(value))
    return {key: median_interval(found) for key, found in values.items()}


def _repeat_identity(run: Run) -> tuple:
    """What launches of one `run --repeat` share: invocation, benchmark, flags, label and
    system. An imported run is its own: one file holds several tables (a datatype each) of
    one benchmark, and two files imported under one label are two results, not launches."""
    if run.source_format is not None:
        return ("imported", id(run))
    return (run.invocation_id, run.benchmark, tuple(run.flags), run.label, run.system)


def repeat_groups(runs: Sequence[Run]) -> list[list[Run]]:
    """`runs` as groups of repeats, in order of first appearance, each in launch order."""
    groups: dict[tuple, list[Run]] = {}
    for run in runs:
        groups.setdefault(_repeat_identity(run), []).append(run)
    return [sorted(group, key=lambda run: (run.repeat_index, run.id or 0)) for group in groups.values()]
