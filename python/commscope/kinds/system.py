"""What the kinds of the cluster beside the network (HPL/hpcc, fio, congestion) share:
the standard-benchmarks tables instead of OSU's, in `show` and in `compare`, and no Hockney model.
Repeats, checks, plots and history are a curve's (over their own size axis)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import click

from commscope.kinds.base import Compared, CompareRequest
from commscope.kinds.curve import Curve
from commscope.records.run import Run

if TYPE_CHECKING:
    from commscope.analysis.titled_tables import TitledTable


class TabulatedKind:
    """A kind whose runs are the standard-benchmarks tables (`tables(runs)`), not curves over
    size: repeated, checked, plotted, followed over time and published as a curve; not
    modelled (no time over message size)."""

    compare_options: tuple[str, ...] = ()
    repeats = Curve.repeats
    check = Curve.check
    plot = Curve.plot
    history = Curve.history
    monitoring = Curve.monitoring

    # Each kind says what its tables are: tables(runs, request) -> list[TitledTable]
    # (analysis.titled_tables), which show and compare print.
    tables: Callable[[Sequence[Run], CompareRequest], list[TitledTable]]

    def table_text(self, run: Run, outputs: Mapping[str, bytes]) -> str:
        from commscope.output.titled_tables import text_table

        title = f"# {run.benchmark}: {run.description}" if run.description else f"# {run.benchmark}"
        body = "\n".join(text_table(table) for table in self.tables([run], CompareRequest()) if table.rows)
        notes = "".join(f"# note: {note}\n" for note in run.notes or [])
        return f"{title}\n{body}{notes}"

    def compare(self, runs: Sequence[Run], request: CompareRequest) -> Compared:
        from commscope.output.titled_tables import FORMATS, text_table

        tables = self.tables(runs, request)
        return Compared(
            lambda: click.echo("\n".join(text_table(table) for table in tables), nl=False),
            {fmt: (lambda write=write: write(tables)) for fmt, write in FORMATS.items()},
        )
