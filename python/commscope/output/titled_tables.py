"""Titled tables (analysis.titled_tables: the standard-benchmarks page's HPL, hpcc, storage and congestion
tables among them) written out: aligned text for the terminal,
like the OSU tables of the network benchmarks, and Markdown, CSV or JSON for `compare`."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.analysis.titled_tables import TitledTable
from commscope.output.export.csv import csv_text
from commscope.output.export.json import json_text
from commscope.output.export.markdown import markdown_text
from commscope.output.export.table import Cell, Column, Table


def text_table(table: TitledTable) -> str:
    widths = [max(len(row[index]) for row in [table.header, *table.rows]) for index in range(len(table.header))]
    lines = [f"# {table.title}"]
    for row in [table.header, *table.rows]:
        lines.append(
            "  ".join(
                cell.ljust(width) if index == 0 else cell.rjust(width)
                for index, (cell, width) in enumerate(zip(row, widths))
            )
        )
    return "\n".join(lines) + "\n"


def as_table(table: TitledTable) -> Table:
    """A standard-benchmarks table in the shape every exporter takes: the first column names the row,
    the others are numbers."""
    columns = [Column(heading, heading, numeric=index > 0) for index, heading in enumerate(table.header)]
    rows = [
        [Cell(value, text) for value, text in zip(values, texts)] for values, texts in zip(table.values, table.rows)
    ]
    return Table(columns, rows, title=table.title, caption=table.caption)


def to_json(tables: Sequence[TitledTable]) -> str:
    return json_text([{"title": table.title, "header": table.header, "rows": table.values} for table in tables])


FORMATS = {
    "markdown": lambda tables: markdown_text([as_table(table) for table in tables]),
    "csv": lambda tables: csv_text([as_table(table) for table in tables]),
    "json": to_json,
}
