"""Seed 001's tables (analysis.system_tables) written out: aligned text for the terminal,
like the OSU tables of the network benchmarks, and Markdown, CSV or JSON for `compare`."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from commscope.analysis.system_tables import SystemTable


def text_table(table: SystemTable) -> str:
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


def _md_cell(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("|", "\\|")


def to_markdown(tables: Sequence[SystemTable]) -> str:
    parts = []
    for table in tables:
        lines = [
            f"{table.title}",
            "",
            "| " + " | ".join(_md_cell(cell) for cell in table.header) + " |",
            "|:---|" + "---:|" * (len(table.header) - 1),
        ]
        lines += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in table.rows]
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def to_csv(tables: Sequence[SystemTable]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for table in tables:
        writer.writerow([table.title])
        writer.writerow(table.header)
        writer.writerows(table.values)
    return out.getvalue()


def to_json(tables: Sequence[SystemTable]) -> str:
    return (
        json.dumps(
            [{"title": table.title, "header": table.header, "rows": table.values} for table in tables],
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )


FORMATS = {"markdown": to_markdown, "csv": to_csv, "json": to_json}
