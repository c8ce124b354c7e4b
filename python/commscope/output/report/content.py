"""What a report says, gathered once and rendered twice (HTML and Markdown): plain
strings and tables, no markup, so the templates alone decide the escaping."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from commscope import __version__
from commscope.analysis.check import CheckResult
from commscope.analysis.compare import compare, primary, series
from commscope.analysis.model import fits as fit_model
from commscope.analysis.peaks import run_peak
from commscope.errors import UsageError
from commscope.output import plot
from commscope.output.comparison import caption, text_cells
from commscope.output.links_view import percent_cell
from commscope.output.report import warnings
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
from commscope.records.metrics import metric_title
from commscope.records.run import Run
from commscope.records.text import format_size

if TYPE_CHECKING:  # the sweep sections load the sweep rules' pydantic models, which curves never need
    from commscope.output.report import sweep


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
    small_latency: str
    peak_bandwidth: str
    model: str
    headline: str = "-"  # compute and storage runs: Gflops, throughput


@dataclass
class Report:
    title: str
    generated: str
    version: str
    database: str
    runs: list[RunSummary]
    sections: list[Section]
    warnings: warnings.Warnings
    provenance: list[tuple[str, list[tuple[str, str]]]]
    baseline: str | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    system_sections: list[SystemSection] = field(default_factory=list)
    sweeps: list[sweep.SweepSection] = field(default_factory=list)
    timelines: list[Timeline] = field(default_factory=list)

    @property
    def passed(self) -> bool | None:
        return None if self.baseline is None else all(verdict.passed for verdict in self.verdicts)


def small_message_latency(run: Run) -> str:
    """The latency at the smallest size measured, as OMB users quote it."""
    values = series(run, "latency_us")
    if not values:
        return "-"
    key = min(values, key=lambda key: (key[0] is not None, key[0] or 0))
    return f"{values[key]:.2f} µs at {format_size(key[0])}" if key[0] is not None else f"{values[key]:.2f} µs"


def peak_bandwidth(run: Run) -> str:
    values = series(run, "bandwidth_MBps")
    if not values:
        return "-"
    key = max(values, key=values.get)
    limit = run_peak(run).for_benchmark(run.benchmark)
    share = f" ({percent_cell(values[key], limit)} of {format_bandwidth(limit)} MB/s peak)" if limit else ""
    return f"{format_bandwidth(values[key])} MB/s at {format_size(key[0])}{share}"


def _fit(run: Run, name: str) -> tuple[list[ModelFit], str]:
    """The model fits of a run (one per combination of its sweep axes) and a one-line
    summary, or no fits and why not."""
    if primary(run) not in ("latency_us", "bandwidth_MBps"):
        return [], "-"
    try:
        fitted = fit_model(run)
    except UsageError as exc:
        return [], f"no fit: {exc}"
    models, lines = [], []
    for result in fitted:
        which = result.axes.suffix()
        models.append(ModelFit(name + which, model_headline(result), Table(MODEL_HEADER, model_cells(result))))
        lines.append(f"α {result.alpha_us:.2f} µs, β {format_bandwidth(result.beta_MBps)} MB/s{which}")
    return models, "; ".join(lines)


def _verdict(curve) -> Verdict:
    return Verdict(curve_summary(curve), curve.passed, Table(VERDICT_HEADER, verdict_cells(curve)))


@dataclass
class ReportPart:
    """A run kind's share of the report: its sections (in the slot its template renders),
    and per run of its own the cells of the summary table."""

    sections: list[Section] = field(default_factory=list)
    sweeps: list[sweep.SweepSection] = field(default_factory=list)
    system_sections: list[SystemSection] = field(default_factory=list)
    headlines: dict[int, str] = field(default_factory=dict)
    small_latency: dict[int, str] = field(default_factory=dict)
    peak_bandwidth: dict[int, str] = field(default_factory=dict)
    fits: dict[int, str] = field(default_factory=dict)


def network_sections(runs: Sequence[Run], check: CheckResult | None) -> ReportPart:
    """The curves' part: a section per benchmark with its runs side by side (figure,
    table, model fits, verdicts against the baseline)."""
    curves: dict[str, list] = {}
    for curve in check.curves if check else []:
        curves.setdefault(curve.benchmark, []).append(curve)
    part = ReportPart()
    for benchmark in dict.fromkeys(run.benchmark for run in runs):
        group = [run for run in runs if run.benchmark == benchmark]
        try:
            comparison = compare(group)
        except UsageError as exc:  # runs of one benchmark with nothing in common: say so, go on
            part.sections.append(Section(benchmark, "-", b"", Table([], []), notes=[str(exc)]))
            continue
        header, rows = text_cells(comparison)
        section = Section(benchmark, comparison.metric, b"", Table(header, rows, caption(comparison)))
        try:
            section.figure_svg = plot.render(plot.figure(group, comparison.metric), "svg")
        except UsageError as exc:
            section.notes.append(str(exc))
        for column, name in zip(comparison.groups, comparison.names):
            for run in column:
                models, part.fits[run.id] = _fit(run, f"run {run.id} ({name})")
                section.fits += models
        section.verdicts = [_verdict(curve) for curve in curves.get(benchmark, [])]
        note = warnings.unlike(group, benchmark)
        if note:
            section.notes.append(note)
        part.sections.append(section)
    for run in runs:
        part.small_latency[run.id] = small_message_latency(run)
        part.peak_bandwidth[run.id] = peak_bandwidth(run)
    return part


def assemble(
    runs: Sequence[Run],
    parts: Sequence[ReportPart],
    database: str,
    check: CheckResult | None,
    title: str,
    timelines: Sequence[Timeline] = (),
) -> Report:
    """The report of `runs` from their kinds' parts: the summary table in the runs' order,
    the sections of each part, the timelines, the warnings and every run's provenance."""
    names = {run.id: run.label or run.system or "" for run in runs}
    merged = ReportPart()
    for part in parts:
        merged.sections += part.sections
        merged.sweeps += part.sweeps
        merged.system_sections += part.system_sections
        for mine, theirs in (
            (merged.headlines, part.headlines),
            (merged.small_latency, part.small_latency),
            (merged.peak_bandwidth, part.peak_bandwidth),
            (merged.fits, part.fits),
        ):
            mine.update(theirs)
    summaries = [
        RunSummary(
            run.id,
            run.benchmark,
            run.label or "",
            run.system or "",
            run.status,
            merged.small_latency.get(run.id, "-"),
            merged.peak_bandwidth.get(run.id, "-"),
            merged.fits.get(run.id, "-"),
            merged.headlines.get(run.id, "-"),
        )
        for run in runs
    ]
    report = Report(
        title=title,
        generated=now(),
        version=__version__,
        database=database,
        runs=summaries,
        sections=merged.sections,
        warnings=warnings.for_runs(runs),
        provenance=[
            (f"run {run.id}: {run.benchmark}" + (f" ({names[run.id]})" if names[run.id] else ""), provenance_items(run))
            for run in runs
        ],
        system_sections=merged.system_sections,
        sweeps=merged.sweeps,
        timelines=list(timelines),
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
