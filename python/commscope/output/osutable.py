"""OSU Micro-Benchmarks style text tables, rendered from Points: for imported runs
(OMB, IMB, pasted tables), whose own text is not kept per run. A run of
commscope-bench shows the table the core printed itself (views.osu_text).

The layout is the core's (src/report/osu.c), which is OMB's, column for column:
"%-10d" size, then "%18.2f" values (the iterations column of -f tables is
"%12d"), headers right-aligned over their columns, and before each table the
lines naming its one-sided modes and datatype. Columns come from the metrics the
points carry, so a run of the core and an imported OMB file print alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from commscope.records.metrics import percentile_of
from commscope.records.run import ONE_SIDED_CALLS, Axes, Point, Run

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
    "algbw_GBps": "Algbw(GB/s)",
    "busbw_GBps": "Busbw(GB/s)",
}
_MAIN = ("latency_us", "bandwidth_MBps", "message_rate")
_FULL = ("min_latency_us", "max_latency_us", "min_bandwidth_MBps", "max_bandwidth_MBps")
_BUSBW = ("algbw_GBps", "busbw_GBps")  # after the percentiles, as the core's collective layout has them
# Per-point bookkeeping that has its own Point field or column, not a metric column;
# --precision's outcome is not one of OMB's columns either (records.text.precision_line).
_NOT_COLUMNS = {
    "iterations",
    "warmup",
    "batch",
    "validation",
    "validation_errors",
    "precision_achieved_pct",
    "precision_target_pct",
    "precision_rounds",
    "precision_stop",
}


def _title(metric: str, metrics: Sequence[str]) -> str:
    if metric == "bandwidth_MBps" and "message_rate" in metrics:
        return "MB/s"  # osu_mbw_mr's heading
    if metric in _TITLES:
        return _TITLES[metric]
    percentile = percentile_of(metric)
    if percentile:
        return f"P{percentile[0]} Tail {'Lat(us)' if percentile[1] == 'us' else 'BW(MB/s)'}"
    return metric


def _cell(value: object, width: int = FIELD_WIDTH) -> str:
    if value is None:
        return f"{'-':>{width}}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{value!s:>{width}}"
    return f"{value:>{width}.2f}"


def render(
    points: Sequence[Point],
    title: Sequence[str] = (),
    full: bool | None = None,
    hide: Sequence[str] = (),
    datatype: str | None = None,
) -> str:
    """The tables of `points`, preceded by `title` lines (each gets a "# "): one per
    combination of the sweep axes (and per window where it varies), each after the
    lines that name its one-sided modes and its datatype (`datatype` where the
    points do not say).

    `full` is OMB's -f: None shows min/max columns when the points have them,
    False hides them, True also adds the Iterations column. Metrics in `hide`
    get no column.
    """
    lines = [f"# {line}" for line in title]
    windows = list(dict.fromkeys(point.window for point in points))
    for axes in dict.fromkeys(point.axes for point in points):
        for window in windows:
            group = [point for point in points if point.window == window and point.axes == axes]
            if not group:
                continue
            lines += _axis_lines(axes, datatype, any(point.size is not None for point in group))
            if len(windows) > 1:
                lines.append(f"# [ window size: {window} ]")
            lines += _table(group, full, hide)
    return "\n".join(lines) + "\n"


def _axis_lines(axes: Axes, datatype: str | None, sized: bool) -> list[str]:
    """ "# Window creation: MPI_Win_create", "# Synchronization: ...", "# Datatype: MPI_INT."."""
    lines = [
        f"# {label}: {ONE_SIDED_CALLS[name].get(getattr(axes, name), getattr(axes, name))}"
        for name, label in (("window_creation", "Window creation"), ("synchronization", "Synchronization"))
        if getattr(axes, name)
    ]
    datatype = axes.datatype or datatype
    return lines + ([f"# Datatype: {datatype}."] if datatype and sized else [])


def _table(points: Sequence[Point], full: bool | None, hide: Sequence[str]) -> list[str]:
    names = list(
        dict.fromkeys(
            name for point in points for name in point.metrics if name not in _NOT_COLUMNS and name not in hide
        )
    )
    columns = [name for name in _MAIN if name in names]
    if full is not False:
        columns += [name for name in _FULL if name in names]
    percentiles = [name for name in names if percentile_of(name)]
    busbw = [name for name in _BUSBW if name in names]
    others = [name for name in names if name not in _TITLES and name not in percentiles]
    show_iterations = bool(full)
    show_validation = any(point.validation is not None for point in points)
    show_size = any(point.size is not None for point in points)

    header = f"{'# Size':<{SIZE_WIDTH}}" if show_size else "#"
    header += "".join(f"{_title(name, names):>{FIELD_WIDTH}}" for name in columns)
    header += f"{'Iterations':>{ITERATIONS_WIDTH}}" if show_iterations else ""
    header += f"{'Validation':>{FIELD_WIDTH}}" if show_validation else ""
    header += "".join(f"{_title(name, names):>{FIELD_WIDTH}}" for name in percentiles + busbw + others)
    rows = [header]
    for point in points:
        row = f"{point.size if point.size is not None else '-':<{SIZE_WIDTH}}" if show_size else ""
        row += "".join(_cell(point.metrics.get(name)) for name in columns)
        if show_iterations:
            iterations = point.iterations if point.iterations is not None else point.metrics.get("iterations")
            row += f"{iterations if iterations is not None else '-':>{ITERATIONS_WIDTH}}"
        row += _cell(point.validation) if show_validation else ""
        row += "".join(_cell(point.metrics.get(name)) for name in percentiles + busbw + others)
        rows.append(row)
    return rows


def run_title(run: Run) -> list[str]:
    """Title lines for a stored or just-measured run."""
    name = f"{run.benchmark}: {run.description}" if run.description else run.benchmark
    tool = " ".join(part for part in (run.tool_name, run.tool_version and f"v{run.tool_version}") if part)
    return [f"{name} ({tool})" if tool else name]


def render_run(run: Run) -> str:
    """The OSU table of a curve from its stored points."""
    options = run.options or {}
    # commscope-bench writes message_rate for every bandwidth benchmark and algbw/busbw for
    # every collective; its tables show the rate for the multi-pair one (osu_mbw_mr) only,
    # the bus bandwidths with --busbw only (options.busbw false: not asked for).
    pattern = ((run.provenance or {}).get("benchmark") or {}).get("pattern")
    hide = ("message_rate",) if pattern and not pattern.startswith("multi_pair") else ()
    hide += _BUSBW if options.get("busbw") is False else ()
    return render(run.points, run_title(run), full=options.get("full"), hide=hide, datatype=options.get("datatype"))
