"""The CPUs of this host from sysfs (/sys/devices/system/cpu and /node, what hwloc reads
too): the inventory's summary (sockets, cores, threads, NUMA nodes, last-level caches, stored
with every run) and where each core sits (package, core, NUMA node, the cores sharing its
last-level cache, as records.core_paths.Cpu). Intra-node sweeps group core pairs by how far
apart they are, and suite entries with `core_pairs: one-to-all` pick core 0's partner on every
NUMA node and socket (records.core_paths.one_to_all_cores)."""

from __future__ import annotations

from pathlib import Path

from commscope.execute.sysfs import read, to_int
from commscope.records.core_paths import Cpu

SYS_CPU = Path("/sys/devices/system/cpu")


def _numbered(folder: Path, prefix: str) -> list[tuple[int, Path]]:
    """Entries PREFIX<number> of a folder, by number (a recorded tree's stray `cpu0x` is not one)."""
    found = [(to_int(path.name[len(prefix) :]), path) for path in folder.glob(f"{prefix}[0-9]*")]
    return sorted((number, path) for number, path in found if number is not None)


def _last_cache(cpu: Path) -> Path | None:
    caches = _numbered(cpu / "cache", "index")
    return caches[-1][1] if caches else None


def cpu_topology(root: Path = SYS_CPU) -> dict[int, Cpu]:
    cpus = {}
    for number, folder in _numbered(root, "cpu"):
        last = _last_cache(folder)
        l3 = read(folder / "cache" / "index3" / "shared_cpu_list") or (
            (read(last / "shared_cpu_list") or "") if last else ""
        )
        nodes = [str(number) for number, _ in _numbered(folder, "node")]
        cpus[number] = Cpu(
            read(folder / "topology" / "physical_package_id") or "",
            read(folder / "topology" / "core_id") or "",
            l3,
            nodes[0] if len(nodes) == 1 else "",
        )
    return cpus


def cpu_inventory(sysfs: Path) -> dict:
    """Sockets, cores, hardware threads, NUMA nodes and the last-level caches."""
    packages, cores, threads, caches = set(), set(), 0, {}
    for _, folder in _numbered(sysfs / "devices" / "system" / "cpu", "cpu"):
        package = read(folder / "topology" / "physical_package_id")
        if package is None:
            continue
        threads += 1
        packages.add(package)
        cores.add((package, read(folder / "topology" / "core_id")))
        last = _last_cache(folder)
        if last is not None:
            shared = read(last / "shared_cpu_list")
            caches[shared] = {"level": to_int(read(last / "level")), "size": read(last / "size"), "cpus": shared}
    nodes = [
        {"node": number, "cpus": read(folder / "cpulist")}
        for number, folder in _numbered(sysfs / "devices" / "system" / "node", "node")
    ]
    return {
        "sockets": len(packages) or None,
        "cores": len(cores) or None,
        "threads": threads or None,
        "numa_nodes": nodes,
        "last_level_caches": sorted(caches.values(), key=lambda cache: cache["cpus"] or ""),
    }
