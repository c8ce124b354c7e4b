"""fio storage sweeps as a standard-benchmarks page tabulates them: per run, the per-process averages and
the totals, a row per client/process count, a column per workload it measured."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.analysis.titled_tables import TitledTable, run_name, thousands
from commscope.records.metrics import PER_PROCESS, STORAGE_WORKLOADS
from commscope.records.run import Run

STORAGE_TITLES = {
    "seq_write_MBps": "Sequential write (MB/s)",
    "seq_read_MBps": "Sequential read (MB/s)",
    "rand_write_iops": "Random write (IOPS)",
    "rand_read_iops": "Random read (IOPS)",
}


def storage_tables(runs: Sequence[Run]) -> list[TitledTable]:
    """The standard-benchmarks storage tables: for each storage run, the per-process averages and the totals,
    a row per client/process count, a column per workload it measured."""
    tables = []
    for run in runs:
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
                            thousands(value, 0 if (value or 0) >= 100 else 1)
                            if isinstance(value, (int, float))
                            else "-"
                            for value in cells
                        ),
                    ]
                )
                values.append([point.size, *cells])
            name = run_name(run) + (f" (run {run.id})" if run.id and run_name(run) != f"run {run.id}" else "")
            tables.append(TitledTable(f"{name}: {kind}", header, rows, values))
    return tables
