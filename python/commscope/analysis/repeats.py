"""Repeated launches of one benchmark (`commscope run --repeat K`) summarised per size: the
median across launches with a distribution-free 95 % interval.

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

from scipy import stats as sps

from commscope.analysis.compare import Key, points_by_key
from commscope.records.run import Run

CONFIDENCE = 0.95


@dataclass(frozen=True)
class MedianInterval:
    """The median of one size's values across launches and its interval."""

    median: float
    low: float
    high: float
    n: int
    coverage: float  # probability that [low, high] holds the true median

    def text(self) -> str:
        """ "1.23 [1.20, 1.31]" as tables show it (OMB's two decimals)."""
        return f"{self.median:.2f} [{self.low:.2f}, {self.high:.2f}]"


def order_statistic_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int, float]:
    """1-based ranks (j, k) of the narrowest symmetric pair with P(X(j) <= median <= X(k))
    >= confidence, and that probability; (1, n, its coverage) when no pair reaches it."""
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


def median_series(runs: Sequence[Run], metric: str, axes: tuple[str, ...] | None = None) -> dict[Key, MedianInterval]:
    """Per point (size, window and the sweep axes named in `axes`; default: those that vary
    within each run), the median of `metric` over the runs that have it there."""
    values: dict[Key, list[float]] = {}
    for run in runs:
        for key, point in points_by_key(run, axes).items():
            value = point.metrics.get(metric)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                values.setdefault(key, []).append(float(value))
    return {key: median_interval(found) for key, found in values.items()}


def siblings(run: Run, candidates: Sequence[Run]) -> list[Run]:
    """The repeats `run` belongs to among `candidates` (itself included, in repeat order):
    same invocation, benchmark, label, system and flags. Imported runs are never repeats of
    each other: one file holds several tables (a datatype each) of the same benchmark."""
    if run.source_format is not None:
        return [run]
    same = [
        other
        for other in candidates
        if other.invocation_id == run.invocation_id
        and other.benchmark == run.benchmark
        and other.label == run.label
        and other.system == run.system
        and other.flags == run.flags
    ]
    return sorted(same, key=lambda other: (other.repeat_index, other.id or 0))
