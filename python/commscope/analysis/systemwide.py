"""The cluster beside the network, as seed 001 tabulates it: HPL results (a row per HPL
result: configuration, cores, memory per node, N, NB, P, Q, time, Gflops, and the
efficiency against the theoretical peak when given), hpcc's other tests, and storage
sweeps (per-process and total throughput over the client/process count).

Tables are plain header + rows of strings (and the numbers behind them for CSV/JSON),
so the terminal, Markdown and the report print the same thing.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from commscope.records.benchmarks import COMPUTE_BENCHMARKS, SYSTEM_BENCHMARKS
from commscope.records.metrics import PER_PROCESS, STORAGE_WORKLOADS, unit_of
from commscope.records.run import Run

HPL_HEADER = ("T/V", "N_cores", "MEM/node (GB)", "N", "NB", "P", "Q", "Time(secs)", "Gflops")
STORAGE_TITLES = {
    "seq_write_MBps": "Sequential write (MB/s)",
    "seq_read_MBps": "Sequential read (MB/s)",
    "rand_write_iops": "Random write (IOPS)",
    "rand_read_iops": "Random read (IOPS)",
}


@dataclass
class SystemTable:
    title: str
    header: list[str]
    rows: list[list[str]]
    values: list[list[float | int | str | None]] = field(default_factory=list)  # unrounded, for CSV/JSON
    caption: str = ""


def is_system_run(run: Run) -> bool:
    return run.benchmark in SYSTEM_BENCHMARKS


def _thousands(value: float | None, decimals: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{decimals}f}"


def run_name(run: Run) -> str:
    return run.label or run.system or f"run {run.id}"


def _memory_per_node_GB(run: Run) -> float | None:
    options = run.options or {}
    if isinstance(options.get("memory_per_node_GB"), (int, float)):
        return options["memory_per_node_GB"]
    memory = (run.provenance or {}).get("memory_bytes")
    return round(memory / 1e9, 1) if isinstance(memory, (int, float)) else None


def hpl_table(runs: Sequence[Run], peak_per_core: float | None = None) -> SystemTable:
    """Seed 001's HPL table: one row per HPL result, ordered by node count then cores.
    With `peak_per_core` (Gflop/s of one core), the efficiency Gflops / (cores x peak)."""
    header = list(HPL_HEADER)
    if peak_per_core:
        header += ["Peak (Gflops)", "Efficiency"]
    rows, values = [], []
    hpl_runs = sorted(
        (run for run in runs if run.benchmark == "hpl"), key=lambda run: (run.nodes or 0, run.ranks or 0, run.id or 0)
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
                _thousands(memory, 0) if memory else "-",
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
    return SystemTable("HPL", header, rows, values)


def _time(value) -> str:
    if not isinstance(value, (int, float)):
        return "-"
    return f"{value:,.0f}" if value >= 100 else f"{value:.2f}"


def _gflops(value) -> str:
    if not isinstance(value, (int, float)):
        return "-"
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def hpcc_table(runs: Sequence[Run]) -> SystemTable | None:
    """hpcc's other tests: a row per run and metric."""
    rows, values = [], []
    for run in runs:
        if run.benchmark not in COMPUTE_BENCHMARKS or run.benchmark == "hpl":
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
    return SystemTable("hpcc", ["run", "test", "metric", "value", "unit", "ranks"], rows, values)


def storage_tables(runs: Sequence[Run]) -> list[SystemTable]:
    """Seed 001's storage tables: for each storage run, the per-process averages and the totals,
    a row per client/process count, a column per workload it measured."""
    tables = []
    for run in runs:
        if run.benchmark != "storage":
            continue
        present = [name for name in STORAGE_WORKLOADS if any(name in point.metrics for point in run.points)]
        for kind, suffix in (("Average throughput per process", PER_PROCESS), ("Total throughput", "")):
            header = ["# clients or processes", *(STORAGE_TITLES[name] for name in present)]
            rows, values = [], []
            for point in sorted(run.points, key=lambda p: p.size or 0):
                cells = [point.metrics.get(name + suffix) for name in present]
                rows.append(
                    [
                        str(point.size),
                        *(
                            _thousands(value, 0 if (value or 0) >= 100 else 1)
                            if isinstance(value, (int, float))
                            else "-"
                            for value in cells
                        ),
                    ]
                )
                values.append([point.size, *cells])
            name = run_name(run) + (f" (run {run.id})" if run.id and run_name(run) != f"run {run.id}" else "")
            tables.append(SystemTable(f"{name}: {kind}", header, rows, values))
    return tables


# -- output formats -------------------------------------------------------------------


def _md_cell(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("|", "\\|")


def to_markdown(tables: Sequence[SystemTable]) -> str:
    parts = []
    for table in tables:
        lines = [
            f"{table.title}",
            "",
            "| " + " | ".join(_md_cell(cell) for cell in table.header) + " |",
            "|:---|" + "---:|" * (len(table.header) - 1),
        ]
        lines += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in table.rows]
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def to_csv(tables: Sequence[SystemTable]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for table in tables:
        writer.writerow([table.title])
        writer.writerow(table.header)
        writer.writerows(table.values)
    return out.getvalue()


def to_json(tables: Sequence[SystemTable]) -> str:
    return (
        json.dumps(
            [{"title": table.title, "header": table.header, "rows": table.values} for table in tables],
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )


def system_tables(runs: Sequence[Run], peak_per_core: float | None = None) -> list[SystemTable]:
    """Every table the runs make: HPL, hpcc's other tests, storage sweeps."""
    tables = []
    if any(run.benchmark == "hpl" for run in runs):
        tables.append(hpl_table(runs, peak_per_core))
    hpcc = hpcc_table(runs)
    if hpcc is not None:
        tables.append(hpcc)
    return tables + storage_tables(runs)


FORMATS = {"markdown": to_markdown, "csv": to_csv, "json": to_json}
