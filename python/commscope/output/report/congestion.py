"""The report's congestion section: per run, the impact factors and both phases' numbers
as tables, and a bar chart of isolated against congested per canary test (a group of bars
per congestor); runs of the congestors alone get their throughput table."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from commscope.analysis.congestion import CANARIES, CONGESTORS, Phases
from commscope.analysis.titled_tables import TitledTable, run_name
from commscope.output import plot
from commscope.output.report.compute import SystemSection
from commscope.records.run import Run


def figure(phases: Sequence[Phases]) -> Figure | None:
    """A panel per canary test of one run's phases (analysis.congestion.run_phases):
    isolated and congested averages, a pair of bars per congestor."""
    found = [p for p in phases if p.canary is not None and p.isolated_avg is not None]
    canaries = [name for name in CANARIES if any(p.canary == name for p in found)]
    if not canaries:
        return None
    fig = Figure(figsize=(3.2 * len(canaries), 3.6))
    for index, canary in enumerate(canaries):
        axis = fig.add_subplot(1, len(canaries), index + 1)
        mine = sorted((p for p in found if p.canary == canary), key=lambda p: list(CONGESTORS).index(p.congestor))
        xs = range(len(mine))
        axis.bar([x - 0.2 for x in xs], [p.isolated_avg for p in mine], 0.4, label="isolated", color="C0")
        axis.bar([x + 0.2 for x in xs], [p.congested_avg or 0 for p in mine], 0.4, label="congested", color="C3")
        axis.set_xticks(list(xs), [p.congestor for p in mine], rotation=30, fontsize=7)
        axis.set_title(CANARIES[canary], fontsize=8)
        axis.set_ylabel(mine[0].unit if mine else "")
        axis.grid(True, axis="y", alpha=0.3)
        if index == 0:
            axis.legend(fontsize=7)
    fig.tight_layout()
    return fig


def sections(
    runs: Sequence[Run], tables: Sequence[TitledTable], charted: Sequence[tuple[Run, Sequence[Phases]]]
) -> list[SystemSection]:
    """The section of the runs' tables (none: no section) and a chart of each run in
    `charted` with its phases."""
    if not tables:
        return []
    section = SystemSection("Congestion: canary tests alone and beside congestors", list(tables))
    for run, phases in charted:
        fig = figure(phases)
        if fig is not None:
            section.figure_svg = plot.render(fig, "svg")
            section.figure_alt = f"{run_name(run)}: isolated and congested average per canary test and congestor"
    section.notes += [f"run {run.id}: {run.status}: {run.status_reason}" for run in runs if run.status != "complete"]
    return [section]
