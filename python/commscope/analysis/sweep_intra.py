"""An intra-node sweep's core pairs grouped by how the two cores relate (same socket, other
NUMA node, ...), and each group's worst pair: what procurement rules quote for "the
combination with the lowest theoretical peak"."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from commscope.analysis.sweep import HIGHER_IS_WORSE

BEST_KEY = {"latency": "min_latency_us", "bw": "max_bandwidth_MBps", "bibw": "max_bandwidth_MBps"}


@dataclass(frozen=True)
class GroupWorst:
    """Of the core pairs with one relation: the worst pair's best value (procurement rules'
    "the combination with the lowest theoretical peak": its maximum bandwidth or minimum
    latency)."""

    relation: str
    metric: str
    pairs: int
    src_cpu: int | None
    dst_cpu: int | None
    value: float


def intra_groups(points: Iterable, relation_of) -> list[GroupWorst]:
    """`relation_of(cpu_a, cpu_b)` names the relation of two cores (records.core_paths)."""
    best: dict[tuple[str, str], list[tuple[float, int | None, int | None]]] = {}
    for point in points:
        pair = point.pair
        if pair is None:
            continue
        value = point.metrics.get(BEST_KEY[pair.metric])
        if not isinstance(value, (int, float)):
            continue
        group = relation_of(pair.src_cpu, pair.dst_cpu)
        best.setdefault((group, pair.metric), []).append((float(value), pair.src_cpu, pair.dst_cpu))
    result = []
    for (group, metric), values in sorted(best.items()):
        worst = max(values) if HIGHER_IS_WORSE[metric] else min(values)
        result.append(GroupWorst(group, metric, len(values), worst[1], worst[2], worst[0]))
    return result
