"""A Comparison (analysis.compare) as one table (output.export.table): the terminal, the
report, Markdown and CSV show it; JSON keeps its own document, which scripts read."""

from __future__ import annotations

from commscope.analysis.compare import Comparison, Row
from commscope.analysis.repeats import MedianInterval
from commscope.output.export.csv import csv_text
from commscope.output.export.json import json_text
from commscope.output.export.markdown import markdown_text
from commscope.output.export.table import Cell, Column, Table
from commscope.records.metrics import direction_text, higher_is_worse, metric_title
from commscope.records.run import AXIS_TITLES
from commscope.records.text import format_key, format_value


def axis_cells(comparison: Comparison, row: Row) -> list[str | None]:
    """The row's values of the axes that vary (None where a run did not sweep one)."""
    return [getattr(row.key.axes, name) for name in comparison.axes]


_EXTRA_FORMATS = {"ratio": "{:.3f}", "pdiff": "{:+.1f}%"}


def caption(comparison: Comparison) -> str:
    """The metric, which way is better, what the ratios are against and how likely each
    repeat median's interval is to hold the true median."""
    text = f"{metric_title(comparison.metric)}, {direction_text(comparison.metric) or 'no known direction'}"
    if comparison.ratio or comparison.pdiff:
        text += f"; ratios against {comparison.names[0]}"
    coverages = comparison.interval_coverages()
    if coverages:
        covered = ", ".join(f"{100 * coverage:.1f}% from {launches} launches" for launches, coverage in coverages)
        text += f"; median of repeated launches [its order-statistic interval, {covered}]"
    return text


def extra_headers(comparison: Comparison) -> list[str]:
    """The headers of Comparison.extras' cells."""
    first = comparison.names[0]
    headers = []
    for name in comparison.names[1:]:
        headers += [f"{name}/{first}"] if comparison.ratio else []
        headers += [f"{name} vs {first} %"] if comparison.pdiff else []
    return headers


def interval_text(cell: MedianInterval) -> str:
    """ "1.23 [1.20, 1.31]": a repeat median and its interval (OMB's two decimals)."""
    return f"{cell.median:.2f} [{cell.low:.2f}, {cell.high:.2f}]"


def table_of(comparison: Comparison) -> Table:
    """Axes, size, a column per run (a repeat median shown with its interval), the ratios;
    for machines also the window where it varies and the repeat medians' interval ends."""
    window = any(row.key.window is not None for row in comparison.rows)
    spans = [i for i, group in enumerate(comparison.groups) if len(group) > 1]  # repeat medians' intervals
    columns = [
        *(Column(name, AXIS_TITLES[name], numeric=False) for name in comparison.axes),
        Column("size", "Size", "B"),
        *([Column("window")] if window else []),
        *(Column(name, name) for name in comparison.names),
        *(Column(header, header) for header in extra_headers(comparison)),
        *(Column(f"{comparison.names[i]} {end}") for i in spans for end in ("low", "high")),
    ]
    rows = []
    for row in comparison.rows:
        intervals = row.intervals or [None] * len(row.values)
        rows.append(
            [
                *(Cell(value) for value in axis_cells(comparison, row)),
                Cell(row.key.size, format_key(row.key)),
                *([Cell(row.key.window)] if window else []),
                *(
                    Cell(value, format_value(value) if interval is None else interval_text(interval))
                    for value, interval in zip(row.values, intervals)
                ),
                *(
                    Cell(value, "-" if value is None else _EXTRA_FORMATS[kind].format(value))
                    for kind, value in comparison.extras(row)
                ),
                *(Cell(getattr(intervals[i], end) if intervals[i] else None) for i in spans for end in ("low", "high")),
            ]
        )
    return Table(columns, rows, caption=caption(comparison))


def text_cells(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows as displayed text (the terminal table and the HTML report)."""
    table = table_of(comparison)
    return table.headings(), table.texts()


def to_json(comparison: Comparison) -> str:
    document = {
        "metric": comparison.metric,
        "unit": comparison.unit,
        "better": {True: "lower", False: "higher", None: None}[higher_is_worse(comparison.metric)],
        "runs": [
            {
                "id": run.id,
                "name": name,
                "benchmark": run.benchmark,
                "label": run.label,
                "system": run.system,
                **({"repeats": [r.id for r in group]} if len(group) > 1 else {}),
            }
            for run, name, group in zip(comparison.runs, comparison.names, comparison.groups)
        ],
        "rows": [
            {
                **dict(zip(comparison.axes, axis_cells(comparison, row))),
                "size": row.key.size,
                "window": row.key.window,
                "values": row.values,
                **(
                    {"intervals": [None if cell is None else [cell.low, cell.high, cell.n] for cell in row.intervals]}
                    if any(row.intervals)
                    else {}
                ),
                **({"ratios": row.ratios()} if comparison.ratio or comparison.pdiff else {}),
            }
            for row in comparison.rows
        ],
    }
    return json_text(document)


#: Machine-readable formats; "table" is drawn by views.comparison_table.
FORMATS = {
    "markdown": lambda comparison: markdown_text([table_of(comparison)]),
    "csv": lambda comparison: csv_text([table_of(comparison)]),
    "json": to_json,
}
