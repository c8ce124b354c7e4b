"""fio storage sweeps (`commscope run storage`, imported fio JSON and IOR/iozone tables):
per-process and total throughput and IOPS over the client/process count."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from commscope.kinds.base import CompareRequest, ReportContext
from commscope.kinds.system import TabulatedKind
from commscope.records import run_kinds
from commscope.records.metrics import STORAGE_WORKLOADS
from commscope.records.run import Run

if TYPE_CHECKING:
    from commscope.analysis.titled_tables import TitledTable
    from commscope.output.report.content import ReportPart


class Fio(TabulatedKind):
    name = run_kinds.FIO
    title = "storage (fio)"
    plural = "storage runs"

    def tables(self, runs: Sequence[Run], request: CompareRequest) -> list[TitledTable]:
        from commscope.analysis.fio import storage_tables

        return storage_tables(runs)

    def report(self, runs: Sequence[Run], context: ReportContext) -> ReportPart:
        from commscope.analysis.fio import storage_tables
        from commscope.output.report import storage
        from commscope.output.report.content import HEADLINE, ReportPart

        return ReportPart(
            system_sections=storage.sections(runs, storage_tables(runs)),
            summary={run.id: {HEADLINE: headline(run)} for run in runs},
        )


def headline(run: Run) -> str:
    """The largest client count's throughput or IOPS, two workloads at most."""
    from commscope.analysis.fio import STORAGE_TITLES

    if not run.points:
        return "-"
    last = max(run.points, key=lambda p: p.size or 0)
    parts = [
        f"{last.metrics[name]:,.0f} {'MB/s' if name.endswith('MBps') else 'IOPS'} "
        f"{STORAGE_TITLES[name].split(' (')[0].lower()}"
        for name in STORAGE_WORKLOADS
        if name in last.metrics
    ]
    return f"{', '.join(parts[:2])} at {last.size} processes" if parts else "-"


FIO = Fio()
