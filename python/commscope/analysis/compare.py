"""Side-by-side comparison of runs: one column per run, one row per point.

Also what every analysis command (compare, check, model, plot, report) shares:
which metric a set of runs has in common, and a run's values of that metric
keyed by point (message size, window and the other sweep axes). Which runs a
command line selects is the store's business (store.selection); what metrics are
called and which way is better, the records' (records.metrics); how a comparison
is written out, the output's (output.comparison).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from commscope.analysis.repeats import median_series, repeat_groups
from commscope.errors import UsageError
from commscope.records.benchmarks import primary_metric
from commscope.records.metrics import PREFERRED, resolve_metric, unit_of
from commscope.records.run import AXES, Axes, Point, PointKey, Run

#: A row of a series, a records.run.PointKey: message size (None for barrier-like
#: benchmarks); the window only for runs that vary it at one size (mbw_mr -V), else
#: None; the sweep axes that vary among the runs looked at together, the others unset.
Key = PointKey


# -- metrics and series -----------------------------------------------------------

#: Metrics computed from stored ones where a run has what they need: a student report's ping-pong
#: bandwidth, bytes over one-way latency in µs (= MB/s).
DERIVED = {
    "pingpong_MBps": lambda point: (
        point.size / point.metrics["latency_us"]
        if point.size and isinstance(point.metrics.get("latency_us"), (int, float)) and point.metrics["latency_us"] > 0
        else None
    ),
}


def numeric_metrics(run: Run) -> list[str]:
    """Metrics with a number at some size of the run, in order of appearance (derived last)."""
    return list(run.derived("metrics", None, lambda: _numeric_metrics(run)))


def _numeric_metrics(run: Run) -> list[str]:
    stored = [
        name
        for point in run.points
        for name, value in point.metrics.items()
        if isinstance(value, (int, float)) and not isinstance(value, bool)
    ]
    derived = [name for name, compute in DERIVED.items() if any(compute(point) is not None for point in run.points)]
    return list(dict.fromkeys([*stored, *derived]))


def primary(run: Run) -> str | None:
    """The metric that speaks for a run: its benchmark's main metric if it has it."""
    present = numeric_metrics(run)
    for name in (primary_metric(run.benchmark), *PREFERRED):
        if name in present:
            return name
    return present[0] if present else None


def common_metric(runs: Sequence[Run], requested: str | None = None) -> str:
    """The metric to show for `runs`: `requested` (which every run must have), or the
    main metric they share. Raises UsageError naming the runs that do not fit."""
    if requested:
        metric = resolve_metric(requested)
        lacking = [run for run in runs if metric not in numeric_metrics(run)]
        if lacking:
            run = lacking[0]
            raise UsageError(
                f"run {run.id} ({run.benchmark}) has no metric {requested!r}; it has: "
                f"{', '.join(numeric_metrics(run)) or 'none'}"
            )
        return metric
    by_metric: dict[str | None, list[Run]] = {}
    for run in runs:
        by_metric.setdefault(primary(run), []).append(run)
    if len(by_metric) == 1:
        metric = next(iter(by_metric))
        if metric is None:
            raise UsageError(f"run {runs[0].id} has no numbers to compare")
        return metric
    groups = "; ".join(
        f"{metric}: runs {', '.join(str(run.id) for run in group)}" for metric, group in by_metric.items()
    )
    raise UsageError(
        f"the runs measure different metrics ({groups}); select runs of one kind "
        "(--benchmark) or name a metric they all have (--metric)"
    )


def varying_axes(runs: Sequence[Run]) -> tuple[str, ...]:
    """The sweep axes with more than one value among the runs' points. "Not swept" is no
    value: an imported table that does not say its datatype lines up with a run that
    does, as long as nothing else differs."""
    values = [_axis_values(run) for run in runs]
    return tuple(name for index, name in enumerate(AXES) if len(set().union(*(run[index] for run in values))) > 1)


def _axis_values(run: Run) -> tuple[frozenset, ...]:
    """Per sweep axis, the values the run's points set (None, "not swept", left out)."""

    def answer():
        return tuple(frozenset(getattr(point.axes, name) for point in run.points) - {None} for name in AXES)

    return run.derived("axis values", None, answer)


def points_by_key(run: Run, axes: tuple[str, ...] | None = None) -> dict[Key, Point]:
    """A run's points by key, with the sweep axes named in `axes` (default: those that vary
    within the run); the window counts only where one size of one axis combination has
    several, so runs with different -W line up."""
    axes = varying_axes([run]) if axes is None else axes
    return dict(run.derived("points by key", axes, lambda: _points_by_key(run, axes)))


def _points_by_key(run: Run, axes: tuple[str, ...]) -> dict[Key, Point]:
    keyed = [
        ((point.size, point.axes.only(axes), point.pair.key if point.pair is not None else None), point)
        for point in run.points
    ]
    varies = len(keyed) != len({series_key for series_key, _ in keyed})
    return {
        PointKey(size, point.window if varies else None, combination, pair): point
        for (size, combination, pair), point in keyed
    }


def series(run: Run, metric: str, axes: tuple[str, ...] | None = None) -> dict[Key, float]:
    if metric in DERIVED:
        values = {key: DERIVED[metric](point) for key, point in points_by_key(run, axes).items()}
        return {key: value for key, value in values.items() if value is not None}
    return {
        key: point.metrics[metric]
        for key, point in points_by_key(run, axes).items()
        if isinstance(point.metrics.get(metric), (int, float))
    }


def combinations(keys) -> list[Axes]:
    """The axis combinations among `keys`, in order of first appearance (the core's loop order)."""
    return list(dict.fromkeys(key.axes for key in keys))


def sort_keys(keys) -> list[Key]:
    """Keys grouped by axis combination (first appearance first), by size and window within."""
    keys = list(dict.fromkeys(keys))
    order = {axes: index for index, axes in enumerate(combinations(keys))}
    return sorted(keys, key=lambda key: (order[key.axes], key.size is not None, key.size or 0, key.window or 0))


def column_names(runs: Sequence[Run]) -> list[str]:
    """Each run's label, else its system, else "run N"; repeated names get their run id."""
    names = [run.label or run.system or f"run {run.id}" for run in runs]
    return [f"{name} (run {run.id})" if names.count(name) > 1 else name for name, run in zip(names, runs)]


# -- the comparison ------------------------------------------------------------------


@dataclass
class Row:
    key: Key
    values: list[float | None]
    #: per column, for repeated launches: the median's interval (analysis.repeats), else None
    intervals: list = field(default_factory=list)

    def ratios(self) -> list[float | None]:
        """Each other run's value over the first run's (None where either is missing)."""
        first = self.values[0]
        return [None if first in (None, 0) or value is None else value / first for value in self.values[1:]]


@dataclass
class Comparison:
    metric: str
    runs: list[Run]
    names: list[str]
    rows: list[Row] = field(default_factory=list)
    ratio: bool = False
    pdiff: bool = False
    axes: tuple[str, ...] = ()  # sweep axes that vary among the runs: a column each
    #: the runs behind each column: one, or the repeats whose median it shows
    groups: list[list[Run]] = field(default_factory=list)

    @property
    def unit(self) -> str:
        return unit_of(self.metric)

    def extras(self, row: Row) -> list[tuple[str, float | None]]:
        """("ratio" or "pdiff", number) cells of a row: for each run after the first, its
        ratio to the first, then its percent difference, as asked for."""
        cells = []
        for ratio in row.ratios():
            cells += [("ratio", ratio)] if self.ratio else []
            cells += [("pdiff", None if ratio is None else 100 * (ratio - 1))] if self.pdiff else []
        return cells

    def interval_coverages(self) -> list[tuple[int, float]]:
        """(launches, coverage) of the repeat columns' intervals, each column's lowest (a size
        some launch lacks has fewer), without repeating a pair."""
        found = []
        for column in range(len(self.groups)):
            cells = [row.intervals[column] for row in self.rows if row.intervals and row.intervals[column]]
            if cells:
                cell = min(cells, key=lambda cell: cell.coverage)
                found.append((cell.n, cell.coverage))
        return list(dict.fromkeys(found))


def compare(runs: Sequence[Run], metric: str | None = None, *, ratio: bool = False, pdiff: bool = False) -> Comparison:
    """A column per run; the launches of one `run --repeat` (analysis.repeats) share one
    column: their per-size median with its interval."""
    runs = list(runs)
    metric = common_metric(runs, metric)
    axes = varying_axes(runs)
    groups = repeat_groups(runs)
    medians = [
        median_series([series(run, metric, axes) for run in group]) if len(group) > 1 else None for group in groups
    ]
    columns = [
        {key: cell.median for key, cell in median.items()} if median is not None else series(group[0], metric, axes)
        for group, median in zip(groups, medians)
    ]
    keys = sort_keys(key for column in columns for key in column)
    rows = [
        Row(
            key,
            [column.get(key) for column in columns],
            [median.get(key) if median is not None else None for median in medians],
        )
        for key in keys
    ]
    names = [
        f"{name} (median of {len(group)})" if len(group) > 1 else name
        for name, group in zip(column_names([group[0] for group in groups]), groups)
    ]
    return Comparison(
        metric,
        [group[0] for group in groups],
        names,
        rows,
        ratio=ratio and len(groups) > 1,
        pdiff=pdiff and len(groups) > 1,
        axes=axes,
        groups=groups,
    )
