"""Text tables of HPL, hpcc and storage runs for `commscope show` and `commscope run`:
the seed's tables (analysis.systemwide) as aligned text, like the OSU tables of the
network benchmarks."""

from __future__ import annotations

from commscope.analysis.systemwide import SystemTable, hpcc_table, hpl_table, storage_tables
from commscope.records.run import Run


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


def render_system_run(run: Run) -> str:
    """A run of HPL, an hpcc test or a storage sweep as text."""
    title = f"# {run.benchmark}: {run.description}" if run.description else f"# {run.benchmark}"
    if run.benchmark == "hpl":
        tables = [hpl_table([run])]
    elif run.benchmark == "storage":
        tables = storage_tables([run])
    else:
        table = hpcc_table([run])
        tables = [table] if table else []
    body = "\n".join(text_table(table) for table in tables if table.rows)
    notes = "".join(f"# note: {note}\n" for note in run.notes or [])
    return f"{title}\n{body}{notes}"
