"""Where this machine's cores sit: package (socket), core and the cores sharing its last-level
cache, from /sys/devices/system/cpu (what hwloc reads too). Used by intra-node sweeps to
group core pairs by how far apart they are."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SYS_CPU = Path("/sys/devices/system/cpu")


@dataclass(frozen=True)
class Cpu:
    package: str
    core: str
    l3: str  # shared_cpu_list of the last cache level (index3, else the highest index)


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
        cpus[number] = Cpu(
            _read(folder / "topology" / "physical_package_id"), _read(folder / "topology" / "core_id"), l3
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
