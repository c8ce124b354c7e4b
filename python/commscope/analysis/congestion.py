"""The congestion benchmark's results as tables: the impact factors of runs side by side
(`compare`, the report), each run's isolated and congested numbers, and the congestors'
own throughput when they ran alone (`--canary-fraction 0`).

A point of a congestion run is one canary test beside one congestor (its axes `canary`
and `congestor`); its metrics are the core's: ``isolated_avg_us``/``_MBps``,
``isolated_p99_*``, ``congested_avg_*``, ``congested_p99_*``, ``impact_avg`` and
``impact_p99`` (docs/congestion.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from commscope.analysis.titled_tables import TitledTable, run_name
from commscope.records.run import Point, Run

#: The canary tests and congestors in the core's order, with the names GPCNeT prints.
CANARIES = {
    "rr_lat": "RR Two-sided Lat (8 B)",
    "rr_bw": "RR Two-sided BW (131072 B)",
    "rr_bw_sync": "RR Two-sided BW+Sync (131072 B)",
    "allreduce": "Multiple Allreduce (8 B)",
}
CONGESTORS = {
    "alltoall": "Alltoall (4096 B)",
    "incast": "Two-sided Incast (4096 B)",
    "put-incast": "Put Incast (4096 B)",
    "bcast": "Two-sided Bcast (4096 B)",
    "get-bcast": "Get Bcast (4096 B)",
}


@dataclass(frozen=True)
class Phases:
    """One canary test beside one congestor: both phases' average and slow tail, in `unit`."""

    congestor: str
    canary: str | None  # None: the congestors alone
    unit: str  # "us" or "MB/s"
    isolated_avg: float | None
    isolated_p99: float | None
    congested_avg: float | None
    congested_p99: float | None
    impact_avg: float | None
    impact_p99: float | None

    @property
    def key(self) -> tuple[str, str | None]:
        return self.congestor, self.canary


def _number(metrics: dict, name: str) -> float | None:
    value = metrics.get(name)
    return float(value) if isinstance(value, (int, float)) else None


def phases_of(point: Point) -> Phases | None:
    """What a congestion point measured, or None for a point of another benchmark."""
    if point.axes.congestor is None:
        return None
    m = point.metrics
    suffix = "MBps" if any(name.endswith("_MBps") for name in m) else "us"
    return Phases(
        point.axes.congestor,
        point.axes.canary,
        "MB/s" if suffix == "MBps" else "us",
        *(_number(m, f"{side}_{stat}_{suffix}") for side in ("isolated", "congested") for stat in ("avg", "p99")),
        _number(m, "impact_avg"),
        _number(m, "impact_p99"),
    )


def run_phases(run: Run) -> list[Phases]:
    return [phases for phases in map(phases_of, run.points) if phases is not None]


def _order(key: tuple[str, str | None]) -> tuple[int, int]:
    congestor, canary = key
    congestors, canaries = list(CONGESTORS), list(CANARIES)
    return (
        congestors.index(congestor) if congestor in congestors else len(congestors),
        canaries.index(canary) if canary in canaries else -1,
    )


def _cell(value: float | None, suffix: str = "") -> str:
    return "-" if value is None else f"{value:.2f}{suffix}"


def impact_table(runs: Sequence[Run]) -> TitledTable:
    """A row per congestor and canary test, the impact factors (avg, p99) of each run side
    by side: what `compare` shows across runs or systems."""
    by_run = [{phases.key: phases for phases in run_phases(run)} for run in runs]
    keys = sorted({key for found in by_run for key in found if key[1] is not None}, key=_order)
    header = ["Congestor", "Canary test"]
    for run in runs:
        header += [f"{run_name(run)} impact avg", f"{run_name(run)} impact p99"]
    rows, values = [], []
    for key in keys:
        cells = [CONGESTORS.get(key[0], key[0]), CANARIES.get(key[1], key[1])]
        numbers: list = list(cells)
        for found in by_run:
            phases = found.get(key)
            for value in (phases.impact_avg, phases.impact_p99) if phases else (None, None):
                cells.append(_cell(value, "X"))
                numbers.append(value)
        rows.append(cells)
        values.append(numbers)
    caption = (
        "Congestion impact factor: congested / isolated (latency), isolated / congested (bandwidth); 1.00X is none"
    )
    return TitledTable("Congestion impact", header, rows, values, caption)


def phases_table(run: Run) -> TitledTable:
    """One run's isolated and congested numbers per congestor and canary test (the core's
    table), or the congestors' own MB/s per rank when they ran alone."""
    found = sorted(run_phases(run), key=lambda phases: _order(phases.key))
    alone = [phases for phases in found if phases.canary is None]
    if alone:
        header = ["Congestor", "Avg (MB/s per rank)", "Slow 1 % (MB/s)"]
        rows = [
            [CONGESTORS.get(p.congestor, p.congestor), _cell(p.congested_avg), _cell(p.congested_p99)] for p in alone
        ]
        values = [[p.congestor, p.congested_avg, p.congested_p99] for p in alone]
        return TitledTable(f"{run_name(run)}: congestors alone", header, rows, values)
    header = ["Congestor", "Canary test", "Isolated avg", "Isolated p99", "Congested avg", "Congested p99", "Unit"]
    rows, values = [], []
    for p in found:
        numbers = [p.isolated_avg, p.isolated_p99, p.congested_avg, p.congested_p99]
        rows.append(
            [CONGESTORS.get(p.congestor, p.congestor), CANARIES.get(p.canary, p.canary), *map(_cell, numbers), p.unit]
        )
        values.append([p.congestor, p.canary, *numbers, p.unit])
    return TitledTable(f"{run_name(run)}: isolated and congested", header, rows, values)


def headline(run: Run) -> str:
    """The summary table's cell: the worst average impact and where it was."""
    found = [p for p in run_phases(run) if p.impact_avg is not None]
    if not found:
        alone = [p for p in run_phases(run) if p.congested_avg is not None]
        return f"congestors alone: {len(alone)} loads" if alone else "-"
    worst = max(found, key=lambda p: p.impact_avg)
    return f"worst impact {worst.impact_avg:.2f}X ({worst.canary} beside {worst.congestor})"
