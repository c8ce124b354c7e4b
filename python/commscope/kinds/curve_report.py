"""The curves' part of `commscope report`: each benchmark's runs analysed once (their
comparison, each run's fits, headline value and highest bandwidth, the verdicts of the
check, the timelines' history, the JUPITER rule and the published placements), then
handed to output/report to render."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.analysis.compare import compare, primary, series
from commscope.analysis.history import History, follow, run_headline
from commscope.analysis.model import Fit, fits
from commscope.analysis.peaks import lowest_core_path, lowest_peak, run_peak
from commscope.analysis.published import place
from commscope.analysis.report_warnings import unlike
from commscope.errors import UsageError
from commscope.kinds.base import ReportContext
from commscope.output.report import content, peaks, timeline
from commscope.records.references import load
from commscope.records.run import Run

#: The metrics a Hockney model is fitted to (bandwidth as time per message).
MODELLED = ("latency_us", "bandwidth_MBps")


def curve_part(runs: Sequence[Run], context: ReportContext) -> content.ReportPart:
    """A section per benchmark with its runs side by side (figure, table, model fits,
    verdicts against the baseline), each run's summary cells, the rule's and the
    published systems' sections, and a timeline per headline series."""
    verdicts: dict[str, list] = {}
    for curve in context.check.curves if context.check else []:
        verdicts.setdefault(curve.benchmark, []).append(curve)
    part = content.ReportPart()
    models: dict[int, str] = {}
    for benchmark in dict.fromkeys(run.benchmark for run in runs):
        group = [run for run in runs if run.benchmark == benchmark]
        try:
            comparison = compare(group)
        except UsageError as exc:  # runs of one benchmark with nothing in common: say so, go on
            part.sections.append(content.unusable_section(benchmark, str(exc)))
            continue
        note = unlike(group, benchmark)
        section, lines = content.curve_section(
            group,
            comparison,
            {run.id: _fits(run) for run in group},
            verdicts.get(benchmark, []),
            [note] if note else [],
        )
        part.sections.append(section)
        models.update(lines)
    for run in runs:
        metric, highest = primary(run), _highest_bandwidth(run)
        part.summary[run.id] = {
            content.HEADLINE: content.headline_cell(run_headline(run, metric) if metric else None, metric),
            content.PEAK_BANDWIDTH: content.peak_cell(
                highest, run_peak(run).for_benchmark(run.benchmark) if highest else None
            ),
            content.MODEL: models.get(run.id, "-"),
        }
    part.system_sections += peaks.rule_section(lowest_peak(runs), lowest_core_path(runs))
    part.system_sections += peaks.published_section(place(runs, load()))
    part.timelines = timeline.timelines(_history(runs, context))
    return part


def _fits(run: Run) -> list[Fit] | str:
    """The run's fits, or why there are none ("-": not a latency or bandwidth curve)."""
    if primary(run) not in MODELLED:
        return "-"
    try:
        return fits(run)
    except UsageError as exc:
        return f"no fit: {exc}"


def _highest_bandwidth(run: Run) -> tuple[float, int | None] | None:
    values = series(run, "bandwidth_MBps")
    if not values:
        return None
    key = max(values, key=values.get)
    return values[key], key.size


def _history(runs: Sequence[Run], context: ReportContext) -> History | None:
    """The headline series over time, judged as `history` judges them; none when the runs
    make none (one run, metrics without a better direction)."""
    if len(runs) < 2:
        return None
    try:
        return History(follow(runs, context.policy), context.policy)
    except UsageError:
        return None
