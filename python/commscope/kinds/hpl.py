"""HPL and hpcc's other tests (`commscope run hpl`, imported HPL.out and hpccoutf.txt):
the standard-benchmarks HPL table, a row per result, and hpcc's tests a row per metric."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from commscope.errors import UsageError
from commscope.kinds.base import Compared, CompareRequest, ReportContext
from commscope.kinds.system import TabulatedKind
from commscope.records import run_kinds
from commscope.records.benchmarks import HPL_BENCHMARK, primary_metric
from commscope.records.metrics import unit_of
from commscope.records.run import Run

if TYPE_CHECKING:
    from commscope.analysis.titled_tables import TitledTable
    from commscope.output.report.content import ReportPart


class Hpl(TabulatedKind):
    name = run_kinds.HPL
    title = "HPL and hpcc"
    plural = "HPL and hpcc runs"
    compare_options = ("peak_per_core",)

    def tables(self, runs: Sequence[Run], request: CompareRequest) -> list[TitledTable]:
        from commscope.analysis.hpl import hpcc_table, hpl_table

        hpcc = hpcc_table(runs)
        tables = [hpl_table(runs, request.peak_per_core)] if any(run.benchmark == HPL_BENCHMARK for run in runs) else []
        return tables + ([hpcc] if hpcc is not None else [])

    def compare(self, runs: Sequence[Run], request: CompareRequest) -> Compared:

        if request.peak_per_core and not any(run.benchmark == HPL_BENCHMARK for run in runs):
            raise UsageError("--peak-per-core applies to HPL runs, and none is selected")
        return super().compare(runs, request)

    def report(self, runs: Sequence[Run], context: ReportContext) -> ReportPart:
        from commscope.analysis.hpl import hpcc_table, hpl_table
        from commscope.output.report import compute
        from commscope.output.report.content import HEADLINE, ReportPart

        hpl_runs = [run for run in runs if run.benchmark == HPL_BENCHMARK]
        hpcc = hpcc_table(runs)
        tables = ([hpl_table(hpl_runs)] if hpl_runs else []) + ([hpcc] if hpcc else [])
        return ReportPart(
            system_sections=compute.sections(hpl_runs, tables),
            summary={run.id: {HEADLINE: headline(run)} for run in runs},
        )


def headline(run: Run) -> str:
    """What an HPL or hpcc run says in one line ("-" when it measured nothing)."""
    if run.benchmark == HPL_BENCHMARK:
        best = max(
            (p for p in run.points if isinstance(p.metrics.get("gflops"), (int, float))),
            key=lambda p: p.metrics["gflops"],
            default=None,
        )
        if best is None:
            return "-"
        gflops = best.metrics["gflops"]
        text = f"{gflops:,.0f}" if gflops >= 100 else f"{gflops:.3g}"
        return f"{text} Gflop/s HPL (N={best.size}, {run.ranks or '?'} cores)"
    if run.points:
        metrics = run.points[0].metrics
        name = primary_metric(run.benchmark)
        if isinstance(metrics.get(name), (int, float)):
            return f"{name} {metrics[name]:.4g} {unit_of(name)}"
    return "-"


HPL_KIND = Hpl()
