"""The bad nodes of a verdict as a site acts on them: a host name and its evidence in a few
words, short enough for Slurm's Reason (`sinfo -R`), e.g. "bw 48% of median with 4 healthy
partners". Switches are never among them: a host under a slow uplink is not at fault."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from commscope.analysis.locate_verdict import LocateVerdict
from commscope.analysis.start_faults import StartFault
from commscope.analysis.sweep import Flag

#: The reason of a bad node its measurements named.
SLOW = "slow"


@dataclass(frozen=True)
class NodeFinding:
    host: str
    evidence: str  # what, how much: "bw 48% of median with 4 healthy partners"
    reason: str = SLOW  # why it is bad: slow, or it fails or hangs at MPI start (start_faults.py)
    # measured again alone and slow there (or set aside at start): what --drain may act on
    confirmed: bool = True


def set_aside_nodes(faults: Sequence[StartFault]) -> list[NodeFinding]:
    """The hosts a sweep set aside at MPI start, their evidence the launcher's words."""
    return [NodeFinding(fault.host, fault.evidence, fault.reason) for fault in faults]


def how_far(metric: str, value: float, reference: float) -> str:
    """A value against its reference as a share: bandwidth a percentage of the median,
    latency a multiple of it (a slow host's latency is the larger); a share under 10 % with a
    decimal, so that a dead-slow link does not read "0%"."""
    if not reference or reference != reference:
        return f"{metric} {value:.4g}"
    if metric == "latency":
        return f"latency {value / reference:.1f}x median"
    share = 100 * value / reference
    return f"{metric} {share:.1f}% of median" if share < 10 else f"{metric} {share:.0f}% of median"


def located_nodes(verdict: LocateVerdict, labels: Sequence[str]) -> list[NodeFinding]:
    """The bad nodes a locate sweep named (never its bad switches), what `--drain` may act on:
    those set aside at MPI start (two launches failed there: nothing left to confirm), then
    the slow ones confirmed (measured again alone, slow there)."""
    aside = [NodeFinding(labels[node.host], node.evidence, node.reason) for node in verdict.set_aside]
    return aside + [
        NodeFinding(
            labels[node.host],
            f"{how_far(verdict.metric, node.value, node.reference)} with {node.slow_with_healthy} healthy partners",
        )
        for node in verdict.bad_nodes
        if node.confirmed_by is not None and node.confirmed_by.reproduced
    ]


def flagged_nodes(flags: Sequence[Flag], labels: Sequence[str]) -> list[NodeFinding]:
    """The bad nodes a link sweep flagged, each once (its first metric's evidence); confirmed
    where its pairs were measured again alone (the retest), not with --no-retest."""
    found: dict[str, NodeFinding] = {}
    for flag in flags:
        if flag.kind != "node":
            continue
        host = labels[flag.where[0]]
        value = flag.retest if flag.retest is not None else flag.value
        found.setdefault(
            host,
            NodeFinding(
                host,
                f"{how_far(flag.metric, value, flag.population_median)}, slow with {flag.partners_bad} of "
                f"{flag.partners} partners",
                confirmed=flag.retest is not None,
            ),
        )
    return list(found.values())
