"""The fabric of the hosts a sweep measures, from the site's topology (--topology FILE or
`scontrol show topology`): locate and all-pairs say the same about the hosts it does not
name and the hosts it names that are not swept."""

from __future__ import annotations

from collections.abc import Sequence

from commscope import ui
from commscope.analysis.fabric import NO_SWITCH, Fabric
from commscope.records.textsafe import one_line
from commscope.records.topology import Topology


def fabric_of(topology: Topology, hosts: Sequence[str], mode: str) -> Fabric:
    """The fabric of `hosts`, saying which hosts the topology does not name (judged as hosts
    alone) and how many it names that are not swept; `mode` begins each line."""
    coverage = topology.coverage(hosts)
    if not coverage.complete and coverage.unplaced:
        shown = ", ".join(one_line(host) for host in coverage.unplaced[:10])
        more = f" and {len(coverage.unplaced) - 10} more" if len(coverage.unplaced) > 10 else ""
        ui.warn(
            f"{mode}: {len(coverage.unplaced)} host(s) the topology ({topology.source}) does not name: {shown}{more}; "
            "their slow pairs are blamed on hosts alone"
        )
    if coverage.unswept:
        ui.note(
            f"{mode}: the topology names {len(coverage.unswept):,} host(s) not swept; "
            "their switches are judged by the hosts swept"
        )
    ui.note(f"{mode}: {len(topology.by_leaf(hosts))} leaf switch(es) of {topology.source} over the hosts swept")
    fabric = Fabric.of_topology(hosts, topology)
    # said here, once: a sweep of part of a site would otherwise leave them all undecided
    uncrossed = sum(up != NO_SWITCH for up in fabric.parent) - int(fabric.crossable().sum())
    if uncrossed:
        ui.note(
            f"{mode}: {uncrossed:,} switch uplink(s) of {topology.source} no pair of the hosts swept can cross "
            "(no host swept below or beyond them): out of the verdict"
        )
    return fabric
