"""Where this machine's cores sit: package (socket), core, NUMA node and the cores sharing its
last-level cache, from /sys/devices/system/cpu (what hwloc reads too). Used by intra-node
sweeps to group core pairs by how far apart they are, and by suite entries with
`core_pairs: one-to-all` to pick core 0's partner on every NUMA node and socket."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from commscope.records.core_paths import ACROSS_SOCKETS, OTHER_NODE, SAME_NODE

SYS_CPU = Path("/sys/devices/system/cpu")


@dataclass(frozen=True)
class Cpu:
    package: str
    core: str
    l3: str  # shared_cpu_list of the last cache level (index3, else the highest index)
    node: str = ""  # NUMA node (the cpuN/nodeM entry); "" unknown


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def cpu_topology(root: Path = SYS_CPU) -> dict[int, Cpu]:
    cpus = {}
    for folder in root.glob("cpu[0-9]*"):
        number = int(folder.name[3:])
        caches = sorted(folder.glob("cache/index[0-9]*"), key=lambda p: int(p.name[5:]))
        l3 = _read((folder / "cache" / "index3" / "shared_cpu_list")) or (
            _read(caches[-1] / "shared_cpu_list") if caches else ""
        )
        nodes = [entry.name[4:] for entry in folder.glob("node[0-9]*")]
        cpus[number] = Cpu(
            _read(folder / "topology" / "physical_package_id"),
            _read(folder / "topology" / "core_id"),
            l3,
            nodes[0] if len(nodes) == 1 else "",
        )
    return cpus


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
    (seed 004's intra-node core pairs, one-to-all). Empty where the topology is unknown."""
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
