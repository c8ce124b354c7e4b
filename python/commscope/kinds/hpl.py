"""HPL and hpcc's other tests (`commscope run hpl`, imported HPL.out and hpccoutf.txt):
seed 001's HPL table, a row per result, and hpcc's tests a row per metric."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.kinds.base import CompareRequest, ReportContext
from commscope.kinds.system import TabulatedKind
from commscope.records.benchmarks import COMPUTE_BENCHMARKS, HPL_BENCHMARK
from commscope.records.run import Run


class Hpl(TabulatedKind):
    name = "hpl"
    title = "HPL and hpcc"
    plural = "HPL and hpcc runs"
    compare_options = ("peak_per_core",)

    def recognises(self, run: Run) -> bool:
        return run.benchmark in COMPUTE_BENCHMARKS

    def tables(self, runs: Sequence[Run], request: CompareRequest) -> list:
        from commscope.analysis.hpl import hpcc_table, hpl_table

        hpcc = hpcc_table(runs)
        tables = [hpl_table(runs, request.peak_per_core)] if any(run.benchmark == HPL_BENCHMARK for run in runs) else []
        return tables + ([hpcc] if hpcc is not None else [])

    def compare(self, runs, request):
        from commscope.errors import UsageError

        if request.peak_per_core and not any(run.benchmark == HPL_BENCHMARK for run in runs):
            raise UsageError("--peak-per-core applies to HPL runs, and none is selected")
        return super().compare(runs, request)

    def report(self, runs: Sequence[Run], context: ReportContext):
        from commscope.output.report import compute
        from commscope.output.report.content import ReportPart

        return ReportPart(
            system_sections=compute.sections(runs), headlines={run.id: compute.headline(run) for run in runs}
        )


HPL_KIND = Hpl()
