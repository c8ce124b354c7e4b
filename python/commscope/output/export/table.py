"""The shape every table takes on its way out: a title, a caption, columns (a name for
machines, a heading for people) and rows of cells (the value machines read beside the text
people read), so CSV and JSON keep stored numbers while Markdown, the terminal and the
report show the same rounded text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    name: str  # CSV header, JSON key
    title: str | None = None  # heading for people; None: a column for machines alone (CSV)
    unit: str | None = None
    numeric: bool = True  # numbers align right, text (a datatype, a host) left

    @property
    def heading(self) -> str:
        return f"{self.title} ({self.unit})" if self.unit else self.title or self.name


@dataclass(frozen=True)
class Cell:
    value: float | int | str | None  # as stored, for CSV and JSON
    text: str | None = None  # as people read it; None: the value as it is, "-" for none

    @property
    def shown(self) -> str:
        if self.text is not None:
            return self.text
        return "-" if self.value is None else str(self.value)


@dataclass
class Table:
    columns: Sequence[Column]
    rows: Sequence[Sequence[Cell]]
    title: str = ""  # a heading above the table ("cluster-a: HPL")
    caption: str = ""  # a sentence about it ("Latency (us), lower is better")

    @property
    def shown_columns(self) -> list[int]:
        """Indices of the columns people see."""
        return [index for index, column in enumerate(self.columns) if column.title is not None]

    def headings(self) -> list[str]:
        """The headings people see (Markdown, the terminal, the report)."""
        return [self.columns[index].heading for index in self.shown_columns]

    def texts(self) -> list[list[str]]:
        """The rows as people see them."""
        return [[row[index].shown for index in self.shown_columns] for row in self.rows]

    def records(self) -> list[dict[str, float | int | str | None]]:
        """Each row as {column name: stored value}, as machines read it."""
        return [{column.name: cell.value for column, cell in zip(self.columns, row)} for row in self.rows]
