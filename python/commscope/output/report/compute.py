"""The report's compute section: the standard-benchmarks HPL table and hpcc's other tests (as kinds/hpl
made them), with a figure of Gflops over node count."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from matplotlib.figure import Figure

from commscope.analysis.titled_tables import TitledTable, run_name
from commscope.output import plot
from commscope.records.run import Run


@dataclass
class SystemSection:
    """A section of the standard-benchmarks tables (compute or storage) with its figure."""

    title: str
    tables: list[TitledTable]
    figure_svg: bytes = b""
    figure_alt: str = ""
    notes: list[str] = field(default_factory=list)


def _hpl_figure(runs: Sequence[Run]) -> bytes:
    """Gflops over node count, a point per HPL result (nodes unknown: 1)."""
    fig = Figure(figsize=(7, 4))
    axis = fig.add_subplot()
    for run in runs:
        for point in run.points:
            gflops = point.metrics.get("gflops")
            if isinstance(gflops, (int, float)):
                axis.plot([run.nodes or 1], [gflops], "o", color="C0")
                axis.annotate(
                    run_name(run), (run.nodes or 1, gflops), textcoords="offset points", xytext=(4, 4), fontsize=7
                )
    axis.set_xlabel("nodes")
    axis.set_ylabel("HPL Gflop/s")
    axis.grid(True, alpha=0.3)
    fig.tight_layout()
    return plot.render(fig, "svg")


def sections(hpl_runs: Sequence[Run], tables: Sequence[TitledTable]) -> list[SystemSection]:
    """The section of the HPL runs and the tables of every HPL and hpcc run."""
    if not tables:
        return []
    section = SystemSection("Compute: HPL and hpcc", list(tables))
    if hpl_runs:
        section.figure_svg = _hpl_figure(hpl_runs)
        section.figure_alt = "HPL Gflop/s over node count, a point per result"
    failed = [run for run in hpl_runs if run.status != "complete"]
    section.notes += [f"run {run.id}: {run.status}: {run.status_reason}" for run in failed]
    return [section]
