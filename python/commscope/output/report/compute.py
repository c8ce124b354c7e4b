"""The report's compute section: seed 001's HPL table and hpcc's other tests, with a
figure of Gflops over node count, and the one-line headline each such run gets in the
summary table beside the network's latency and bandwidth."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from matplotlib.figure import Figure

from commscope.analysis.hpl import hpcc_table, hpl_table
from commscope.analysis.titled_tables import TitledTable, run_name
from commscope.output import plot
from commscope.records.benchmarks import HPL_BENCHMARK, primary_metric
from commscope.records.metrics import unit_of
from commscope.records.run import Run


@dataclass
class SystemSection:
    """A section of seed 001's tables (compute or storage) with its figure."""

    title: str
    tables: list[TitledTable]
    figure_svg: bytes = b""
    figure_alt: str = ""
    notes: list[str] = field(default_factory=list)


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


def sections(runs: Sequence[Run]) -> list[SystemSection]:
    hpl_runs = [run for run in runs if run.benchmark == HPL_BENCHMARK]
    hpcc = hpcc_table(runs)
    if not hpl_runs and not hpcc:
        return []
    tables = ([hpl_table(hpl_runs)] if hpl_runs else []) + ([hpcc] if hpcc else [])
    section = SystemSection("Compute: HPL and hpcc", tables)
    if hpl_runs:
        section.figure_svg = _hpl_figure(hpl_runs)
        section.figure_alt = "HPL Gflop/s over node count, a point per result"
    failed = [run for run in hpl_runs if run.status != "complete"]
    section.notes += [f"run {run.id}: {run.status}: {run.status_reason}" for run in failed]
    return [section]
