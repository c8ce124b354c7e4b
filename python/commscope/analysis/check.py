"""`commscope check`: is a new run worse than a baseline, size by size?

The rule (shared/reference/harness.md §10.2): per message size, compare the
median of the new runs with the median of the baseline runs. A size fails
only when it is worse in the metric's bad direction (higher latency, lower
bandwidth) by more than max(tolerance x baseline, floor), and, where there is
something to test with (repeats on both sides, or per-size sample statistics),
the difference is statistically significant. A size the baseline has and the
new runs lack fails too: a sweep that stopped early must not pass. A curve
passes when at most --allow-failing sizes fail.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from commscope.analysis.compare import Key, combinations, common_metric, points_by_key, sort_keys, varying_axes
from commscope.analysis.repeats import repeat_groups
from commscope.analysis.stats import Evidence, Summary, worse_evidence
from commscope.analysis.sweep_check import SweepCheck
from commscope.errors import UsageError
from commscope.records.metrics import higher_is_worse, time_relation, unit_of
from commscope.records.run import Axes, Point, Run

DEFAULT_TOLERANCE = 0.10
#: Default floor for time metrics: OMB prints two decimals of a microsecond, so
#: differences below a few hundredths are rounding, not regressions.
DEFAULT_TIME_FLOOR_US = 0.05

_PERCENT = re.compile(r"(?P<number>\d+(?:\.\d*)?|\.\d+)\s*%")
_QUANTITY = re.compile(r"(?P<number>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+)\s*(?P<unit>[A-Za-zµ/]*)")
# Units a floor may carry, as (dimension, factor to the metric's stored unit).
_FLOOR_UNITS = {
    "ns": ("time", 1e-3),
    "us": ("time", 1.0),
    "µs": ("time", 1.0),
    "ms": ("time", 1e3),
    "s": ("time", 1e6),
    "B/s": ("bandwidth", 1e-6),
    "KB/s": ("bandwidth", 1e-3),
    "MB/s": ("bandwidth", 1.0),
    "GB/s": ("bandwidth", 1e3),
    "msg/s": ("rate", 1.0),
    "/s": ("rate", 1.0),
}
_DIMENSION_OF_UNIT = {"us": "time", "ms": "time", "s": "time", "MB/s": "bandwidth", "messages/s": "rate"}
# The stored unit of a time metric may be ms (osu_init); floors are given in µs terms first.
_TIME_UNIT_FACTOR = {"us": 1.0, "ms": 1e-3, "s": 1e-6}


def parse_tolerance(text: str) -> float:
    """ "10%" -> 0.10. Raises ValueError with a message naming the text."""
    match = _PERCENT.fullmatch(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a percentage such as 10% or 2.5%")
    return float(match["number"]) / 100


@dataclass(frozen=True)
class Floor:
    """An absolute floor as typed: a number and its dimension (None for a bare number,
    taken in the metric's own unit)."""

    value: float
    dimension: str | None
    text: str

    def in_unit_of(self, metric: str) -> float:
        unit = unit_of(metric)
        if self.dimension is None:
            return self.value
        if _DIMENSION_OF_UNIT.get(unit) != self.dimension:
            raise UsageError(
                f"--floor {self.text!r} is a {self.dimension} but {metric} is in {unit or 'no known unit'}"
            )
        return self.value * _TIME_UNIT_FACTOR.get(unit, 1.0)


def parse_floor(text: str) -> Floor:
    """ "0.05us", "2 MB/s", "0.1" -> Floor. Raises ValueError with a message naming the text."""
    match = _QUANTITY.fullmatch(text.strip())
    if not match or (match["unit"] and match["unit"] not in _FLOOR_UNITS):
        raise ValueError(
            f"{text!r} is not a floor such as 0.05us, 500ns, 10MB/s or a plain number in the metric's unit"
        )
    if not match["unit"]:
        return Floor(float(match["number"]), None, text)
    dimension, factor = _FLOOR_UNITS[match["unit"]]
    return Floor(float(match["number"]) * factor, dimension, text)


def default_floor(metric: str) -> float:
    unit = unit_of(metric)
    return DEFAULT_TIME_FLOOR_US * _TIME_UNIT_FACTOR[unit] if unit in _TIME_UNIT_FACTOR else 0.0


@dataclass(frozen=True)
class Policy:
    tolerance: float = DEFAULT_TOLERANCE
    floor: Floor | None = None  # None: default_floor() of the metric
    allow_failing: int = 0

    def floor_for(self, metric: str) -> float:
        return default_floor(metric) if self.floor is None else self.floor.in_unit_of(metric)


def excess(base: float, new: float, higher_worse: bool, tolerance: float, floor: float) -> float:
    """By how much `new` is worse than `base` beyond the allowed max(tolerance x base, floor);
    positive means beyond it. Also used by the ratio plot to mark failing sizes."""
    worse_by = new - base if higher_worse else base - new
    return worse_by - max(tolerance * abs(base), floor)


# Size statuses; FAILING ones count against --allow-failing.
OK, IMPROVED, NOT_SIGNIFICANT, FAIL, MISSING, NEW = ("ok", "improved", "not significant", "FAIL", "missing", "new")
FAILING = (FAIL, MISSING)


@dataclass
class SizeVerdict:
    key: Key
    base: float | None  # median over the baseline runs
    new: float | None  # median over the new runs
    allowed: float | None  # max(tolerance x base, floor), in the metric's unit
    evidence: Evidence | None
    status: str

    @property
    def change(self) -> float | None:
        """Relative change new/base - 1."""
        if self.base in (None, 0) or self.new is None:
            return None
        return self.new / self.base - 1


@dataclass
class CurveVerdict:
    """The verdict on one curve: new runs against the baseline runs of the same benchmark,
    at one combination of the sweep axes that vary (one datatype of a -T sweep...)."""

    benchmark: str
    metric: str
    name: str | None  # label (else system) of the new runs, when they have one
    base_runs: list[Run]
    new_runs: list[Run]
    policy: Policy
    sizes: list[SizeVerdict] = field(default_factory=list)
    axes: Axes = Axes()  # the combination; unset when no axis varies

    @property
    def failing(self) -> list[SizeVerdict]:
        return [size for size in self.sizes if size.status in FAILING]

    @property
    def passed(self) -> bool:
        return len(self.failing) <= self.policy.allow_failing

    @property
    def geomean_ratio(self) -> float | None:
        ratios = [
            size.new / size.base for size in self.sizes if size.base and size.new and size.base > 0 and size.new > 0
        ]
        return float(np.exp(np.mean(np.log(ratios)))) if ratios else None

    @property
    def worst(self) -> SizeVerdict | None:
        """The size that changed most in the bad direction."""
        sign = 1 if higher_is_worse(self.metric) else -1
        changed = [size for size in self.sizes if size.change is not None]
        return max(changed, key=lambda size: sign * size.change, default=None)


def _median(values: Sequence[float]) -> float | None:
    return float(np.median(values)) if values else None


def _measured(runs_points: Sequence[dict[Key, Point]], key: Key, metric: str) -> list[Point]:
    """The points at `key` that have a number for `metric`, one per run at most."""
    return [
        points[key]
        for points in runs_points
        if key in points and isinstance(points[key].metrics.get(metric), (int, float))
    ]


def _keyed(base_runs: Sequence[Run], new_runs: Sequence[Run]):
    """Each side's points by key (with the axes that vary among all the runs), and every key."""
    axes = varying_axes([*base_runs, *new_runs])
    base_points = [points_by_key(run, axes) for run in base_runs]
    new_points = [points_by_key(run, axes) for run in new_runs]
    return base_points, new_points, sort_keys(key for points in base_points + new_points for key in points)


def _judged_at(base: Sequence[Run], new: Sequence[Run], of_benchmark: Sequence[Run], first: bool) -> list[Axes]:
    """The combinations of the sweep axes that vary to judge the repeats `new` at, a verdict
    each (each datatype of a -T sweep passes or fails on its own; one, unset, when none
    varies): those `new` has and, for the benchmark's `first` group, those of the baseline
    that no new run of the benchmark has, which fail as missing. An imported file holds a
    run per datatype; each is judged at its own."""

    def held(points: Sequence[dict[Key, Point]]) -> list[Axes]:
        return combinations(key for keyed in points for key in keyed)

    base_points, all_new_points, _ = _keyed(base, of_benchmark)
    missing = [axes for axes in held(base_points) if axes not in held(all_new_points)] if first else []
    return list(dict.fromkeys([*held(_keyed(base, new)[1]), *missing])) or [Axes()]


def judge_curve(
    benchmark: str,
    metric: str,
    base_runs: Sequence[Run],
    new_runs: Sequence[Run],
    policy: Policy,
    name: str | None = None,
    combination: Axes | None = None,
) -> CurveVerdict:
    """The verdict at every size of one axis combination (None: every point of the runs)."""
    higher_worse = higher_is_worse(metric)
    if higher_worse is None:
        raise UsageError(f"cannot check {metric}: it is not known whether higher or lower is better")
    floor = policy.floor_for(metric)
    base_points, new_points, keys = _keyed(base_runs, new_runs)
    if combination is not None:
        keys = [key for key in keys if key.axes == combination]
    verdict = CurveVerdict(benchmark, metric, name, list(base_runs), list(new_runs), policy, axes=combination or Axes())
    use_summaries = time_relation(metric) != 0
    for key in keys:
        base_at, new_at = _measured(base_points, key, metric), _measured(new_points, key, metric)
        base_values = [point.metrics[metric] for point in base_at]
        new_values = [point.metrics[metric] for point in new_at]
        base, new = _median(base_values), _median(new_values)
        if base is None or new is None:
            status = MISSING if new is None else NEW
            verdict.sizes.append(SizeVerdict(key, base, new, None, None, status))
            continue
        allowed = max(policy.tolerance * abs(base), floor)
        beyond = excess(base, new, higher_worse, policy.tolerance, floor)
        evidence = worse_evidence(
            base_values,
            new_values,
            higher_worse,
            [Summary.of(point) for point in base_at] if use_summaries else (),
            [Summary.of(point) for point in new_at] if use_summaries else (),
        )
        if beyond > 0:
            status = FAIL if evidence.allows_failure else NOT_SIGNIFICANT
        elif excess(new, base, higher_worse, policy.tolerance, floor) > 0:
            status = IMPROVED
        else:
            status = OK
        verdict.sizes.append(SizeVerdict(key, base, new, allowed, evidence, status))
    return verdict


@dataclass
class CheckResult:
    baseline: str
    curves: list[CurveVerdict]
    unmatched: list[Run]  # new runs of benchmarks the baseline does not have
    sweeps: list[SweepCheck] = field(default_factory=list)  # pairs runs, judged pair by pair

    @property
    def passed(self) -> bool:
        return all(curve.passed for curve in self.curves) and all(sweep.passed for sweep in self.sweeps)


def check_curves(
    baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy: Policy, metric: str | None = None
) -> CheckResult:
    """Judge curves over message size against the baseline's runs of the same benchmark.
    Repeats (`commscope run --repeat`) are judged together; runs that are not each other's
    repeats (other systems, labels, invocations) get a curve each."""
    curves, unmatched = [], []
    groups = repeat_groups(new_runs)
    names = [group[0].label or group[0].system for group in groups]
    if len(set(names)) == 1:
        names = [None] * len(groups)  # one group per benchmark: the benchmark names it
    judged: set[str] = set()  # benchmarks whose baseline-only combinations have a curve
    for new, name in zip(groups, names):
        benchmark = new[0].benchmark
        base = [run for run in base_runs if run.benchmark == benchmark]
        if not base:
            unmatched += new
            continue
        chosen = common_metric(base + new, metric)
        of_benchmark = [run for run in new_runs if run.benchmark == benchmark]
        curves += [
            judge_curve(benchmark, chosen, base, new, policy, name, combination)
            for combination in _judged_at(base, new, of_benchmark, benchmark not in judged)
        ]
        judged.add(benchmark)
    return CheckResult(baseline, curves, unmatched)
