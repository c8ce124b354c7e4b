"""fio storage sweeps (`commscope run storage`, imported fio JSON and IOR/iozone tables):
per-process and total throughput and IOPS over the client/process count."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.kinds.base import CompareRequest, ReportContext
from commscope.kinds.system import TabulatedKind
from commscope.records.benchmarks import STORAGE_BENCHMARK
from commscope.records.run import Run


class Fio(TabulatedKind):
    name = "fio"
    title = "storage (fio)"
    plural = "storage runs"

    def recognises(self, run: Run) -> bool:
        return run.benchmark == STORAGE_BENCHMARK

    def tables(self, runs: Sequence[Run], request: CompareRequest) -> list:
        from commscope.analysis.fio import storage_tables

        return storage_tables(runs)

    def report(self, runs: Sequence[Run], context: ReportContext):
        from commscope.output.report import storage
        from commscope.output.report.content import ReportPart

        return ReportPart(
            system_sections=storage.sections(runs), headlines={run.id: storage.headline(run) for run in runs}
        )


FIO = Fio()
