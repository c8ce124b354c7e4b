"""A Comparison (analysis.compare) as one table (output.export.table): the terminal, the
report, Markdown and CSV show it; JSON keeps its own document, which scripts read."""

from __future__ import annotations

from commscope.analysis.compare import Comparison, Row
from commscope.output.export.csv import csv_text
from commscope.output.export.json import json_text
from commscope.output.export.markdown import markdown_text
from commscope.output.export.table import Cell, Column, Table
from commscope.records.metrics import higher_is_worse
from commscope.records.run import AXIS_TITLES
from commscope.records.text import format_key, format_value


def axis_cells(comparison: Comparison, row: Row) -> list[str | None]:
    """The row's values of the axes that vary (None where a run did not sweep one)."""
    return [getattr(row.key.axes, name) for name in comparison.axes]


_EXTRA_FORMATS = {"ratio": "{:.3f}", "pdiff": "{:+.1f}%"}


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
        *(Column(header, header) for header in comparison.extra_headers()),
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
                    Cell(value, format_value(value) if interval is None else interval.text())
                    for value, interval in zip(row.values, intervals)
                ),
                *(
                    Cell(value, "-" if value is None else _EXTRA_FORMATS[kind].format(value))
                    for kind, value in comparison.extras(row)
                ),
                *(Cell(getattr(intervals[i], end) if intervals[i] else None) for i in spans for end in ("low", "high")),
            ]
        )
    return Table(columns, rows, caption=comparison.caption())


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
