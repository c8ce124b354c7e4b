"""`commscope model`: fit the Hockney model, piecewise over protocol regimes.

Hockney: the time of one message of n bytes is t(n) = alpha + n / beta, with
alpha the start-up latency (µs) and beta the asymptotic bandwidth (MB/s, which
is bytes per µs). MPI libraries switch protocols with the message size (short
/ eager / rendezvous), and each protocol has its own alpha and beta, so the
sweep is cut into contiguous regimes, each fitted on its own.

Fitting: within a regime, non-negative least squares on relative residuals
((fit - t) / t), because times span four decades and an absolute fit would
ignore the small sizes. Regimes: for every number of regimes up to MAX_REGIMES,
the best cut (dynamic programming over all break points between consecutive
measured sizes, i.e. in log-size); the number of regimes is chosen by the
Bayesian information criterion, which charges each extra regime its three
parameters (alpha, beta, break point), doubled: the break points are searched
for, not given, and with the plain criterion a few percent of noise already
buys spurious regimes among the small sizes, where the slope is tiny.

Bandwidth runs are converted to time per message first: t = n / bandwidth.
For windowed benchmarks (bw, bibw, mbw_mr) alpha is then the per-message
overhead of a stream of messages, not a ping-pong latency.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from commscope.analysis.compare import combinations, numeric_metrics, points_by_key, varying_axes
from commscope.errors import UsageError
from commscope.records.run import Axes, Run

MAX_REGIMES = 4
MIN_POINTS_PER_REGIME = 3
#: Where the size term (size / beta) stays below this share of alpha over a whole
#: regime, the data cannot tell beta: the regime is latency-bound and beta is
#: reported as infinite rather than as a meaningless huge number.
FLAT_SHARE = 0.02
#: Multiplies BIC's parameter penalty (see above); chosen on synthetic sweeps with
#: 0.3-5 % noise, where 2 finds the true break point far more often than 1.
PENALTY_FACTOR = 2.0
# Relative residuals below 1 ppm are beyond any timer; flooring the residual sum
# there keeps the criterion finite for exact (synthetic) data.
_RESIDUAL_FLOOR = 1e-6


@dataclass(frozen=True)
class Regime:
    """One protocol regime: the sizes it covers and its Hockney parameters."""

    first_size: int
    last_size: int
    count: int
    alpha_us: float
    beta_MBps: float  # math.inf where the time does not grow with the size
    r_squared: float | None  # None when the times do not vary (nothing to explain)
    max_rel_residual: float
    rms_rel_residual: float

    @property
    def n_half(self) -> float | None:
        """Hockney's half-performance size alpha x beta, in bytes."""
        return None if math.isinf(self.beta_MBps) else self.alpha_us * self.beta_MBps

    def time(self, size: float) -> float:
        return self.alpha_us + (0.0 if math.isinf(self.beta_MBps) else size / self.beta_MBps)


@dataclass
class Fit:
    run_ids: list[int | None]  # the run, or the repeats whose median was fitted
    benchmark: str
    source_metric: str  # what the run measured: latency_us or bandwidth_MBps
    sizes: list[int]
    times_us: list[float]
    regimes: list[Regime] = field(default_factory=list)
    bic: float = math.nan
    axes: Axes = Axes()  # the sweep-axis combination fitted (one datatype of -T...); unset if none varies

    @property
    def breaks(self) -> list[int]:
        """First size of every regime after the first."""
        return [regime.first_size for regime in self.regimes[1:]]

    @property
    def alpha_us(self) -> float:
        """Start-up latency of the smallest messages."""
        return self.regimes[0].alpha_us

    @property
    def beta_MBps(self) -> float:
        """Asymptotic bandwidth: that of the largest messages."""
        return self.regimes[-1].beta_MBps

    @property
    def n_half(self) -> float | None:
        """Smallest size at which the model's bandwidth n / t(n) reaches half the asymptotic
        bandwidth, found regime by regime (a jump between regimes may reach it at once)."""
        target = self.beta_MBps / 2
        if math.isinf(target):
            return None
        for index, regime in enumerate(self.regimes):
            upper = self.regimes[index + 1].first_size if index + 1 < len(self.regimes) else math.inf
            if regime.first_size and regime.first_size / regime.time(regime.first_size) >= target:
                return float(regime.first_size)
            slope = 0.0 if math.isinf(regime.beta_MBps) else 1 / regime.beta_MBps
            if 1 - slope * target <= 0:
                continue  # this regime never reaches it
            size = regime.alpha_us * target / (1 - slope * target)
            if size < upper:
                return max(size, float(regime.first_size))
        return None

    @property
    def max_rel_residual(self) -> float:
        return max(regime.max_rel_residual for regime in self.regimes)

    def to_dict(self) -> dict:
        """The fit for JSON: infinite bandwidths (flat regimes) become null."""

        def finite(value):
            return None if isinstance(value, float) and not math.isfinite(value) else value

        regimes = [
            {key: finite(value) for key, value in dataclasses.asdict(regime).items()} | {"n_half": regime.n_half}
            for regime in self.regimes
        ]
        return {
            "runs": self.run_ids,
            "benchmark": self.benchmark,
            **dict(self.axes.items()),
            "source_metric": self.source_metric,
            "alpha_us": self.alpha_us,
            "beta_MBps": finite(self.beta_MBps),
            "n_half": self.n_half,
            "breaks": self.breaks,
            "regimes": regimes,
        }


def _run_times(run: Run, axes: tuple[str, ...], combination: Axes) -> tuple[str, dict[int, float]]:
    """(metric, size -> time per message in µs) of a latency or bandwidth run, at one
    combination of the sweep axes named in `axes`."""
    metrics = numeric_metrics(run)
    points = [
        point for key, point in points_by_key(run, axes).items() if point.size is not None and key.axes == combination
    ]
    if "latency_us" in metrics:
        pairs = [
            (point.size, point.metrics["latency_us"])
            for point in points
            if isinstance(point.metrics.get("latency_us"), (int, float))
        ]
        metric = "latency_us"
    elif "bandwidth_MBps" in metrics:
        # MB/s is bytes per µs, so bytes over it is µs per message.
        pairs = [
            (point.size, point.size / point.metrics["bandwidth_MBps"])
            for point in points
            if point.size > 0
            and isinstance(point.metrics.get("bandwidth_MBps"), (int, float))
            and point.metrics["bandwidth_MBps"] > 0
        ]
        metric = "bandwidth_MBps"
    else:
        raise UsageError(
            f"run {run.id} ({run.benchmark}) has neither latency nor bandwidth to model; "
            f"it has: {', '.join(metrics) or 'no numbers'}"
        )
    pairs = [pair for pair in pairs if pair[1] > 0]
    if len({size for size, _ in pairs}) != len(pairs):
        raise UsageError(
            f"run {run.id} ({run.benchmark}) has several values per size (windows); model a run with one value per size"
        )
    return metric, dict(pairs)


def times_of(
    runs: Sequence[Run], axes: tuple[str, ...] = (), combination: Axes = Axes()
) -> tuple[str, list[int], list[float]]:
    """(metric, sizes, time per message in µs): the per-size median over repeats, at one
    combination of the sweep axes named in `axes`."""
    measured = [_run_times(run, axes, combination) for run in runs]
    metrics = {metric for metric, _ in measured}
    if len(metrics) > 1:
        raise UsageError(
            f"runs {', '.join(str(run.id) for run in runs)} mix latency and bandwidth; model them one at a time"
        )
    sizes = sorted({size for _, times in measured for size in times})
    # statistics.median: the same value as numpy's, without its overhead per size of 500 runs
    times = [float(statistics.median([times[size] for _, times in measured if size in times])) for size in sizes]
    if len(sizes) < MIN_POINTS_PER_REGIME:
        what = ", ".join([runs[0].benchmark, *(value for _, value in combination.items())])
        raise UsageError(
            f"run {runs[0].id} ({what}) has {len(sizes)} sizes; the model needs at least {MIN_POINTS_PER_REGIME}"
        )
    return metrics.pop(), sizes, times


def _least_squares(saa, sab, sbb, sa, sb, n) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(alpha, slope, sum of squared relative residuals) minimising sum((alpha + slope x s) / t - 1)^2
    with alpha, slope >= 0, from the sums over a regime of a = 1/t and b = s/t (saa = sum a^2,
    sab = sum ab, sbb = sum b^2, sa = sum a, sb = sum b, n points); arrays of regimes at once.

    Two unknowns make the non-negative least squares closed-form: the unconstrained solution
    where both are >= 0, else the better of the two one-unknown fits (both are feasible: a
    and b are >= 0). Done by hand because a report fits hundreds of runs, each with every
    regime a break point search tries (253 for 23 sizes), which a general solver called
    once per regime made the slowest part of `commscope report`."""
    with np.errstate(divide="ignore", invalid="ignore"):  # regimes too short to fit are never chosen
        det = saa * sbb - sab**2
        alpha = (sa * sbb - sb * sab) / det
        slope = (sb * saa - sa * sab) / det
        both = n - (alpha * sa + slope * sb)
        only_alpha = n - sa**2 / saa
        # every size 0 leaves b = 0: no slope to fit, the residual of a zero slope
        slope_alone = np.where(sbb > 0, sb / sbb, 0.0)
        only_slope = n - slope_alone * sb
        inside = (det > 0) & (alpha >= 0) & (slope >= 0)
        alpha_wins = only_alpha <= only_slope
        residual = np.where(inside, both, np.where(alpha_wins, only_alpha, only_slope))
        alpha = np.where(inside, alpha, np.where(alpha_wins, sa / saa, 0.0))
        slope = np.where(inside, slope, np.where(alpha_wins, 0.0, slope_alone))
        return alpha, slope, np.maximum(residual, 0.0)  # rounding can leave a perfect fit a hair below 0


def _fit_regime(sizes: np.ndarray, times: np.ndarray) -> tuple[float, float, float]:
    """(alpha, seconds-per-byte slope, sum of squared relative residuals) of one regime."""
    a, b = 1 / times, sizes / times
    alpha, slope, residual = _least_squares(
        np.sum(a * a), np.sum(a * b), np.sum(b * b), np.sum(a), np.sum(b), float(len(sizes))
    )
    return float(alpha), float(slope), float(residual)


def _regime_costs(sizes: np.ndarray, times: np.ndarray) -> np.ndarray:
    """cost[i, j]: the residual of one regime of points i..j-1 (inf where it has too few
    points), every regime at once: row i of each running sum adds up the points from i on."""
    count = len(sizes)
    a, b = 1 / times, sizes / times
    sums = [
        np.cumsum(np.triu(np.broadcast_to(values, (count, count))), axis=1) for values in (a * a, a * b, b * b, a, b)
    ]
    points = np.arange(count)[None, :] - np.arange(count)[:, None] + 1.0
    residual = _least_squares(*sums, points)[2]
    cost = np.full((count + 1, count + 1), np.inf)
    long_enough = points >= MIN_POINTS_PER_REGIME
    cost[:count, 1:][long_enough] = residual[long_enough]
    return cost


def _regime(sizes: np.ndarray, times: np.ndarray) -> Regime:
    alpha, slope, _ = _fit_regime(sizes, times)
    fitted = alpha + slope * sizes
    relative = (fitted - times) / times
    spread = float(np.sum((times - times.mean()) ** 2))
    r_squared = None if spread == 0 else 1 - float(np.sum((times - fitted) ** 2)) / spread
    flat = slope * sizes[-1] <= FLAT_SHARE * alpha
    return Regime(
        int(sizes[0]),
        int(sizes[-1]),
        len(sizes),
        float(alpha),
        math.inf if flat else float(1 / slope),
        r_squared,
        float(np.max(np.abs(relative))),
        float(np.sqrt(np.mean(relative**2))),
    )


def segment(sizes: np.ndarray, times: np.ndarray, max_regimes: int = MAX_REGIMES) -> tuple[list[int], float]:
    """Start indices of the regimes that minimise BIC, and that BIC."""
    count = len(sizes)
    cost = _regime_costs(sizes, times)
    # best[k, j]: least residual of the first j points in k regimes; cut[k, j]: where the last starts.
    regimes_possible = min(max_regimes, count // MIN_POINTS_PER_REGIME)
    best = np.full((regimes_possible + 1, count + 1), np.inf)
    cut = np.zeros((regimes_possible + 1, count + 1), dtype=int)
    best[0, 0] = 0.0
    # totals[s, end]: the first s points in k - 1 regimes, then one regime of s..end-1; a
    # start at or past the end is no regime (inf, never chosen where any other is finite)
    no_regime = np.tril(np.ones((count + 1, count + 1), dtype=bool))
    for k in range(1, regimes_possible + 1):
        totals = best[k - 1, :, None] + cost
        totals[no_regime] = np.inf
        cut[k, 1:] = np.argmin(totals[:, 1:], axis=0)
        best[k, 1:] = totals[cut[k, 1:], np.arange(1, count + 1)]
    choice, choice_bic = [0], math.inf
    for k in range(1, regimes_possible + 1):
        if not np.isfinite(best[k, count]):
            continue
        residual = max(best[k, count], count * _RESIDUAL_FLOOR**2)
        bic = count * math.log(residual / count) + PENALTY_FACTOR * (3 * k - 1) * math.log(count)
        if bic < choice_bic - 1e-9:
            starts, end = [], count
            for level in range(k, 0, -1):
                end = cut[level, end]
                starts.append(end)
            choice, choice_bic = starts[::-1], bic
    return choice, choice_bic


def fits(runs: Run | Sequence[Run], max_regimes: int = MAX_REGIMES) -> list[Fit]:
    """fit() of every combination of the sweep axes that vary among the runs (each
    datatype of a -T sweep is a curve of its own), in the core's order."""
    runs = [runs] if isinstance(runs, Run) else list(runs)
    axes = varying_axes(runs)
    found = combinations(key for run in runs for key in points_by_key(run, axes))
    return [fit(runs, max_regimes, axes, combination) for combination in found or [Axes()]]


def fit(
    runs: Run | Sequence[Run],
    max_regimes: int = MAX_REGIMES,
    axes: tuple[str, ...] | None = None,
    combination: Axes = Axes(),
) -> Fit:
    """The fit of one run, or of the per-size median of repeats of one benchmark (a
    median tames the noise of small sizes, which otherwise hides break points), at one
    combination of the sweep axes named in `axes` (default: those that vary)."""
    runs = [runs] if isinstance(runs, Run) else list(runs)
    axes = varying_axes(runs) if axes is None else axes
    metric, sizes, times = times_of(runs, axes, combination)
    size_array, time_array = np.array(sizes, dtype=float), np.array(times, dtype=float)
    starts, bic = segment(size_array, time_array, max_regimes)
    bounds = [*starts, len(sizes)]
    regimes = [_regime(size_array[a:b], time_array[a:b]) for a, b in zip(bounds, bounds[1:])]
    return Fit([run.id for run in runs], runs[0].benchmark, metric, sizes, times, regimes, bic, combination)
