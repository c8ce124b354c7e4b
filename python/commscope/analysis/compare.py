"""Side-by-side comparison of runs: one column per run, one row per message size.

Also what every analysis command (compare, check, model, plot, report) shares:
which runs a command line selects (run ids, labels, systems, a time window,
the last `commscope run`), which metric a set of runs has in common, and a
run's values of that metric keyed by message size.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from commscope.errors import UsageError
from commscope.records.benchmarks import primary_metric
from commscope.records.metrics import unit_of
from commscope.records.run import Point, Run
from commscope.store.db import Store

#: Short metric names the command line accepts, beside the stored names themselves.
METRIC_ALIASES = {
    "latency": "latency_us", "lat": "latency_us",
    "bw": "bandwidth_MBps", "bandwidth": "bandwidth_MBps",
    "rate": "message_rate", "msgrate": "message_rate",
    "min_latency": "min_latency_us", "max_latency": "max_latency_us",
}
# Which metric speaks for a run when none is asked for, after the benchmark's own.
_PREFERRED = ("latency_us", "bandwidth_MBps", "message_rate", "t_avg_us", "t_us", "mbytes_per_sec",
              "overall_us", "init_avg_ms")
_METRIC_TITLES = {"latency_us": "Latency", "bandwidth_MBps": "Bandwidth", "message_rate": "Message rate"}

#: A row of a series: message size (None for barrier-like benchmarks) and window,
#: the window only for runs that vary it at one size (mbw_mr -V), else None.
Key = tuple[int | None, int | None]


# -- selecting runs -------------------------------------------------------------

_AGE = re.compile(r"(?P<count>\d+(?:\.\d+)?)\s*(?P<unit>[smhdw])")
_AGE_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """The start of a time window: an age such as 30m, 12h, 7d, 2w, or an ISO date or time
    (UTC unless it says otherwise). Raises ValueError with a message."""
    now = now or datetime.now(timezone.utc)
    match = _AGE.fullmatch(text.strip())
    if match:
        return now - timedelta(**{_AGE_UNITS[match["unit"]]: float(match["count"])})
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is neither an age such as 7d, 12h, 30m nor a date such as 2026-01-31") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


@dataclass
class Selection:
    """Which stored runs a command works on. Selectors add runs (in their order);
    the filters keep those that match. No selector means every stored run."""

    selectors: Sequence[str] = ()
    benchmark: str | None = None
    since: datetime | None = None
    last_invocation: bool = False

    def describe(self) -> str:
        parts = [repr(s) for s in self.selectors]
        parts += [f"--benchmark {self.benchmark}"] if self.benchmark else []
        parts += [f"--since {self.since.isoformat(timespec='minutes')}"] if self.since else []
        parts += ["--last-invocation"] if self.last_invocation else []
        return ", ".join(parts) or "(all runs)"


def _run_time(row) -> datetime | None:
    text = row["started_at"] or row["invoked_at"]
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _selector_rows(store: Store, selector: str) -> list:
    """Rows a selector names: a run id, `last`, `label:TEXT`, `system:NAME`,
    `invocation:N`, or bare text that is a label or else a system name."""
    kind, _, value = selector.partition(":")
    if selector.isdigit() or selector == "last":
        run_id = store.last_run_id() if selector == "last" else int(selector)
        rows = store.run_rows(run_id=run_id) if run_id is not None else []
        if not rows:
            raise UsageError(f"no run {selector} in {store.path}")
        return rows
    if kind in ("label", "system", "invocation") and value:
        if kind == "invocation" and not value.isdigit():
            raise UsageError(f"{selector!r}: an invocation is a number")
        rows = store.run_rows(**{"invocation_id" if kind == "invocation" else kind:
                                 int(value) if kind == "invocation" else value})
    else:
        rows = store.run_rows(label=selector) or store.run_rows(system=selector)
    if not rows:
        raise UsageError(f"no run matches {selector!r} in {store.path} "
                         "(a selector is a run id, `last`, a label or a system name)")
    return sorted(rows, key=lambda row: row["id"])


def select_runs(store: Store, selection: Selection) -> list[Run]:
    """The selected runs, in selector order (oldest first within one selector)."""
    if selection.last_invocation:
        invocation_id = store.last_invocation_id("run")
        if invocation_id is None:
            raise UsageError(f"--last-invocation: no `commscope run` has stored runs in {store.path}")
        rows = sorted(store.run_rows(invocation_id=invocation_id), key=lambda row: row["id"])
    elif not selection.selectors:
        rows = sorted(store.run_rows(), key=lambda row: row["id"])
    else:
        rows = []
    for selector in selection.selectors:
        rows += _selector_rows(store, selector)
    if selection.benchmark:
        rows = [row for row in rows if row["benchmark"] == selection.benchmark]
    if selection.since:
        rows = [row for row in rows if (_run_time(row) or selection.since) >= selection.since]
    ids = list(dict.fromkeys(row["id"] for row in rows))
    if not ids:
        raise UsageError(f"no stored run matches {selection.describe()} in {store.path}")
    return [store.run(run_id) for run_id in ids]


def repeat_groups(runs: Sequence[Run]) -> list[list[Run]]:
    """Runs of one benchmark with the same label and system, as `commscope run --repeat`
    makes them, grouped in order of first appearance."""
    groups: dict[tuple, list[Run]] = {}
    for run in runs:
        groups.setdefault((run.benchmark, run.label, run.system), []).append(run)
    return list(groups.values())


# -- metrics and series -----------------------------------------------------------

_TIME_UNITS = {"us", "ms", "s"}
_RATE_UNITS = {"MB/s", "messages/s"}


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


def numeric_metrics(run: Run) -> list[str]:
    """Metrics with a number at some size of the run, in order of appearance."""
    return list(dict.fromkeys(name for point in run.points for name, value in point.metrics.items()
                              if isinstance(value, (int, float)) and not isinstance(value, bool)))


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


def points_by_key(run: Run) -> dict[Key, Point]:
    """A run's points by (size, window); the window counts only where one size has several."""
    sizes = [point.size for point in run.points]
    varies = len(sizes) != len(set(sizes))
    return {(point.size, point.window if varies else None): point for point in run.points}


def series(run: Run, metric: str) -> dict[Key, float]:
    return {key: point.metrics[metric] for key, point in points_by_key(run).items()
            if isinstance(point.metrics.get(metric), (int, float))}


def sort_keys(keys) -> list[Key]:
    return sorted(set(keys), key=lambda key: (key[0] is not None, key[0] or 0, key[1] or 0))


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
    size, window = key
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
    #: the runs behind each column: one, or the repeats whose median it shows
    groups: list[list[Run]] = field(default_factory=list)

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
        if any(len(group) > 1 for group in self.groups):
            text += "; median of repeated launches [its order-statistic interval, 95% from 6 launches]"
        return text


def compare(runs: Sequence[Run], metric: str | None = None, *, ratio: bool = False,
            pdiff: bool = False) -> Comparison:
    """A column per run; repeats of one benchmark, label and system (`run --repeat`) share
    one column: their per-size median with its interval."""
    from commscope.analysis.repeats import median_series  # it builds on this module

    runs = list(runs)
    metric = common_metric(runs, metric)
    groups = repeat_groups(runs)
    medians = [median_series(group, metric) if len(group) > 1 else None for group in groups]
    columns = [{key: cell.median for key, cell in median.items()} if median is not None
               else series(group[0], metric) for group, median in zip(groups, medians)]
    keys = sort_keys(key for column in columns for key in column)
    rows = [Row(key, [column.get(key) for column in columns],
                [median.get(key) if median is not None else None for median in medians]) for key in keys]
    names = [f"{name} (median of {len(group)})" if len(group) > 1 else name
             for name, group in zip(column_names([group[0] for group in groups]), groups)]
    return Comparison(metric, [group[0] for group in groups], names, rows, ratio=ratio and len(groups) > 1,
                      pdiff=pdiff and len(groups) > 1, groups=groups)


_EXTRA_FORMATS = {"ratio": "{:.3f}", "pdiff": "{:+.1f}%"}


def _format_extras(comparison: Comparison, row: Row) -> list[str]:
    return ["-" if value is None else _EXTRA_FORMATS[kind].format(value) for kind, value in comparison.extras(row)]


def text_cells(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows as displayed text (table, Markdown and the HTML report share them)."""
    header = ["Size (B)", *comparison.names, *comparison.extra_headers()]
    rows = [[format_key(row.key), *(cell.text() if cell is not None else format_value(value)
                                     for value, cell in zip(row.values, row.intervals or [None] * len(row.values))),
             *_format_extras(comparison, row)]
            for row in comparison.rows]
    return header, rows


def _markdown_cell(text: str) -> str:
    # A pipe would end the cell; < and & would be taken as HTML by Markdown renderers.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def to_markdown(comparison: Comparison) -> str:
    header, rows = text_cells(comparison)
    lines = [_markdown_cell(comparison.caption()) + ".", "",
             "| " + " | ".join(map(_markdown_cell, header)) + " |",
             "|" + "|".join("---:" for _ in header) + "|"]
    lines += ["| " + " | ".join(map(_markdown_cell, row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def to_csv(comparison: Comparison) -> str:
    """Numbers as stored (no rounding), empty cells where a value is missing."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    varies = any(row.key[1] is not None for row in comparison.rows)
    spans = [i for i, group in enumerate(comparison.groups) if len(group) > 1]  # repeat medians' intervals
    writer.writerow(["size", *(["window"] if varies else []), *comparison.names, *comparison.extra_headers(),
                     *(f"{comparison.names[i]} {end}" for i in spans for end in ("low", "high"))])
    for row in comparison.rows:
        cells = [*row.values, *(value for _, value in comparison.extras(row)),
                 *(getattr(row.intervals[i], end) if row.intervals and row.intervals[i] else None
                   for i in spans for end in ("low", "high"))]
        writer.writerow([row.key[0], *([row.key[1]] if varies else []),
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
                  "system": run.system,
                  **({"repeats": [r.id for r in group]} if len(group) > 1 else {})}
                 for run, name, group in zip(comparison.runs, comparison.names, comparison.groups)],
        "rows": [{"size": row.key[0], "window": row.key[1], "values": [number(v) for v in row.values],
                  **({"intervals": [None if cell is None else [cell.low, cell.high, cell.n] for cell in row.intervals]}
                     if any(row.intervals) else {}),
                  **({"ratios": [number(r) for r in row.ratios()]} if comparison.ratio or comparison.pdiff else {})}
                 for row in comparison.rows],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


#: Machine-readable formats; "table" is drawn by views.comparison_table.
FORMATS = {"markdown": to_markdown, "csv": to_csv, "json": to_json}
