"""The links of this host: network adapters and their line rate, their PCIe link and NUMA
node, CPU sockets, NUMA nodes and caches (from sysfs), and the GPUs with the link between
every pair (execute.gpu_links). Stored in every run's provenance and printed by
`commscope info --links`; analysis.peaks turns it into theoretical peaks.

Everything is read, never guessed: a value the kernel does not give (a virtual NIC's speed
of -1, a PCIe link of a device that has none) is None, and the inventory says what it could
not read. COMMSCOPE_SYSFS=DIR reads a recorded tree instead of /sys (offline diagnosis,
tests of hardware this machine lacks).
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

from commscope.execute.gpu_links import gpu_inventory
from commscope.execute.sysfs import numa_node, pci_address, pcie_link, read, to_int

SYSFS_VARIABLE = "COMMSCOPE_SYSFS"
#: An InfiniBand port's `rate`: "200 Gb/sec (4X HDR)", "100 Gb/sec (4X EDR)", "25 Gb/sec (1X EDR)".
_IB_RATE = re.compile(r"^\s*(?P<gbps>\d+(?:\.\d+)?)\s*Gb/sec(?:\s*\((?P<what>[^)]*)\))?")
#: /sys/class/net/*/type of interfaces that are an InfiniBand port's IP side (IPoIB) or loopback.
_SKIPPED_NET_TYPES = {"32", "772"}


def sysfs_root(environ=os.environ) -> Path:
    return Path(environ.get(SYSFS_VARIABLE) or "/sys")


def infiniband_ports(root: Path) -> list[dict]:
    """Every port of every RDMA device (InfiniBand, RoCE): rate, state, link layer."""
    ports = []
    for device in sorted((root / "class" / "infiniband").glob("*")):
        pci = device / "device"
        netdevs = sorted(path.name for path in (pci / "net").glob("*")) if (pci / "net").is_dir() else []
        for port in sorted((device / "ports").glob("*"), key=lambda path: to_int(path.name) or 0):
            rate = read(port / "rate")
            match = _IB_RATE.match(rate or "")
            layer = read(port / "link_layer")
            ports.append(
                {
                    "name": f"{device.name}:{port.name}",
                    "kind": "RoCE" if layer == "Ethernet" else "InfiniBand" if layer == "InfiniBand" else layer,
                    "rate": rate,
                    "rate_gbps": float(match["gbps"]) if match else None,
                    "state": read(port / "state"),
                    "up": (read(port / "state") or "").endswith("ACTIVE"),
                    "netdev": ", ".join(netdevs) or None,
                    "pci": pci_address(pci),
                    "pcie": pcie_link(pci),
                    "numa_node": numa_node(pci),
                }
            )
    return ports


def _net_kind(interface: Path) -> str:
    driver = (interface / "device" / "driver").resolve().name if (interface / "device" / "driver").exists() else ""
    if interface.name.startswith("hsn") or "cxi" in driver:
        return "Slingshot"
    return "Ethernet"


def net_interfaces(root: Path, rdma_pci: set[str]) -> tuple[list[dict], list[str]]:
    """Network interfaces with a device behind them (virtual ones are only named), less
    those that are the Ethernet side of an RDMA device already listed (RoCE)."""
    adapters, virtual = [], []
    for interface in sorted((root / "class" / "net").glob("*")):
        if read(interface / "type") in _SKIPPED_NET_TYPES:
            continue
        device = interface / "device"
        if not device.exists():
            virtual.append(interface.name)
            continue
        pci = pci_address(device)
        if pci in rdma_pci:
            continue
        speed = to_int(read(interface / "speed"))  # Mb/s; -1 or unreadable when unknown
        state = read(interface / "operstate")
        adapters.append(
            {
                "name": interface.name,
                "kind": _net_kind(interface),
                "rate": f"{speed} Mb/s" if speed and speed > 0 else None,
                "rate_gbps": speed / 1000 if speed and speed > 0 else None,
                "state": state,
                "up": state == "up",
                "netdev": interface.name,
                "pci": pci,
                "pcie": pcie_link(device),
                "numa_node": numa_node(device),
            }
        )
    return adapters, virtual


def cpu_inventory(root: Path) -> dict:
    """Sockets, cores, hardware threads, NUMA nodes and the last-level caches."""
    cpu_root = root / "devices" / "system" / "cpu"
    packages, cores, threads, caches = set(), set(), 0, {}
    for folder in cpu_root.glob("cpu[0-9]*"):
        package = read(folder / "topology" / "physical_package_id")
        if package is None:
            continue
        threads += 1
        packages.add(package)
        cores.add((package, read(folder / "topology" / "core_id")))
        indexes = sorted(folder.glob("cache/index[0-9]*"), key=lambda path: int(path.name[5:]))
        if indexes:
            last = indexes[-1]
            shared = read(last / "shared_cpu_list")
            caches[shared] = {"level": to_int(read(last / "level")), "size": read(last / "size"), "cpus": shared}
    nodes = [
        {"node": int(folder.name[4:]), "cpus": read(folder / "cpulist")}
        for folder in sorted((root / "devices" / "system" / "node").glob("node[0-9]*"), key=lambda p: int(p.name[4:]))
    ]
    return {
        "sockets": len(packages) or None,
        "cores": len(cores) or None,
        "threads": threads or None,
        "numa_nodes": nodes,
        "last_level_caches": sorted(caches.values(), key=lambda cache: cache["cpus"] or ""),
    }


def inventory(root: Path | None = None, environ=os.environ) -> dict:
    """This host's links: adapters, CPU, GPUs; `unknown` lists what could not be read."""
    root = root or sysfs_root(environ)
    ports = infiniband_ports(root)
    interfaces, virtual = net_interfaces(root, {port["pci"] for port in ports if port["pci"]})
    adapters = ports + interfaces
    unknown = [f"{adapter['name']}: line rate" for adapter in adapters if adapter["rate_gbps"] is None]
    unknown += [f"{adapter['name']}: PCIe link" for adapter in adapters if adapter["pcie"] is None]
    gpus = gpu_inventory(root, environ)
    if gpus.get("reason"):
        unknown.append(f"GPUs: {gpus['reason']}")
    return {
        "host": socket.gethostname(),
        # the running kernel's release: a change of it explains a change in a series (history);
        # a recorded tree says nothing of the kernel that ran beside it
        "kernel": os.uname().release if root == Path("/sys") else None,
        "sysfs": str(root),
        "adapters": adapters,
        "virtual_interfaces": virtual,
        "cpu": cpu_inventory(root),
        "gpus": gpus,
        "unknown": unknown,
    }
