"""Congestion: the core's `congestion` runs, canary tests alone and beside congestors. Shown
as the core's table; compared as impact factors side by side; checked per canary test and
congestor on the impact factor (an impact that grew fails); reported as tables and a bar
chart of isolated against congested."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from commscope.analysis.check import CheckResult, Policy, check_curves
from commscope.errors import UsageError
from commscope.kinds.base import CompareRequest, PlotRequest, ReportContext, RetestLoader
from commscope.kinds.curve import Curve
from commscope.kinds.system import TabulatedKind
from commscope.records import run_kinds
from commscope.records.run import Run

if TYPE_CHECKING:
    from commscope.analysis.monitoring import Sample
    from commscope.analysis.titled_tables import TitledTable
    from commscope.output.report.content import ReportPart

#: What `check` judges unless --metric says otherwise.
DEFAULT_CHECK_METRIC = "impact_avg"


class Congestion(TabulatedKind):
    name = run_kinds.CONGESTION
    title = "congestion (canary tests beside congestors)"
    plural = "congestion runs"

    def table_text(self, run: Run, outputs: Mapping[str, bytes]) -> str:
        return Curve.table_text(self, run, outputs)  # the core's own table

    def tables(self, runs: Sequence[Run], request: CompareRequest) -> list[TitledTable]:
        from commscope.analysis.congestion import impact_table, phases_table, run_phases

        with_canaries = [run for run in runs if any(p.canary for p in run_phases(run))]
        alone = [phases_table(run) for run in runs if not any(p.canary for p in run_phases(run))]
        return ([impact_table(with_canaries)] if with_canaries else []) + alone

    def check(
        self, baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy: Policy, metric: str | None
    ) -> CheckResult:
        """Each canary test beside each congestor against the baseline's: the impact factor
        (avg unless --metric impact_p99, or a phase's number) must not grow past the tolerance."""

        return check_curves(baseline, base_runs, new_runs, policy, metric or DEFAULT_CHECK_METRIC)

    def plot(self, runs: Sequence[Run], request: PlotRequest, retest_of: RetestLoader) -> dict[Path, bytes]:
        from commscope.analysis.congestion import run_phases
        from commscope.output import plot
        from commscope.output.report.congestion import figure

        if len(runs) != 1 or request.reference is not None:
            raise UsageError("a congestion run is plotted alone (isolated against congested): name one run")
        fig = figure(run_phases(runs[0]))
        if fig is None:
            raise UsageError(f"run {runs[0].id} has no canary tests to plot (its congestors ran alone)")
        return {request.path: plot.render(fig, request.fmt)}

    def monitoring(self, run: Run, retest: Run | None) -> list[Sample]:
        """The run's own samples and its impact factors per canary test and congestor."""
        from commscope.analysis.monitoring import congestion_samples, run_info_samples

        return run_info_samples(run) + congestion_samples(run)

    def report(self, runs: Sequence[Run], context: ReportContext) -> ReportPart:
        from commscope.analysis.congestion import headline, impact_table, phases_table, run_phases
        from commscope.output.report import congestion
        from commscope.output.report.content import HEADLINE, ReportPart

        phases = {run.id: run_phases(run) for run in runs}
        measured = [run for run in runs if phases[run.id]]
        with_canaries = [run for run in measured if any(p.canary for p in phases[run.id])]
        tables = ([impact_table(with_canaries)] if with_canaries else []) + [phases_table(run) for run in measured]
        latest = with_canaries[-1:]  # the chart of the latest run; the tables hold every run
        return ReportPart(
            system_sections=congestion.sections(runs, tables, [(run, phases[run.id]) for run in latest]),
            summary={run.id: {HEADLINE: headline(run)} for run in runs},
        )


CONGESTION = Congestion()
