"""The report's sections about peaks and published figures: the JUPITER rules' intra-node rule
(the GPU pair and the core pair with the lowest theoretical peak and their values) and the runs placed among
published systems."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.analysis.peaks import LowestCorePath, LowestPeak
from commscope.analysis.published import Placed
from commscope.analysis.titled_tables import TitledTable
from commscope.output.links_view import peak_text, percent_cell
from commscope.output.references_view import placed_table
from commscope.output.report.compute import SystemSection
from commscope.records.core_paths import CORE_PATHS


def _figure(value: float | None, metric: str) -> str:
    if value is None:
        return "-"
    return f"{value:,.2f} us (minimum latency)" if metric == "latency_us" else f"{value:,.0f} MB/s (maximum bandwidth)"


def rule_section(gpu_results: Sequence[LowestPeak], core_results: Sequence[LowestCorePath]) -> list[SystemSection]:
    """The JUPITER rules' intra-node rule (analysis.peaks.lowest_peak and lowest_core_path of the
    runs): a table of the GPU half and one of the core half, each where the runs have
    pairs of that kind."""
    gpus, gpu_notes = _gpu_table(gpu_results)
    cores, core_notes = _core_table(core_results)
    tables = [table for table in (gpus, cores) if table is not None]
    if not tables:
        return []
    notes = gpu_notes + core_notes
    return [SystemSection("The JUPITER rules: the combination with the lowest theoretical peak", tables, notes=notes)]


def _core_table(results: Sequence[LowestCorePath]) -> tuple[TitledTable | None, list[str]]:
    if not results:
        return None, []
    header = ["benchmark", "host", "core pairs", "lowest-peak pair(s)", "path", "theoretical peak"]
    header += ["ranked by", "the rule's figure"]
    rows, notes = [], []
    for result in results:
        pairs = ", ".join(f"core{a}-core{b} ({path})" for (a, b), path in sorted(result.paths.items()))
        rows.append(
            [
                result.benchmark,
                result.host,
                pairs,
                ", ".join("core{}-core{}".format(*pair) for pair in result.lowest) or "unknown",
                result.path or "unknown",
                "unknown (shared memory: memory-bound)",
                "path type",
                _figure(result.value, result.metric)
                + (" of core{}-core{}".format(*result.pair) if result.pair else ""),
            ]
        )
        if len(result.lowest) > 1:
            notes.append(
                f"{result.benchmark}: {len(result.lowest)} core pairs share the farthest path; "
                "the figure is the worst of theirs"
            )
        if len(set(result.paths.values())) == 1:
            notes.append(f"{result.benchmark} on {result.host}: one path type among its cores ({result.path})")
    notes.append(
        f"core pairs: ranked by path, nearest first: {'; '.join(CORE_PATHS)}; the farthest stands for the lowest peak"
    )
    return TitledTable("Core pairs of one node, one-to-all (JUPITER rules)", header, rows, rows), notes


def _gpu_table(results: Sequence[LowestPeak]) -> tuple[TitledTable | None, list[str]]:
    if not results:
        return None, []
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
    return TitledTable("GPU pairs of one node, one-to-all (JUPITER rules)", header, rows, rows), notes


def published_section(placed: Sequence[Placed]) -> list[SystemSection]:
    """The runs placed among published systems (analysis.published.place)."""
    if not placed:
        return []
    table: TitledTable = placed_table(placed)
    notes = ["yours / theirs: above 1 is better for bandwidth, below 1 better for latency"]
    return [SystemSection("Against published systems", [table], notes=notes)]
