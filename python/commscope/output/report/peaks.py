"""The report's sections about peaks and published figures: seed 004's intra-node rule
(the GPU pair with the lowest theoretical peak and its value) and the runs placed among
published systems."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.analysis.peaks import lowest_peak
from commscope.analysis.published import place
from commscope.analysis.system_tables import SystemTable
from commscope.output.links_view import peak_text, percent_cell
from commscope.output.references_view import placed_table
from commscope.output.report.compute import SystemSection
from commscope.records.references import load
from commscope.records.run import Run


def _figure(value: float | None, metric: str) -> str:
    if value is None:
        return "-"
    return f"{value:,.2f} us (minimum latency)" if metric == "latency_us" else f"{value:,.0f} MB/s (maximum bandwidth)"


def rule_section(runs: Sequence[Run]) -> list[SystemSection]:
    results = lowest_peak(runs)
    if not results:
        return []
    header = ["benchmark", "host", "GPU pairs", "lowest-peak pair(s)", "path", "theoretical peak"]
    header += ["ranked by", "the rule's figure", "% of peak"]
    rows, notes = [], []
    for result in results:
        lowest = result.lowest
        peak = lowest[0].peak if lowest else None
        limit = peak.for_benchmark(result.benchmark) if peak else None
        rows.append(
            [
                result.benchmark,
                result.host,
                f"{len(result.measured)} measured",
                ", ".join(f"GPU{p.a}-GPU{p.b}" for p in lowest) or "unknown",
                lowest[0].cell if lowest else "unknown",
                peak_text(peak) if peak else "unknown (no inventory of the pairs)",
                result.by,
                _figure(result.value, result.metric)
                + (f" of GPU{result.pair[0]}-GPU{result.pair[1]}" if result.pair else ""),
                percent_cell(result.value, limit) if result.metric == "bandwidth_MBps" else "-",
            ]
        )
        if len(lowest) > 1:
            notes.append(
                f"{result.benchmark}: {len(lowest)} pairs share the lowest place; the figure is the worst of theirs"
            )
        if result.by == "path type":
            notes.append(f"{result.benchmark}: some peaks unknown: ranked by path (NVLink, PIX, PXB, PHB, NODE, SYS)")
    table = SystemTable("GPU pairs of one node, one-to-all (seed 004)", header, rows, rows)
    return [SystemSection("Seed 004: the combination with the lowest theoretical peak", [table], notes=notes)]


def published_section(runs: Sequence[Run]) -> list[SystemSection]:
    placed = place(runs, load())
    if not placed:
        return []
    table: SystemTable = placed_table(placed)
    notes = ["yours / theirs: above 1 is better for bandwidth, below 1 better for latency"]
    return [SystemSection("Against published systems", [table], notes=notes)]
