"""What the kinds of the cluster beside the network (HPL/hpcc, fio) share: seed 001's
tables instead of OSU's, in `show` and in `compare`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import click

from commscope.kinds.base import Compared, CompareRequest, RunKind
from commscope.records.run import Run


class TabulatedKind(RunKind):
    """A kind whose runs are seed 001's tables (`tables(runs)`), not curves over size."""

    compare_options = ()

    def tables(self, runs: Sequence[Run], request: CompareRequest) -> list:
        raise NotImplementedError

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
