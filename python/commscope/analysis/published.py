"""A run's headline numbers placed among published systems' figures (records.references):
pure, so the terminal, the exports and the report show the same rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from commscope.records.references import Figure, Reference
from commscope.records.run import Run

METRIC_OF_UNIT = {"us": "latency_us", "MB/s": "bandwidth_MBps"}


@dataclass(frozen=True)
class Placed:
    """One figure of one reference beside the run's value at the same size."""

    run: Run
    reference: Reference
    figure: Figure
    size: int | None
    yours: float

    @property
    def ratio(self) -> float:
        """Yours over theirs: above 1 is better for bandwidth, worse for latency."""
        return self.yours / self.figure.value if self.figure.value else float("nan")

    @property
    def better(self) -> bool:
        return self.yours >= self.figure.value if self.figure.unit == "MB/s" else self.yours <= self.figure.value


def placement_of(run: Run) -> str | None:
    hosts = {host.get("name") for host in run.hosts or []}
    if len(hosts) > 1 or (run.nodes or 0) > 1:
        return "inter-node"
    if hosts or run.nodes == 1:
        return "intra-node"
    return run.placement if run.placement in ("intra-node", "inter-node") else None


def memory_of(run: Run) -> str:
    memory = (run.options or {}).get("memory") or {}
    return "device" if "device" in memory.values() else "host"


def _value(run: Run, figure: Figure) -> tuple[int | None, float] | None:
    metric = METRIC_OF_UNIT[figure.unit]
    values = {p.size: p.metrics[metric] for p in run.points if isinstance(p.metrics.get(metric), (int, float))}
    if figure.size is None and values:  # the source gives its best figure: take the run's best
        size = (max if figure.unit == "MB/s" else min)(values, key=values.get)
        return size, values[size]
    if figure.size in values:
        return figure.size, values[figure.size]
    return None


def place(runs: Sequence[Run], references: Iterable[Reference]) -> list[Placed]:
    """Every reference figure of a run's benchmark, placement and memory kind that the run
    measured at the same size (or, where the source names no size, the run's best)."""
    placed = []
    for run in runs:
        where, memory = placement_of(run), memory_of(run)
        for reference in references:
            for figure in reference.figures:
                if figure.benchmark != run.benchmark or figure.memory != memory:
                    continue
                if where is not None and figure.placement != where:
                    continue
                found = _value(run, figure)
                if found:
                    placed.append(Placed(run, reference, figure, found[0], found[1]))
    return placed
