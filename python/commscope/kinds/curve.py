"""The curve: an OSU-style benchmark measured over message sizes (and the other axes the
core sweeps), OMB's own kind and every benchmark that no other kind names
(records.run_kinds). Its behaviour is written here once; a kind that repeats, shows,
compares or checks as a curve does names the curve's method for it (`repeats =
Curve.repeats`), so it has exactly what it says it has."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from commscope import ui
from commscope.analysis.check import CheckResult, Policy, check_curves
from commscope.analysis.compare import common_metric
from commscope.analysis.compare import compare as build
from commscope.analysis.repeats import repeat_groups
from commscope.kinds.base import (
    Compared,
    CompareRequest,
    HistoryRequest,
    PlotRequest,
    ReportContext,
    RetestLoader,
    against_reference,
)
from commscope.records.run import Run
from commscope.records.run_kinds import CURVE as CURVE_KIND
from commscope.records.textsafe import terminal

if TYPE_CHECKING:
    from commscope.analysis.history import Series
    from commscope.analysis.model import Fit
    from commscope.analysis.monitoring import Sample
    from commscope.output.report.content import ReportPart


class Curve:
    name = CURVE_KIND
    title = "network benchmarks over message size"
    plural = "network benchmark runs"
    compare_options = ("metric", "ratio", "pdiff", "reference")

    def repeats(self, runs: Sequence[Run]) -> list[list[Run]]:

        return repeat_groups(runs)

    def table_text(self, run: Run, outputs: Mapping[str, bytes]) -> str:
        from commscope.output.links_view import peak_line
        from commscope.output.views import osu_text

        text, line = osu_text(run, outputs), peak_line(run)
        return text if line is None else f"{text.rstrip()}\n# {line}\n"

    def compare(self, runs: Sequence[Run], request: CompareRequest) -> Compared:
        from commscope.output.comparison import FORMATS, caption
        from commscope.output.views import comparison_table

        if request.reference:
            return against_reference(runs, request.reference)
        comparison = build(runs, request.metric, ratio=request.ratio, pdiff=request.pdiff)

        def show() -> None:
            from commscope.output.links_view import peak_line

            console = ui.table_console()
            console.print(terminal(caption(comparison)), markup=False, highlight=False)
            console.print(comparison_table(comparison))
            for column, name in zip(comparison.groups, comparison.names):
                line = peak_line(column[0]) if column else None
                if line:
                    console.print(terminal(f"{name}: {line}"), markup=False, highlight=False)

        return Compared(
            show,
            {fmt: (lambda write=write: write(comparison)) for fmt, write in FORMATS.items()},
        )

    def check(
        self, baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy: Policy, metric: str | None
    ) -> CheckResult:

        return check_curves(baseline, base_runs, new_runs, policy, metric)

    def plot(self, runs: Sequence[Run], request: PlotRequest, retest_of: RetestLoader) -> dict[Path, bytes]:
        from commscope.output.plot import figure, render

        reference = request.reference
        chosen = common_metric([*runs, *([reference] if reference else [])], request.metric)
        fig = figure(
            runs,
            chosen,
            band=request.band,
            ratio_to=reference,
            tolerance=request.tolerance,
            floor=request.floor.in_unit_of(chosen) if request.floor else None,
            title=request.title,
        )
        return {request.path: render(fig, request.fmt)}

    def report(self, runs: Sequence[Run], context: ReportContext) -> ReportPart:
        from commscope.kinds.curve_report import curve_part

        return curve_part(runs, context)

    def history(self, runs: Sequence[Run], request: HistoryRequest) -> list[Series]:
        from commscope.analysis.history import follow

        return follow(runs, request.policy, request.metric, request.size, request.all_sizes)

    def model(self, runs: Sequence[Run], each: bool) -> list[tuple[list[Run], Fit]]:
        from commscope.analysis.model import fits

        groups = [[run] for run in runs] if each else self.repeats(runs)
        return [(group, result) for group in groups for result in fits(group)]

    def monitoring(self, run: Run, retest: Run | None) -> list[Sample]:
        """A curve's values at each size in base units, its headline and share of the
        peak, when it ended and whether it completed."""
        from commscope.analysis.monitoring import run_samples

        return run_samples(run)


CURVE = Curve()
