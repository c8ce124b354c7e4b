"""What a report says, gathered once and rendered twice (HTML and Markdown): plain
strings and tables, no markup, so the templates alone decide the escaping. Everything
here renders what the run kinds analysed (kinds/*: comparisons, fits, verdicts,
headline values); nothing here asks a run a question of its own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from commscope import __version__
from commscope.analysis.check import CheckResult, CurveVerdict
from commscope.analysis.compare import Comparison
from commscope.analysis.history import Where
from commscope.analysis.report_warnings import Warnings
from commscope.errors import UsageError
from commscope.output import plot
from commscope.output.comparison import caption, text_cells
from commscope.output.links_view import percent_cell
from commscope.output.report.compute import SystemSection
from commscope.output.report.table import Table
from commscope.output.report.timeline import Timeline
from commscope.output.verdicts import VERDICT_HEADER, curve_summary, verdict_cells
from commscope.output.views import (
    MODEL_HEADER,
    format_bandwidth,
    model_cells,
    model_headline,
    provenance_items,
)
from commscope.records.invocation import now
from commscope.records.metrics import metric_title, unit_of
from commscope.records.run import Run
from commscope.records.text import format_size

if TYPE_CHECKING:  # the sweep sections load the sweep rules' pydantic models, which curves never need
    from commscope.analysis.model import Fit
    from commscope.output.report import sweep
    from commscope.output.report.hosts import HostsOverTime

#: The summary table's columns after run, benchmark, label, system and status, in this
#: order; each kind fills those it has (a report shows the columns some run filled, "-"
#: where a run has none). HEADLINE is every kind's one-line result.
HEADLINE, PEAK_BANDWIDTH, MODEL = "headline", "peak bandwidth", "model (Hockney)"
SUMMARY_COLUMNS = (HEADLINE, PEAK_BANDWIDTH, MODEL)


@dataclass
class ModelFit:
    run: str
    headline: list[tuple[str, str]]
    regimes: Table


@dataclass
class Verdict:
    summary: str
    passed: bool
    sizes: Table


@dataclass
class Section:
    """One benchmark: its runs side by side, as a figure, a table and model fits."""

    benchmark: str
    metric: str
    figure_svg: bytes
    comparison: Table
    fits: list[ModelFit] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class RunSummary:
    id: int
    benchmark: str
    name: str
    system: str
    status: str
    cells: list[str]  # one per Report.columns


@dataclass
class Report:
    title: str
    generated: str
    version: str
    database: str
    columns: list[str]  # the summary table's columns after status (SUMMARY_COLUMNS filled)
    runs: list[RunSummary]
    sections: list[Section]
    warnings: Warnings
    provenance: list[tuple[str, list[tuple[str, str]]]]
    baseline: str | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    system_sections: list[SystemSection] = field(default_factory=list)
    sweeps: list[sweep.SweepSection] = field(default_factory=list)
    timelines: list[Timeline] = field(default_factory=list)
    hosts: HostsOverTime | None = None  # two sweeps or more: their hosts over time

    @property
    def passed(self) -> bool | None:
        return None if self.baseline is None else all(verdict.passed for verdict in self.verdicts)


@dataclass
class ReportPart:
    """A run kind's share of the report: its sections (each in the slot its template
    renders) and, per run of its own, its cells of the summary table by column."""

    sections: list[Section] = field(default_factory=list)
    sweeps: list[sweep.SweepSection] = field(default_factory=list)
    system_sections: list[SystemSection] = field(default_factory=list)
    timelines: list[Timeline] = field(default_factory=list)
    summary: dict[int, dict[str, str]] = field(default_factory=dict)


# -- the curves' part: rendering what kinds/curve_report analysed ---------------------------


def headline_cell(value: tuple[float, Where] | None, metric: str | None) -> str:
    """A run's headline value (analysis.history.run_headline) as the summary says it."""
    if value is None or metric is None:
        return "-"
    number, where = value
    unit = {"us": "µs"}.get(unit_of(metric), unit_of(metric))  # as the report writes times
    shown = format_bandwidth(number) if unit == "MB/s" else f"{number:.2f}"
    return f"{shown} {unit} at {where.text}" if unit else f"{shown} at {where.text}"


def peak_cell(peak: tuple[float, int | None] | None, limit: float | None) -> str:
    """The highest bandwidth a run measured, at its size, and its share of the path's peak."""
    if peak is None:
        return "-"
    value, size = peak
    share = f" ({percent_cell(value, limit)} of {format_bandwidth(limit)} MB/s peak)" if limit else ""
    return f"{format_bandwidth(value)} MB/s at {format_size(size)}{share}"


def fits_rendered(fitted: Sequence[Fit] | str, name: str) -> tuple[list[ModelFit], str]:
    """The model fits of a run (one per combination of its sweep axes) and a one-line
    summary; or, given why there is none, no fits and that reason."""
    if isinstance(fitted, str):
        return [], fitted
    models, lines = [], []
    for result in fitted:
        which = result.axes.suffix()
        models.append(ModelFit(name + which, model_headline(result), Table(MODEL_HEADER, model_cells(result))))
        lines.append(f"α {result.alpha_us:.2f} µs, β {format_bandwidth(result.beta_MBps)} MB/s{which}")
    return models, "; ".join(lines)


def verdict(curve: CurveVerdict) -> Verdict:
    return Verdict(curve_summary(curve), curve.passed, Table(VERDICT_HEADER, verdict_cells(curve)))


def unusable_section(benchmark: str, why: str) -> Section:
    """Runs of one benchmark with nothing in common: said, and the report goes on."""
    return Section(benchmark, "-", b"", Table([], []), notes=[why])


def curve_section(
    group: Sequence[Run],
    comparison: Comparison,
    fitted: Mapping[int, Sequence[Fit] | str],
    verdicts: Sequence[CurveVerdict],
    notes: Sequence[str],
) -> tuple[Section, dict[int, str]]:
    """One benchmark's section (figure, side-by-side table, fits, verdicts) from its
    comparison and each run's fits; with each run's one-line model for the summary."""
    header, rows = text_cells(comparison)
    section = Section(group[0].benchmark, comparison.metric, b"", Table(header, rows, caption(comparison)))
    try:
        section.figure_svg = plot.render(plot.figure(group, comparison.metric), "svg")
    except UsageError as exc:
        section.notes.append(str(exc))
    lines = {}
    for column, name in zip(comparison.groups, comparison.names):
        for run in column:
            models, lines[run.id] = fits_rendered(fitted[run.id], f"run {run.id} ({name})")
            section.fits += models
    section.verdicts = [verdict(curve) for curve in verdicts]
    section.notes += notes
    return section, lines


# -- the whole report ----------------------------------------------------------------------


def assemble(
    runs: Sequence[Run],
    parts: Sequence[ReportPart],
    database: str,
    check: CheckResult | None,
    title: str,
    warned: Warnings,
) -> Report:
    """The report of `runs` from their kinds' parts: the summary table in the runs' order,
    the sections of each part, the timelines, the warnings and every run's provenance."""
    names = {run.id: run.label or run.system or "" for run in runs}
    merged = ReportPart()
    for part in parts:
        merged.sections += part.sections
        merged.sweeps += part.sweeps
        merged.system_sections += part.system_sections
        merged.timelines += part.timelines
        merged.summary.update(part.summary)
    filled = [column for cells in merged.summary.values() for column, cell in cells.items() if cell != "-"]
    columns = [name for name in SUMMARY_COLUMNS if name in filled] + [
        name for name in dict.fromkeys(filled) if name not in SUMMARY_COLUMNS
    ]
    summaries = [
        RunSummary(
            run.id,
            run.benchmark,
            run.label or "",
            run.system or "",
            run.status,
            [merged.summary.get(run.id, {}).get(column, "-") for column in columns],
        )
        for run in runs
    ]
    report = Report(
        title=title,
        generated=now(),
        version=__version__,
        database=database,
        columns=columns,
        runs=summaries,
        sections=merged.sections,
        warnings=warned,
        provenance=[
            (f"run {run.id}: {run.benchmark}" + (f" ({names[run.id]})" if names[run.id] else ""), provenance_items(run))
            for run in runs
        ],
        system_sections=merged.system_sections,
        sweeps=merged.sweeps,
        timelines=merged.timelines,
    )
    if check is not None:
        report.baseline = check.baseline
        report.verdicts = [verdict for section in merged.sections for verdict in section.verdicts]
        report.unmatched = [
            f"run {run.id} ({run.benchmark}): the baseline has no {run.benchmark} runs" for run in check.unmatched
        ]
    return report


def metric_heading(section: Section) -> str:
    return metric_title(section.metric) if section.metric != "-" else ""
