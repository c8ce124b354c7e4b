"""A table of the report: header, rows of plain strings, caption. The templates alone
decide the escaping."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass
class Table:
    header: Sequence[str]
    rows: Sequence[Sequence[str]]
    caption: str = ""
