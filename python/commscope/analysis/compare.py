"""Side-by-side comparison of runs: one column per run, one row per message size.

Also what every analysis command (compare, check, model, plot, report) shares:
which metric a set of runs has in common, and a run's values of that metric
keyed by point (message size, window and the other sweep axes). Which runs a
command line selects is the store's business (store.selection).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from commscope.errors import UsageError
from commscope.records.benchmarks import primary_metric
from commscope.records.metrics import unit_of
from commscope.records.run import AXES, AXIS_TITLES, Axes, Point, PointKey, Run

#: Short metric names the command line accepts, beside the stored names themselves.
METRIC_ALIASES = {
    "latency": "latency_us", "lat": "latency_us",
    "bw": "bandwidth_MBps", "bandwidth": "bandwidth_MBps",
    "rate": "message_rate", "msgrate": "message_rate", "pingpong_bw": "pingpong_MBps",
    "min_latency": "min_latency_us", "max_latency": "max_latency_us",
}
# Which metric speaks for a run when none is asked for, after the benchmark's own.
_PREFERRED = ("latency_us", "bandwidth_MBps", "message_rate", "t_avg_us", "t_us", "mbytes_per_sec",
              "overall_us", "init_avg_ms")
_METRIC_TITLES = {"latency_us": "Latency", "bandwidth_MBps": "Bandwidth", "message_rate": "Message rate"}

#: A row of a series, a records.run.PointKey: message size (None for barrier-like
#: benchmarks); the window only for runs that vary it at one size (mbw_mr -V), else
#: None; the sweep axes that vary among the runs looked at together, the others unset.
Key = PointKey


# -- runs ------------------------------------------------------------------------

def repeat_groups(runs: Sequence[Run]) -> list[list[Run]]:
    """Runs of one benchmark with the same label and system, as `commscope run --repeat`
    makes them, grouped in order of first appearance."""
    groups: dict[tuple, list[Run]] = {}
    for run in runs:
        groups.setdefault((run.benchmark, run.label, run.system), []).append(run)
    return list(groups.values())


# -- metrics and series -----------------------------------------------------------

_TIME_UNITS = {"us", "ms", "s"}
_RATE_UNITS = {"MB/s", "messages/s", "GB/s", "Gflop/s", "GUP/s", "IOPS"}  # higher is better


def time_relation(metric: str) -> int:
    """+1 if `metric` grows with the time per operation (latency), -1 if it shrinks with
    it (bandwidth, message rate), 0 if it is not derived from it."""
    unit = unit_of(metric)
    if unit in _TIME_UNITS:
        return 1
    if unit in _RATE_UNITS:
        return -1
    return 0


def higher_is_worse(metric: str) -> bool | None:
    """Which direction is bad for `metric`: True for times, False for rates and
    percentages (overlap), None when the metric has no known direction."""
    relation = time_relation(metric)
    if relation:
        return relation > 0
    return False if unit_of(metric) == "%" else None


def resolve_metric(name: str) -> str:
    return METRIC_ALIASES.get(name.lower(), name)


#: Metrics computed from stored ones where a run has what they need: seed 003's ping-pong
#: bandwidth, bytes over one-way latency in µs (= MB/s).
DERIVED = {
    "pingpong_MBps": lambda point: point.size / point.metrics["latency_us"]
    if point.size and isinstance(point.metrics.get("latency_us"), (int, float)) and point.metrics["latency_us"] > 0
    else None,
}


def numeric_metrics(run: Run) -> list[str]:
    """Metrics with a number at some size of the run, in order of appearance (derived last)."""
    stored = [name for point in run.points for name, value in point.metrics.items()
              if isinstance(value, (int, float)) and not isinstance(value, bool)]
    derived = [name for name, compute in DERIVED.items() if any(compute(point) is not None for point in run.points)]
    return list(dict.fromkeys([*stored, *derived]))


def primary(run: Run) -> str | None:
    """The metric that speaks for a run: its benchmark's main metric if it has it."""
    present = numeric_metrics(run)
    for name in (primary_metric(run.benchmark), *_PREFERRED):
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
            raise UsageError(f"run {run.id} ({run.benchmark}) has no metric {requested!r}; it has: "
                             f"{', '.join(numeric_metrics(run)) or 'none'}")
        return metric
    by_metric: dict[str | None, list[Run]] = {}
    for run in runs:
        by_metric.setdefault(primary(run), []).append(run)
    if len(by_metric) == 1:
        metric = next(iter(by_metric))
        if metric is None:
            raise UsageError(f"run {runs[0].id} has no numbers to compare")
        return metric
    groups = "; ".join(f"{metric}: runs {', '.join(str(run.id) for run in group)}"
                       for metric, group in by_metric.items())
    raise UsageError(f"the runs measure different metrics ({groups}); select runs of one kind "
                     "(--benchmark) or name a metric they all have (--metric)")


def varying_axes(runs: Sequence[Run]) -> tuple[str, ...]:
    """The sweep axes with more than one value among the runs' points. "Not swept" is no
    value: an imported table that does not say its datatype lines up with a run that
    does, as long as nothing else differs."""
    return tuple(name for name in AXES
                 if len({getattr(point.axes, name) for run in runs for point in run.points} - {None}) > 1)


def points_by_key(run: Run, axes: tuple[str, ...] | None = None) -> dict[Key, Point]:
    """A run's points by key, with the sweep axes named in `axes` (default: those that vary
    within the run); the window counts only where one size of one axis combination has
    several, so runs with different -W line up."""
    axes = varying_axes([run]) if axes is None else axes
    series_keys = [(point.size, point.axes.only(axes)) for point in run.points]
    varies = len(series_keys) != len(set(series_keys))
    return {PointKey(point.size, point.window if varies else None, point.axes.only(axes)): point
            for point in run.points}


def series(run: Run, metric: str, axes: tuple[str, ...] | None = None) -> dict[Key, float]:
    if metric in DERIVED:
        values = {key: DERIVED[metric](point) for key, point in points_by_key(run, axes).items()}
        return {key: value for key, value in values.items() if value is not None}
    return {key: point.metrics[metric] for key, point in points_by_key(run, axes).items()
            if isinstance(point.metrics.get(metric), (int, float))}


def combinations(keys) -> list[Axes]:
    """The axis combinations among `keys`, in order of first appearance (the core's loop order)."""
    return list(dict.fromkeys(key.axes for key in keys))


def sort_keys(keys) -> list[Key]:
    """Keys grouped by axis combination (first appearance first), by size and window within."""
    keys = list(dict.fromkeys(keys))
    order = {axes: index for index, axes in enumerate(combinations(keys))}
    return sorted(keys, key=lambda key: (order[key.axes], key.size is not None, key.size or 0, key.window or 0))


# -- formatting -------------------------------------------------------------------

def format_size(size: int | None) -> str:
    """1 KiB, 4 MiB, 12 B: sizes as people read them on axes and in prose."""
    if size is None:
        return "-"
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def format_key(key: Key) -> str:
    """Size and window; the axes are shown apart (columns, headings)."""
    size, window, _ = key
    text = "-" if size is None else str(size)
    return f"{text} w{window}" if window is not None else text


def format_value(value: float | None) -> str:
    """OMB's two decimals; '-' where there is no value."""
    return "-" if value is None else f"{value:.2f}"


def metric_title(metric: str) -> str:
    unit = unit_of(metric)
    title = _METRIC_TITLES.get(metric, metric)
    return f"{title} ({unit})" if unit else title


def direction_text(metric: str) -> str:
    worse = higher_is_worse(metric)
    return "" if worse is None else ("lower is better" if worse else "higher is better")


def column_names(runs: Sequence[Run]) -> list[str]:
    """Each run's label, else its system, else "run N"; repeated names get their run id."""
    names = [run.label or run.system or f"run {run.id}" for run in runs]
    return [f"{name} (run {run.id})" if names.count(name) > 1 else name for name, run in zip(names, runs)]


# -- the comparison ------------------------------------------------------------------

@dataclass
class Row:
    key: Key
    values: list[float | None]

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

    @property
    def unit(self) -> str:
        return unit_of(self.metric)

    def extra_headers(self) -> list[str]:
        first = self.names[0]
        headers = []
        for name in self.names[1:]:
            headers += [f"{name}/{first}"] if self.ratio else []
            headers += [f"{name} vs {first} %"] if self.pdiff else []
        return headers

    def extras(self, row: Row) -> list[tuple[str, float | None]]:
        """("ratio" or "pdiff", number) cells of a row, in extra_headers() order."""
        cells = []
        for ratio in row.ratios():
            cells += [("ratio", ratio)] if self.ratio else []
            cells += [("pdiff", None if ratio is None else 100 * (ratio - 1))] if self.pdiff else []
        return cells

    def caption(self) -> str:
        text = f"{metric_title(self.metric)}, {direction_text(self.metric) or 'no known direction'}"
        if self.ratio or self.pdiff:
            text += f"; ratios against {self.names[0]}"
        return text


def compare(runs: Sequence[Run], metric: str | None = None, *, ratio: bool = False,
            pdiff: bool = False) -> Comparison:
    runs = list(runs)
    metric = common_metric(runs, metric)
    axes = varying_axes(runs)
    columns = [series(run, metric, axes) for run in runs]
    keys = sort_keys(key for column in columns for key in column)
    rows = [Row(key, [column.get(key) for column in columns]) for key in keys]
    return Comparison(metric, runs, column_names(runs), rows, ratio=ratio and len(runs) > 1,
                      pdiff=pdiff and len(runs) > 1, axes=axes)


def axis_cells(comparison: Comparison, row: Row) -> list[str | None]:
    """The row's values of the axes that vary (None where a run did not sweep one)."""
    return [getattr(row.key.axes, name) for name in comparison.axes]


_EXTRA_FORMATS = {"ratio": "{:.3f}", "pdiff": "{:+.1f}%"}


def _format_extras(comparison: Comparison, row: Row) -> list[str]:
    return ["-" if value is None else _EXTRA_FORMATS[kind].format(value) for kind, value in comparison.extras(row)]


def text_cells(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows as displayed text (table, Markdown and the HTML report share them)."""
    header = [*(AXIS_TITLES[name] for name in comparison.axes), "Size (B)", *comparison.names,
              *comparison.extra_headers()]
    rows = [[*(cell or "-" for cell in axis_cells(comparison, row)), format_key(row.key),
             *map(format_value, row.values), *_format_extras(comparison, row)]
            for row in comparison.rows]
    return header, rows


def _markdown_cell(text: str) -> str:
    # A pipe would end the cell; < and & would be taken as HTML by Markdown renderers.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def to_markdown(comparison: Comparison) -> str:
    header, rows = text_cells(comparison)
    lines = [_markdown_cell(comparison.caption()) + ".", "",
             "| " + " | ".join(map(_markdown_cell, header)) + " |",
             "|" + "|".join(":---" if index < len(comparison.axes) else "---:"
                            for index in range(len(header))) + "|"]
    lines += ["| " + " | ".join(map(_markdown_cell, row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def to_csv(comparison: Comparison) -> str:
    """Numbers as stored (no rounding), empty cells where a value is missing."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    varies = any(row.key.window is not None for row in comparison.rows)
    writer.writerow([*comparison.axes, "size", *(["window"] if varies else []), *comparison.names,
                     *comparison.extra_headers()])
    for row in comparison.rows:
        cells = [*row.values, *(value for _, value in comparison.extras(row))]
        writer.writerow([*axis_cells(comparison, row), row.key.size, *([row.key.window] if varies else []),
                         *("" if cell is None else cell for cell in cells)])
    return buffer.getvalue()


def to_json(comparison: Comparison) -> str:
    def number(value):
        return None if value is None or (isinstance(value, float) and not math.isfinite(value)) else value

    document = {
        "metric": comparison.metric,
        "unit": comparison.unit,
        "better": {True: "lower", False: "higher", None: None}[higher_is_worse(comparison.metric)],
        "runs": [{"id": run.id, "name": name, "benchmark": run.benchmark, "label": run.label,
                  "system": run.system} for run, name in zip(comparison.runs, comparison.names)],
        "rows": [{**dict(zip(comparison.axes, axis_cells(comparison, row))), "size": row.key.size,
                  "window": row.key.window, "values": [number(v) for v in row.values],
                  **({"ratios": [number(r) for r in row.ratios()]} if comparison.ratio or comparison.pdiff else {})}
                 for row in comparison.rows],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


#: Machine-readable formats; "table" is drawn by views.comparison_table.
FORMATS = {"markdown": to_markdown, "csv": to_csv, "json": to_json}
