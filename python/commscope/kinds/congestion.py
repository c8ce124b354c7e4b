"""Congestion: the core's `congestion` runs, canary tests alone and beside congestors. Shown
as the core's table; compared as impact factors side by side; checked per canary test and
congestor on the impact factor (an impact that grew fails); reported as tables and a bar
chart of isolated against congested."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from commscope.errors import UsageError
from commscope.kinds.base import CompareRequest, PlotRequest, ReportContext, RunKind
from commscope.kinds.system import TabulatedKind
from commscope.records.benchmarks import CONGESTION_BENCHMARK
from commscope.records.run import Run

#: What `check` judges unless --metric says otherwise.
DEFAULT_CHECK_METRIC = "impact_avg"


class Congestion(TabulatedKind):
    name = "congestion"
    title = "congestion (canary tests beside congestors)"
    plural = "congestion runs"

    def recognises(self, run: Run) -> bool:
        return run.benchmark == CONGESTION_BENCHMARK

    def table_text(self, run: Run, outputs: Mapping[str, bytes]) -> str:
        return RunKind.table_text(self, run, outputs)  # the core's own table

    def tables(self, runs: Sequence[Run], request: CompareRequest) -> list:
        from commscope.analysis.congestion import impact_table, phases_table, run_phases

        with_canaries = [run for run in runs if any(p.canary for p in run_phases(run))]
        alone = [phases_table(run) for run in runs if not any(p.canary for p in run_phases(run))]
        return ([impact_table(with_canaries)] if with_canaries else []) + alone

    def check(self, baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy, metric: str | None):
        """Each canary test beside each congestor against the baseline's: the impact factor
        (avg unless --metric impact_p99, or a phase's number) must not grow past the tolerance."""
        from commscope.analysis.check import check_curves

        return check_curves(baseline, base_runs, new_runs, policy, metric or DEFAULT_CHECK_METRIC)

    def plot(self, runs: Sequence[Run], request: PlotRequest, retest_of) -> dict[Path, bytes]:
        from commscope.output import plot
        from commscope.output.report.congestion import figure

        if len(runs) != 1 or request.reference is not None:
            raise UsageError("a congestion run is plotted alone (isolated against congested): name one run")
        fig = figure(runs[0])
        if fig is None:
            raise UsageError(f"run {runs[0].id} has no canary tests to plot (its congestors ran alone)")
        return {request.path: plot.render(fig, request.fmt)}

    def monitoring(self, run: Run, retest: Run | None = None) -> list:
        """The run's own samples and its impact factors per canary test and congestor."""
        from commscope.analysis.monitoring import congestion_samples, run_info_samples

        return run_info_samples(run) + congestion_samples(run)

    def report(self, runs: Sequence[Run], context: ReportContext):
        from commscope.analysis.congestion import headline
        from commscope.output.report import congestion
        from commscope.output.report.content import ReportPart

        return ReportPart(system_sections=congestion.sections(runs), headlines={run.id: headline(run) for run in runs})


CONGESTION = Congestion()
