"""The paths a copy between two cores of one node takes through shared memory, nearest first:
the names `commscope run` stores with a core pair and the order the JUPITER rules rank them by
(analysis.peaks). A core pair has no link peak (the copy is memory-bound), so the farthest path
stands for the lowest theoretical peak. Where a core sits (`Cpu`, read from sysfs by
execute.cpu_topology and stored with an intra-node sweep) and how two cores relate are computed
here, from the record alone."""

from __future__ import annotations

from dataclasses import dataclass

SAME_NODE = "same NUMA node"
OTHER_NODE = "other NUMA node on the socket"
ACROSS_SOCKETS = "across sockets"
#: Nearest (highest bandwidth expected) first.
CORE_PATHS = (SAME_NODE, OTHER_NODE, ACROSS_SOCKETS)


@dataclass(frozen=True)
class Cpu:
    package: str
    core: str
    l3: str  # shared_cpu_list of the last cache level (index3, else the highest index)
    node: str = ""  # NUMA node (the cpuN/nodeM entry); "" unknown


def relation(a: Cpu | None, b: Cpu | None) -> str:
    """How two cores relate, nearest first."""
    if a is None or b is None:
        return "unknown"
    if a.package == b.package and a.core == b.core:
        return "same core (SMT)"
    if a.l3 and a.l3 == b.l3:
        return "same L3 (core complex)"
    if a.package == b.package:
        return "same socket"
    return "across sockets"


def memory_path(a: Cpu, b: Cpu) -> str | None:
    """The path a copy between two cores takes (records.core_paths); None where the package or
    the NUMA node of either is unknown."""
    if not a.package or not b.package:
        return None
    if a.package != b.package:
        return ACROSS_SOCKETS
    if not a.node or not b.node:
        return None
    return SAME_NODE if a.node == b.node else OTHER_NODE


def one_to_all_cores(topology: dict[int, Cpu], root: int = 0) -> list[tuple[int, str]]:
    """Core `root` and a partner on every (socket, NUMA node): the lowest-numbered CPU there
    that is not `root` nor its hardware-thread sibling, each with its path from `root`
    (the JUPITER rules' intra-node core pairs, one-to-all). Empty where the topology is unknown."""
    first = topology.get(root)
    if first is None:
        return []
    partners: dict[tuple[str, str], int] = {}
    for cpu in sorted(topology):
        where = topology[cpu]
        if cpu == root or (where.package, where.core) == (first.package, first.core):
            continue
        partners.setdefault((where.package, where.node), cpu)
    pairs = [(cpu, memory_path(first, topology[cpu])) for cpu in sorted(partners.values())]
    return [(cpu, path) for cpu, path in pairs if path is not None]
