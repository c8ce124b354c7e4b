"""What a report says, gathered once and rendered twice (HTML and Markdown): plain
strings and tables, no markup, so the templates alone decide the escaping."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from commscope import __version__
from commscope.analysis.check import CheckResult
from commscope.analysis.compare import compare, primary, series
from commscope.analysis.model import fits as fit_model
from commscope.analysis.sweep_verdicts import is_sweep
from commscope.analysis.systemwide import is_system_run
from commscope.errors import UsageError
from commscope.output import plot
from commscope.output.comparison import caption, text_cells
from commscope.output.report import sweep, systemwide, warnings
from commscope.output.report.table import Table
from commscope.output.views import (
    MODEL_HEADER,
    VERDICT_HEADER,
    format_bandwidth,
    model_cells,
    model_headline,
    provenance_items,
    verdict_cells,
)
from commscope.records.invocation import now
from commscope.records.metrics import metric_title
from commscope.records.run import Run
from commscope.records.text import format_size


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
    warnings: list[str]
    provenance: list[tuple[str, list[tuple[str, str]]]]
    baseline: str | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    system_sections: list[systemwide.SystemSection] = field(default_factory=list)
    sweeps: list[sweep.SweepSection] = field(default_factory=list)

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
    return f"{format_bandwidth(values[key])} MB/s at {format_size(key[0])}"


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
    return Verdict(curve.summary(), curve.passed, Table(VERDICT_HEADER, verdict_cells(curve)))


def build(
    runs: Sequence[Run],
    database: str,
    check: CheckResult | None = None,
    title: str = "commscope report",
    retests: Mapping[int, Run] | None = None,
) -> Report:
    """The report of `runs`. `retests` holds the retest runs of the sweeps among them, by
    the sweep run's id (the CLI loads them from the store), so sweeps are judged as they
    were at the time."""
    # Runs are named as in their section's table; elsewhere the run id stands beside the name.
    names = {run.id: run.label or run.system or "" for run in runs}
    curves: dict[str, list] = {}
    for curve in check.curves if check else []:
        curves.setdefault(curve.benchmark, []).append(curve)
    summaries, sections, fit_lines = [], [], {}
    network = [run for run in runs if not is_system_run(run) and not is_sweep(run)]
    sweeps, sweep_headlines = sweep.sections([run for run in runs if is_sweep(run)], retests or {})
    for benchmark in dict.fromkeys(run.benchmark for run in network):
        group = [run for run in runs if run.benchmark == benchmark]
        try:
            comparison = compare(group)
        except UsageError as exc:  # runs of one benchmark with nothing in common: say so, go on
            sections.append(Section(benchmark, "-", b"", Table([], []), notes=[str(exc)]))
            continue
        header, rows = text_cells(comparison)
        section = Section(benchmark, comparison.metric, b"", Table(header, rows, caption(comparison)))
        try:
            section.figure_svg = plot.render(plot.figure(group, comparison.metric), "svg")
        except UsageError as exc:
            section.notes.append(str(exc))
        for column, name in zip(comparison.groups, comparison.names):
            for run in column:
                models, fit_lines[run.id] = _fit(run, f"run {run.id} ({name})")
                section.fits += models
        section.verdicts = [_verdict(curve) for curve in curves.get(benchmark, [])]
        note = warnings.unlike(group, benchmark)
        if note:
            section.notes.append(note)
        sections.append(section)
    for run in runs:
        swept = run.id in sweep_headlines  # a pair's numbers are in its section, not one figure
        summaries.append(
            RunSummary(
                run.id,
                run.benchmark,
                run.label or "",
                run.system or "",
                run.status,
                "-" if swept else small_message_latency(run),
                "-" if swept else peak_bandwidth(run),
                fit_lines.get(run.id, "-"),
                sweep_headlines[run.id] if swept else systemwide.headline(run),
            )
        )
    report = Report(
        title=title,
        generated=now(),
        version=__version__,
        database=database,
        runs=summaries,
        sections=sections,
        warnings=warnings.for_runs(runs),
        provenance=[
            (f"run {run.id}: {run.benchmark}" + (f" ({names[run.id]})" if names[run.id] else ""), provenance_items(run))
            for run in runs
        ],
    )
    report.system_sections = systemwide.sections([run for run in runs if is_system_run(run)])
    report.sweeps = sweeps
    if check is not None:
        report.baseline = check.baseline
        report.verdicts = [verdict for section in sections for verdict in section.verdicts]
        report.unmatched = [
            f"run {run.id} ({run.benchmark}): the baseline has no {run.benchmark} runs" for run in check.unmatched
        ]
    return report


def metric_heading(section: Section) -> str:
    return metric_title(section.metric) if section.metric != "-" else ""
