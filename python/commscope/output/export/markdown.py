"""Tables as Markdown: the title, the caption as a sentence, a header row aligned by what
the columns hold (text left, numbers right), every cell escaped (records.textsafe)."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.output.export.table import Table
from commscope.records.textsafe import markdown_cell


def markdown_text(tables: Sequence[Table]) -> str:
    """The tables one after another, a blank line between."""
    return "\n".join(_table(table) for table in tables)


def _table(table: Table) -> str:
    lines = [table.title, ""] if table.title else []
    lines += [markdown_cell(table.caption) + ".", ""] if table.caption else []
    aligns = ["---:" if table.columns[index].numeric else ":---" for index in table.shown_columns]
    lines += [
        "| " + " | ".join(map(markdown_cell, table.headings())) + " |",
        "|" + "|".join(aligns) + "|",
        *("| " + " | ".join(map(markdown_cell, row)) + " |" for row in table.texts()),
    ]
    return "\n".join(lines) + "\n"
