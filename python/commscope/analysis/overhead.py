"""The cost of a tool (Sigma2's perf-report page): how much slower a benchmark runs under a wrapper
(profiler, tracer, valgrind) than plain, size by size, measured inside the benchmark
(its own timed loop), never by the wall time of the whole launch, which a tool's
start-up and data collection would swamp.

The slowdown at a size is the ratio of medians over repeats, wrapped / plain, of the
time per operation (the latency, or for bandwidth benchmarks the mean time per
operation). Its 95 % interval is a bootstrap of that ratio with 2 repeats or more a
side; with one run a side, a normal approximation from the two runs' per-sample
statistics (delta method for a ratio of means).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from commscope.analysis.compare import points_by_key, sort_keys
from commscope.analysis.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from commscope.errors import UsageError
from commscope.records.run import Point, Run

CONFIDENCE = 0.95


def wrapper_of(run: Run) -> tuple[str, ...]:
    return tuple((run.provenance or {}).get("wrapper") or ())


def time_per_op_us(point: Point) -> float | None:
    """The time one operation took at this point, in µs: the latency, else the sample mean."""
    value = point.metrics.get("latency_us")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    mean = point.stats.get("mean")
    return float(mean) if isinstance(mean, (int, float)) else None


@dataclass
class Slowdown:
    key: tuple  # (size, window)
    plain_us: float
    wrapped_us: float
    factor: float
    low: float | None
    high: float | None
    method: str
    repeats: tuple[int, int]


def _by_key(runs: Sequence[Run]) -> dict[tuple, list[tuple[float, Point]]]:
    values: dict[tuple, list[tuple[float, Point]]] = {}
    for run in runs:
        for key, point in points_by_key(run).items():
            value = time_per_op_us(point)
            if value is not None and value > 0:
                values.setdefault(key, []).append((value, point))
    return values


def _ratio_of_medians(plain: np.ndarray, wrapped: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.median(wrapped, axis=axis) / np.median(plain, axis=axis)


def _interval(
    plain: list[tuple[float, Point]], wrapped: list[tuple[float, Point]]
) -> tuple[float | None, float | None, str]:
    # scipy.stats imported when used: it takes half a second, and most reports test nothing
    from scipy import stats as sps

    if min(len(plain), len(wrapped)) >= 2:
        result = sps.bootstrap(
            (np.array([v for v, _ in plain]), np.array([v for v, _ in wrapped])),
            _ratio_of_medians,
            n_resamples=BOOTSTRAP_RESAMPLES,
            confidence_level=CONFIDENCE,
            method="percentile",
            vectorized=True,
            rng=np.random.default_rng(BOOTSTRAP_SEED),
        )
        low, high = result.confidence_interval
        return float(low), float(high), "bootstrap"
    (_, p_point), (_, w_point) = plain[0], wrapped[0]
    p_stats, w_stats = p_point.stats, w_point.stats
    if (
        all(isinstance(s.get(k), (int, float)) for s in (p_stats, w_stats) for k in ("mean", "stddev"))
        and (p_point.samples or 0) > 1
        and (w_point.samples or 0) > 1
        and p_stats["mean"] > 0
    ):
        ratio = w_stats["mean"] / p_stats["mean"]
        relative = math.sqrt(
            (p_stats["stddev"] / p_stats["mean"]) ** 2 / p_point.samples
            + (w_stats["stddev"] / w_stats["mean"]) ** 2 / w_point.samples
        )
        spread = sps.norm.ppf(0.5 + CONFIDENCE / 2) * relative * ratio
        return ratio - spread, ratio + spread, "samples"
    return None, None, "none"


def slowdowns(runs: Sequence[Run]) -> list[Slowdown]:
    """Per size, the slowdown of the wrapped runs against the plain ones (one benchmark)."""
    plain = [run for run in runs if not wrapper_of(run)]
    wrapped = [run for run in runs if wrapper_of(run)]
    if not plain or not wrapped:
        raise UsageError(
            "an overhead needs plain and wrapped runs of the benchmark; "
            f"got {len(plain)} plain and {len(wrapped)} wrapped"
        )
    if len({run.benchmark for run in runs}) != 1:
        raise UsageError("an overhead compares runs of one benchmark")
    plain_values, wrapped_values = _by_key(plain), _by_key(wrapped)
    rows = []
    for key in sort_keys(set(plain_values) & set(wrapped_values)):
        p, w = plain_values[key], wrapped_values[key]
        p_median = float(np.median([v for v, _ in p]))
        w_median = float(np.median([v for v, _ in w]))
        low, high, method = _interval(p, w)
        rows.append(Slowdown(key, p_median, w_median, w_median / p_median, low, high, method, (len(p), len(w))))
    if not rows:
        raise UsageError("the plain and wrapped runs have no size in common with a time per operation")
    return rows
