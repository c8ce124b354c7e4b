"""HPL and hpcc's other tests as a standard-benchmarks page tabulates them: a row per HPL result
(configuration, cores, memory per node, N, NB, P, Q, time, Gflops, and the efficiency
against the theoretical peak when given), and a row per hpcc test and metric."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.analysis.titled_tables import TitledTable, run_name, thousands
from commscope.records.benchmarks import COMPUTE_BENCHMARKS, HPL_BENCHMARK
from commscope.records.metrics import unit_of
from commscope.records.run import Run

HPL_HEADER = ("T/V", "N_cores", "MEM/node (GB)", "N", "NB", "P", "Q", "Time(secs)", "Gflops")


def _memory_per_node_GB(run: Run) -> float | None:
    options = run.options or {}
    if isinstance(options.get("memory_per_node_GB"), (int, float)):
        return options["memory_per_node_GB"]
    memory = (run.provenance or {}).get("memory_bytes")
    return round(memory / 1e9, 1) if isinstance(memory, (int, float)) else None


def hpl_table(runs: Sequence[Run], peak_per_core: float | None = None) -> TitledTable:
    """The standard-benchmarks HPL table: one row per HPL result, ordered by node count then cores.
    With `peak_per_core` (Gflop/s of one core), the efficiency Gflops / (cores x peak)."""
    header = list(HPL_HEADER)
    if peak_per_core:
        header += ["Peak (Gflops)", "Efficiency"]
    rows, values = [], []
    hpl_runs = sorted(
        (run for run in runs if run.benchmark == HPL_BENCHMARK),
        key=lambda run: (run.nodes or 0, run.ranks or 0, run.id or 0),
    )
    for run in hpl_runs:
        for point in run.points:
            metrics = point.metrics
            variant = metrics.get("hpl_variant")
            name = run_name(run) + (f":{variant}" if variant else "")
            cores = run.ranks
            memory = _memory_per_node_GB(run)
            gflops = metrics.get("gflops")
            row = [
                name,
                str(cores or "-"),
                thousands(memory, 0) if memory else "-",
                str(point.size),
                str(metrics.get("block_size", "-")),
                str(metrics.get("grid_rows", "-")),
                str(metrics.get("grid_cols", "-")),
                _time(metrics.get("time_s")),
                _gflops(gflops),
            ]
            numbers = [
                name,
                cores,
                memory,
                point.size,
                metrics.get("block_size"),
                metrics.get("grid_rows"),
                metrics.get("grid_cols"),
                metrics.get("time_s"),
                gflops,
            ]
            if peak_per_core:
                peak = cores * peak_per_core if cores else None
                efficiency = gflops / peak if peak and isinstance(gflops, (int, float)) else None
                row += [_gflops(peak), f"{100 * efficiency:.1f}%" if efficiency is not None else "-"]
                numbers += [peak, efficiency]
            if point.validation == "Fail":
                row[-1] += " (residual FAILED)"
            rows.append(row)
            values.append(numbers)
    return TitledTable("HPL", header, rows, values)


def _time(value) -> str:
    if not isinstance(value, (int, float)):
        return "-"
    return f"{value:,.0f}" if value >= 100 else f"{value:.2f}"


def _gflops(value) -> str:
    if not isinstance(value, (int, float)):
        return "-"
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def hpcc_table(runs: Sequence[Run]) -> TitledTable | None:
    """hpcc's other tests: a row per run and metric."""
    rows, values = [], []
    for run in runs:
        if run.benchmark not in COMPUTE_BENCHMARKS or run.benchmark == HPL_BENCHMARK:
            continue
        for point in run.points:
            for metric, value in point.metrics.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    rows.append(
                        [run_name(run), run.benchmark, metric, f"{value:.4g}", unit_of(metric), str(run.ranks or "-")]
                    )
                    values.append([run_name(run), run.benchmark, metric, value, unit_of(metric), run.ranks])
    if not rows:
        return None
    return TitledTable("hpcc", ["run", "test", "metric", "value", "unit", "ranks"], rows, values)
