"""OSU Micro-Benchmarks style text tables, rendered from Points.

The layout is OMB's, column for column: "%-10d" size, then "%18.2f" values
(the iterations column of -f tables is "%12d"), headers right-aligned over
their columns. Columns come from the metrics the points carry, so a native run
and an imported OMB file print alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from commscope.records.run import Point, Run

SIZE_WIDTH = 10
FIELD_WIDTH = 18
ITERATIONS_WIDTH = 12

_TITLES = {
    "latency_us": "Avg Latency(us)",
    "bandwidth_MBps": "Bandwidth (MB/s)",
    "message_rate": "Messages/s",
    "min_latency_us": "Min Latency(us)",
    "max_latency_us": "Max Latency(us)",
    "min_bandwidth_MBps": "Min BW(MB/s)",
    "max_bandwidth_MBps": "Max BW(MB/s)",
}
_MAIN = ("latency_us", "bandwidth_MBps", "message_rate")
_FULL = ("min_latency_us", "max_latency_us", "min_bandwidth_MBps", "max_bandwidth_MBps")
# Per-point bookkeeping that has its own Point field or column, not a metric column;
# --precision's outcome is not one of OMB's columns either (precision_line below).
_NOT_COLUMNS = {"iterations", "warmup", "batch", "validation", "validation_errors", "precision_achieved_pct",
                "precision_target_pct", "precision_rounds", "precision_stop"}
_PERCENTILE = re.compile(r"p(?P<whole>\d+)(?:_(?P<frac>\d+))?_(?P<unit>us|MBps)")


def _title(metric: str, metrics: Sequence[str]) -> str:
    if metric == "bandwidth_MBps" and "message_rate" in metrics:
        return "MB/s"  # osu_mbw_mr's heading
    if metric in _TITLES:
        return _TITLES[metric]
    match = _PERCENTILE.fullmatch(metric)
    if match:
        percentile = match["whole"] + (f".{match['frac']}" if match["frac"] else "")
        return f"P{percentile} Tail {'Lat(us)' if match['unit'] == 'us' else 'BW(MB/s)'}"
    return metric


def _cell(value: object, width: int = FIELD_WIDTH) -> str:
    if value is None:
        return f"{'-':>{width}}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{value!s:>{width}}"
    return f"{value:>{width}.2f}"


def render(points: Sequence[Point], title: Sequence[str] = (), full: bool | None = None,
           hide: Sequence[str] = ()) -> str:
    """The table of `points`, preceded by `title` lines (each gets a "# ").

    `full` is OMB's -f: None shows min/max columns when the points have them,
    False hides them, True also adds the Iterations column. Metrics in `hide`
    get no column.
    """
    lines = [f"# {line}" for line in title]
    windows = list(dict.fromkeys(point.window for point in points))
    for window in windows:
        group = [point for point in points if point.window == window]
        if len(windows) > 1:
            lines.append(f"# [ window size: {window} ]")
        lines += _table(group, full, hide)
    return "\n".join(lines) + "\n"


def _table(points: Sequence[Point], full: bool | None, hide: Sequence[str]) -> list[str]:
    names = list(dict.fromkeys(name for point in points for name in point.metrics
                               if name not in _NOT_COLUMNS and name not in hide))
    columns = [name for name in _MAIN if name in names]
    if full is not False:
        columns += [name for name in _FULL if name in names]
    percentiles = [name for name in names if _PERCENTILE.fullmatch(name)]
    others = [name for name in names if name not in _TITLES and name not in percentiles]
    show_iterations = bool(full)
    show_validation = any(point.validation is not None for point in points)
    show_size = any(point.size is not None for point in points)

    header = f"{'# Size':<{SIZE_WIDTH}}" if show_size else "#"
    header += "".join(f"{_title(name, names):>{FIELD_WIDTH}}" for name in columns)
    header += f"{'Iterations':>{ITERATIONS_WIDTH}}" if show_iterations else ""
    header += f"{'Validation':>{FIELD_WIDTH}}" if show_validation else ""
    header += "".join(f"{_title(name, names):>{FIELD_WIDTH}}" for name in percentiles + others)
    rows = [header]
    for point in points:
        row = f"{point.size if point.size is not None else '-':<{SIZE_WIDTH}}" if show_size else ""
        row += "".join(_cell(point.metrics.get(name)) for name in columns)
        if show_iterations:
            iterations = point.iterations if point.iterations is not None else point.metrics.get("iterations")
            row += f"{iterations if iterations is not None else '-':>{ITERATIONS_WIDTH}}"
        row += _cell(point.validation) if show_validation else ""
        row += "".join(_cell(point.metrics.get(name)) for name in percentiles + others)
        rows.append(row)
    return rows


def run_title(run: Run) -> list[str]:
    """Title lines for a stored or just-measured run."""
    name = f"{run.benchmark}: {run.description}" if run.description else run.benchmark
    tool = " ".join(part for part in (run.tool_name, run.tool_version and f"v{run.tool_version}") if part)
    lines = [f"{name} ({tool})" if tool else name]
    datatype = (run.options or {}).get("datatype")
    if datatype:
        lines.append(f"Datatype: {datatype}.")
    return lines


def render_run(run: Run) -> str:
    # commscope-bench writes message_rate for every bandwidth benchmark; OMB's
    # tables show it for the multi-pair one (osu_mbw_mr) only.
    pattern = ((run.provenance or {}).get("benchmark") or {}).get("pattern")
    hide = ("message_rate",) if pattern and not pattern.startswith("multi_pair") else ()
    return render(run.points, run_title(run), full=(run.options or {}).get("full"), hide=hide)


def precision_line(run: Run) -> str | None:
    """How the sizes of a --precision run ended, in one line (None without --precision)."""
    stops = [point.metrics.get("precision_stop") for point in run.points]
    if not any(stops):
        return None
    target = next(p.metrics["precision_target_pct"] for p in run.points if "precision_target_pct" in p.metrics)
    reached = [p.metrics.get("precision_achieved_pct") for p in run.points
               if isinstance(p.metrics.get("precision_achieved_pct"), (int, float))]
    counts = {stop: stops.count(stop) for stop in ("target", "max_time", "max_samples") if stop in stops}
    worst = f"; widest interval {max(reached):.1f}%" if reached else ""
    return (f"precision: +-{target:g}% asked; {counts.get('target', 0)} of {len(stops)} sizes reached it"
            + "".join(f", {n} stopped at {stop.replace('_', '-')}" for stop, n in counts.items() if stop != "target")
            + worst)
