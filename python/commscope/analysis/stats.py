"""Statistics over stored points: uncertainty bands, stability, and whether two sets
of measurements differ by more than their noise.

commscope-bench keeps per-size sample statistics of the time per operation
(``Point.stats``, microseconds: min, max, mean, stddev, 95 % CI of the mean).
A metric is either proportional to that time (latency) or inversely
proportional to it (bandwidth, message rate), so bands and tests on the time
carry over to the metric; for any other metric (overlap %, counts) they do not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from commscope.records.metrics import time_relation
from commscope.records.run import Point

#: Significance level of the one-sided tests below.
ALPHA = 0.05
#: Repeats per side from which the rank test has the power to be worth using
#: (with 5 against 5 its smallest one-sided p is 1/252; with 3 against 3 it is 1/20).
RANK_TEST_MIN_REPEATS = 5
BOOTSTRAP_RESAMPLES = 4000
# A fixed seed keeps verdicts reproducible from one `check` to the next.
BOOTSTRAP_SEED = 20240521


def band(point: Point, metric: str, kind: str) -> tuple[float, float] | None:
    """(low, high) around the point's value of `metric`: kind "ci" is the 95 % confidence
    interval of the mean, "minmax" the fastest and slowest sample (or OMB -f's Min/Max
    columns for imported runs). None when the point carries neither."""
    value = point.metrics.get(metric)
    relation = time_relation(metric)
    if not isinstance(value, (int, float)) or not relation:
        return None
    low_key, high_key = ("ci95_low", "ci95_high") if kind == "ci" else ("min", "max")
    stats = point.stats
    if all(isinstance(stats.get(key), (int, float)) for key in (low_key, high_key, "mean")) and stats["mean"] > 0:
        low, high = stats[low_key] / stats["mean"], stats[high_key] / stats["mean"]
        if relation < 0:
            # A rate is inversely proportional to the time: the slowest sample is the lowest rate.
            low, high = (1 / high if high > 0 else math.inf), (1 / low if low > 0 else math.inf)
        return value * low, value * high
    if kind == "minmax":
        low, high = point.metrics.get(f"min_{metric}"), point.metrics.get(f"max_{metric}")
        if isinstance(low, (int, float)) and isinstance(high, (int, float)):
            return low, high
    return None


@dataclass(frozen=True)
class Stability:
    """How much one point's samples scatter, relative to their mean."""

    ci_width: float | None  # (ci95_high - ci95_low) / mean
    cv: float | None  # stddev / mean


def stability(point: Point) -> Stability:
    stats = point.stats
    mean = stats.get("mean")
    if not mean or mean <= 0:
        return Stability(None, None)
    width = None
    if stats.get("ci95_low") is not None and stats.get("ci95_high") is not None:
        width = (stats["ci95_high"] - stats["ci95_low"]) / mean
    cv = stats["stddev"] / mean if stats.get("stddev") is not None else None
    return Stability(width, cv)


@dataclass(frozen=True)
class Summary:
    """Sample count, mean and standard deviation of the time per operation at one size."""

    n: int
    mean: float
    sd: float

    @staticmethod
    def of(point: Point) -> Summary | None:
        stats = point.stats
        if not point.samples or point.samples < 2 or stats.get("mean") is None or stats.get("stddev") is None:
            return None
        return Summary(point.samples, stats["mean"], stats["stddev"])

    @staticmethod
    def pooled(parts: Sequence[Summary]) -> Summary:
        """The summary of all samples of several runs together: within-run and
        between-run variance both count (law of total variance)."""
        n = sum(part.n for part in parts)
        mean = sum(part.n * part.mean for part in parts) / n
        squares = sum((part.n - 1) * part.sd**2 + part.n * (part.mean - mean) ** 2 for part in parts)
        return Summary(n, mean, math.sqrt(squares / (n - 1)))


@dataclass(frozen=True)
class Evidence:
    """Whether the new measurements are worse than the old ones beyond their noise."""

    method: str  # "mann-whitney", "bootstrap", "welch", or "none" (nothing to test with)
    significant: bool | None  # None when not tested
    detail: str

    @property
    def allows_failure(self) -> bool:
        """A size may fail unless a test was possible and found no significant difference."""
        return self.significant is not False


def _ratio_of_medians(base: np.ndarray, new: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.median(new, axis=axis) / np.median(base, axis=axis)


def worse_evidence(
    base: Sequence[float],
    new: Sequence[float],
    higher_worse: bool,
    base_summaries: Sequence[Summary | None] = (),
    new_summaries: Sequence[Summary | None] = (),
    alpha: float = ALPHA,
) -> Evidence:
    """Test, one-sided, whether `new` is worse than `base`.

    `base` and `new` are one value per run (repeats). With enough repeats on both
    sides the Mann-Whitney U test decides; with two to four, a bootstrap confidence
    interval of the ratio of medians. Otherwise the per-size sample summaries of the
    time per operation (given only for time-derived metrics) decide with Welch's
    t-test, where a longer time is worse whatever the metric.
    """
    # scipy.stats imported when used: it takes half a second, and most reports test nothing
    from scipy import stats as sps

    if min(len(base), len(new)) >= RANK_TEST_MIN_REPEATS:
        result = sps.mannwhitneyu(new, base, alternative="greater" if higher_worse else "less")
        return Evidence("mann-whitney", bool(result.pvalue < alpha), f"p={result.pvalue:.3g}")
    if min(len(base), len(new)) >= 2:
        if np.median(base) <= 0:
            return Evidence("none", None, "baseline median is not positive")
        # A two-sided (1 - 2 alpha) interval gives a one-sided alpha test on either bound.
        result = sps.bootstrap(
            (np.asarray(base, float), np.asarray(new, float)),
            _ratio_of_medians,
            n_resamples=BOOTSTRAP_RESAMPLES,
            confidence_level=1 - 2 * alpha,
            method="percentile",
            vectorized=True,
            rng=np.random.default_rng(BOOTSTRAP_SEED),
        )
        low, high = result.confidence_interval
        significant = low > 1 if higher_worse else high < 1
        return Evidence("bootstrap", bool(significant), f"{100 * (1 - 2 * alpha):g}% CI of ratio {low:.3f}..{high:.3f}")
    if base_summaries and new_summaries and all(base_summaries) and all(new_summaries):
        old, now = Summary.pooled(base_summaries), Summary.pooled(new_summaries)
        if old.sd == 0 and now.sd == 0:
            return Evidence("none", None, "samples without spread")
        result = sps.ttest_ind_from_stats(
            now.mean, now.sd, now.n, old.mean, old.sd, old.n, equal_var=False, alternative="greater"
        )
        return Evidence("welch", bool(result.pvalue < alpha), f"p={result.pvalue:.3g}")
    return Evidence("none", None, "no repeats or sample statistics")
