"""The report's storage section: the standard-benchmarks fio tables (as kinds/fio made them) with a
figure of total throughput and IOPS over the client count."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from commscope.analysis.fio import STORAGE_TITLES
from commscope.analysis.titled_tables import TitledTable, run_name
from commscope.output import plot
from commscope.output.report.compute import SystemSection
from commscope.records.metrics import STORAGE_WORKLOADS
from commscope.records.run import Run


def _figure(runs: Sequence[Run]) -> bytes:
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


def sections(runs: Sequence[Run], tables: Sequence[TitledTable]) -> list[SystemSection]:
    if not runs:
        return []
    section = SystemSection(
        "Storage: throughput and IOPS over clients",
        list(tables),
        _figure(runs),
        "total throughput and IOPS over client count",
    )
    for run in runs:
        policy = (run.provenance or {}).get("cache_policy")
        if policy:
            section.notes.append(f"run {run.id}: {policy}")
    return [section]
