"""The report's compute and storage sections: seed 001's tables (from
analysis.systemwide) with a figure each, Gflops over node count for HPL and total
throughput over client count for storage, and the one-line headline each such run
gets in the summary table beside the network's latency and bandwidth."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from matplotlib.figure import Figure

from commscope.analysis.systemwide import STORAGE_TITLES, SystemTable, hpcc_table, hpl_table, run_name, storage_tables
from commscope.output import plot
from commscope.records.metrics import STORAGE_WORKLOADS
from commscope.records.run import Run


@dataclass
class SystemSection:
    title: str
    tables: list[SystemTable]
    figure_svg: bytes = b""
    figure_alt: str = ""
    notes: list[str] = field(default_factory=list)


def headline(run: Run) -> str:
    """What a compute or storage run says in one line ("-" for other runs)."""
    if run.benchmark == "hpl":
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
    if run.benchmark == "storage" and run.points:
        last = max(run.points, key=lambda p: p.size or 0)
        parts = [
            f"{last.metrics[name]:,.0f} {'MB/s' if name.endswith('MBps') else 'IOPS'} "
            f"{STORAGE_TITLES[name].split(' (')[0].lower()}"
            for name in STORAGE_WORKLOADS
            if name in last.metrics
        ]
        return f"{', '.join(parts[:2])} at {last.size} processes" if parts else "-"
    if run.benchmark.startswith("hpcc_") and run.points:
        metrics = run.points[0].metrics
        from commscope.records.benchmarks import primary_metric
        from commscope.records.metrics import unit_of

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


def _storage_figure(runs: Sequence[Run]) -> bytes:
    """Total throughput (MB/s) and IOPS over the client/process count, a line per run and workload."""
    fig = Figure(figsize=(9, 4))
    throughput, iops = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    for index, run in enumerate(runs):
        points = sorted(run.points, key=lambda p: p.size or 0)
        for name, style in zip(STORAGE_WORKLOADS, ("-o", "--s", "-o", "--s")):
            xs = [p.size for p in points if isinstance(p.metrics.get(name), (int, float))]
            ys = [p.metrics[name] for p in points if isinstance(p.metrics.get(name), (int, float))]
            if xs:
                axis = throughput if name.endswith("MBps") else iops
                axis.plot(xs, ys, style, color=f"C{index}", label=f"{run_name(run)}: {STORAGE_TITLES[name]}")
    for axis, unit in ((throughput, "total MB/s"), (iops, "total IOPS")):
        axis.set_xlabel("clients / processes")
        axis.set_ylabel(unit)
        axis.grid(True, alpha=0.3)
        if axis.get_legend_handles_labels()[0]:
            axis.legend(fontsize=7)
    fig.tight_layout()
    return plot.render(fig, "svg")


def sections(runs: Sequence[Run]) -> list[SystemSection]:
    result = []
    hpl_runs = [run for run in runs if run.benchmark == "hpl"]
    hpcc = hpcc_table(runs)
    if hpl_runs or hpcc:
        tables = ([hpl_table(hpl_runs)] if hpl_runs else []) + ([hpcc] if hpcc else [])
        section = SystemSection("Compute: HPL and hpcc", tables)
        if hpl_runs:
            section.figure_svg = _hpl_figure(hpl_runs)
            section.figure_alt = "HPL Gflop/s over node count, a point per result"
        failed = [run for run in hpl_runs if run.status != "complete"]
        section.notes += [f"run {run.id}: {run.status}: {run.status_reason}" for run in failed]
        result.append(section)
    storage_runs = [run for run in runs if run.benchmark == "storage"]
    if storage_runs:
        section = SystemSection(
            "Storage: throughput and IOPS over clients",
            storage_tables(storage_runs),
            _storage_figure(storage_runs),
            "total throughput and IOPS over client count",
        )
        for run in storage_runs:
            policy = (run.provenance or {}).get("cache_policy")
            if policy:
                section.notes.append(f"run {run.id}: {policy}")
        result.append(section)
    return result
