"""A History (analysis.history) written out: per series a table of its levels and one of
its change points with what changed in the environment, as the terminal, Markdown and the
report show them; JSON keeps its own document for scripts and CI."""

from __future__ import annotations

from commscope.analysis.changepoints import Change
from commscope.analysis.history import ChangePoint, History, Series
from commscope.analysis.provenance_diff import Difference
from commscope.output.export.json import json_text
from commscope.output.export.markdown import markdown_text
from commscope.output.export.table import Cell, Column, Table
from commscope.records.metrics import direction_text, metric_title, unit_of
from commscope.records.run import Run
from commscope.records.text import format_value


def when(run: Run) -> str:
    """ "run 12 (2026-03-01 02:00)": a run as a timeline names it."""
    started = (run.started_at or "").replace("T", " ")[:16]
    return f"run {run.id}" + (f" ({started})" if started else "")


def difference_text(difference: Difference) -> str:
    """ "transport shm → net" """
    return f"{difference.aspect} {difference.before or '(none)'} → {difference.after or '(none)'}"


def change_text(change: Change, metric: str) -> str:
    """ "1.00 → 3.00 us (x3.00, +200.0%), worse; mann-whitney p=9.1e-05" """
    unit = unit_of(metric)
    ratio = change.ratio
    text = f"{format_value(change.before)} → {format_value(change.after)} {unit}".rstrip()
    if ratio is not None:
        text += f" (x{ratio:.2f}, {100 * (ratio - 1):+.1f}%)"
    text += ", worse" if change.worse else ", better"
    return text + f"; {change.evidence.method} {change.evidence.detail}".rstrip()


def summary(series: Series) -> str:
    """One line: the series, how many runs over which time, its change points, the verdict."""
    samples = series.samples
    span = f"{len(samples)} runs" + (f", {when(samples[0].run)} .. {when(samples[-1].run)}" if samples else "")
    text = f"{series.name}: {metric_title(series.metric)}, {span}; {len(series.changes)} change point(s)"
    if series.lacking:
        text += f"; {len(series.lacking)} run(s) without this size left out"
    if series.regressed:
        text += "; the newest level is a REGRESSION"
    return text


def levels_table(series: Series) -> Table:
    columns = [
        Column("level", "Level"),
        Column("runs", "Runs"),
        Column("first", "From", numeric=False),
        Column("last", "To", numeric=False),
        Column("median", "Median", unit_of(series.metric) or None),
    ]
    rows = [
        [
            Cell(index),
            Cell(level.end - level.start),
            Cell(series.samples[level.start].run.id, when(series.samples[level.start].run)),
            Cell(series.samples[level.end - 1].run.id, when(series.samples[level.end - 1].run)),
            Cell(level.median, format_value(level.median)),
        ]
        for index, level in enumerate(series.levels, start=1)
    ]
    caption = f"{metric_title(series.metric)}, {direction_text(series.metric) or 'no known direction'}"
    return Table(columns, rows, title=series.name, caption=caption)


def _change_row(point: ChangePoint) -> list[Cell]:
    change = point.change
    return [
        Cell(point.before.id, when(point.before)),
        Cell(point.after.id, when(point.after)),
        Cell(change.before, format_value(change.before)),
        Cell(change.after, format_value(change.after)),
        Cell(change.ratio, "-" if change.ratio is None else f"{change.ratio:.3f}"),
        Cell("worse" if change.worse else "better"),
        Cell(f"{change.evidence.method} {change.evidence.detail}".rstrip()),
        Cell("; ".join(map(difference_text, point.differences)) or "nothing recorded differs"),
    ]


def changes_table(series: Series) -> Table:
    unit = unit_of(series.metric) or None
    columns = [
        Column("before_run", "Last run before", numeric=False),
        Column("after_run", "First run after", numeric=False),
        Column("before", "Before", unit),
        Column("after", "After", unit),
        Column("ratio", "Ratio"),
        Column("direction", "Direction", numeric=False),
        Column("test", "Test", numeric=False),
        Column("changed", "What changed", numeric=False),
    ]
    rows = [_change_row(point) for point in series.changes]
    return Table(columns, rows, title=f"{series.name}: change points", caption="medians of the levels either side")


def markdown(history: History) -> str:
    tables = []
    for series in history.series:
        tables.append(levels_table(series))
        if series.changes:
            tables.append(changes_table(series))
    return markdown_text(tables)


def terminal_lines(series: Series) -> list[str]:
    """Below the levels table: each change point and what changed, one line each."""
    lines = []
    for point in series.changes:
        lines.append(f"  change at {when(point.after)}: {change_text(point.change, series.metric)}")
        lines += [f"    {difference_text(difference)}" for difference in point.differences]
        if not point.differences:
            lines.append("    nothing recorded differs between the runs either side")
    return lines


def series_dict(series: Series) -> dict:
    return {
        "name": series.name,
        "benchmark": series.benchmark,
        "metric": series.metric,
        "unit": unit_of(series.metric),
        "system": series.system,
        "label": series.label,
        "axes": dict(series.axes.items()),
        "sizes": list(series.where.sizes),
        "where": series.where.text,
        "regressed": series.regressed,
        "runs": [
            {"id": sample.run.id, "started_at": sample.run.started_at, "value": sample.value}
            for sample in series.samples
        ],
        "levels": [
            {
                "first_run": series.samples[level.start].run.id,
                "last_run": series.samples[level.end - 1].run.id,
                "runs": level.end - level.start,
                "median": level.median,
            }
            for level in series.levels
        ],
        "changes": [
            {
                "before_run": point.before.id,
                "after_run": point.after.id,
                "before": point.change.before,
                "after": point.change.after,
                "ratio": point.change.ratio,
                "worse": point.change.worse,
                "test": {
                    "method": point.change.evidence.method,
                    "significant": point.change.evidence.significant,
                    "detail": point.change.evidence.detail,
                },
                "differences": [
                    {"aspect": found.aspect, "before": found.before, "after": found.after}
                    for found in point.differences
                ],
            }
            for point in series.changes
        ],
        "runs_without_size": [run.id for run in series.lacking],
    }


def to_json(history: History) -> str:
    """The history as JSON ("commscope-history", version 1)."""
    return json_text(
        {
            "format": "commscope-history",
            "version": 1,
            "tolerance": history.policy.tolerance,
            "regressed": bool(history.regressed),
            "series": [series_dict(series) for series in history.series],
        }
    )
