"""Titled tables: a header and rows of strings, and the numbers behind them for CSV/JSON,
so the terminal, Markdown and the report print the same thing. The standard-benchmarks tables of the
cluster beside the network (HPL and hpcc in analysis.hpl, fio storage sweeps in
analysis.fio, congestion in analysis.congestion) are such tables, and so are the link
inventory's and the references' views."""

from __future__ import annotations

from dataclasses import dataclass, field

from commscope.records.run import Run


@dataclass
class TitledTable:
    """A table as printed (``rows``) with the unrounded values behind it (``values``)."""

    title: str
    header: list[str]
    rows: list[list[str]]
    values: list[list[float | int | str | None]] = field(default_factory=list)  # unrounded, for CSV/JSON
    caption: str = ""


def thousands(value: float | None, decimals: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{decimals}f}"


def run_name(run: Run) -> str:
    return run.label or run.system or f"run {run.id}"
