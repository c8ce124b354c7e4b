"""output.export: every format writes the one table shape the same way (golden text)."""

from __future__ import annotations

from commscope.output.export.csv import csv_text
from commscope.output.export.markdown import markdown_text
from commscope.output.export.table import Cell, Column, Table

HOSTS = Table(
    [Column("host", "Host", numeric=False), Column("latency", "Latency", "us"), Column("low")],
    [[Cell("=n1"), Cell(1.234, "1.23"), Cell(1.2)], [Cell("n2|b"), Cell(None), Cell(None)]],
    title="cluster-a: pairs",
    caption="one-way latency",
)


def test_markdown_shows_text_to_people_and_leaves_machine_columns_out():
    one = (
        "cluster-a: pairs\n\none-way latency.\n\n| Host | Latency (us) |\n|:---|---:|\n| =n1 | 1.23 |\n| n2\\|b | - |\n"
    )
    assert markdown_text([HOSTS, HOSTS]) == one + "\n" + one


def test_csv_keeps_stored_values_and_defuses_formulas():
    assert csv_text([HOSTS]) == "cluster-a: pairs\nhost,latency,low\n'=n1,1.234,1.2\nn2|b,,\n"
