"""Tables as CSV: a row with the title where there is one, the column names, then the
stored values unrounded (empty where there is none). Every text cell goes through
records.textsafe.csv_cell, so no label runs as a spreadsheet formula."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from commscope.output.export.table import Table
from commscope.records.textsafe import csv_cell


def csv_text(tables: Sequence[Table]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for table in tables:
        if table.title:
            writer.writerow([csv_cell(table.title)])
        writer.writerow([csv_cell(column.name) for column in table.columns])
        writer.writerows(["" if cell.value is None else csv_cell(cell.value) for cell in row] for row in table.rows)
    return buffer.getvalue()
