"""The links of this host: network adapters and their line rate, their PCIe link and NUMA
node, CPU sockets, NUMA nodes and caches (from sysfs), and the GPUs with the link between
every pair (execute.gpu_links). Stored in every run's provenance and printed by
`commscope info --links`; analysis.peaks turns it into theoretical peaks.

Everything is read, never guessed: a value the kernel does not give (a virtual NIC's speed
of -1, a PCIe link of a device that has none) is None, and the inventory says what it could
not read. COMMSCOPE_SYSFS=DIR reads a recorded tree instead of /sys (offline diagnosis,
tests of hardware this machine lacks).

A value no port can have (a line rate above MAX_PORT_GBPS) is not taken as a peak: it is
left unknown and the inventory says what the file said.
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

from commscope.execute.cpu_topology import cpu_inventory
from commscope.execute.gpu_links import gpu_inventory
from commscope.execute.sysfs import name, numa_node, pci_address, pcie_link, read, sysfs_root, target_name, to_int
from commscope.records.textsafe import file_name

#: The fastest line rate one port may claim, Gb/s: ten times today's fastest ports (800G
#: Ethernet, XDR InfiniBand); a file saying more is damaged or made up, not a peak.
MAX_PORT_GBPS = 10_000
#: An InfiniBand port's `rate`: "200 Gb/sec (4X HDR)", "100 Gb/sec (4X EDR)", "25 Gb/sec (1X EDR)".
_IB_RATE = re.compile(r"^\s*(?P<gbps>\d+(?:\.\d+)?)\s*Gb/sec(?:\s*\((?P<what>[^)]*)\))?")
#: /sys/class/net/*/type of interfaces that are an InfiniBand port's IP side (IPoIB) or loopback.
_SKIPPED_NET_TYPES = {"32", "772"}


def _plausible(gbps: float | None) -> float | None:
    return gbps if gbps is not None and 0 < gbps <= MAX_PORT_GBPS else None


def infiniband_ports(root: Path) -> list[dict]:
    """Every port of every RDMA device (InfiniBand, RoCE): rate, state, link layer."""
    ports = []
    for device in sorted((root / "class" / "infiniband").glob("*")):
        pci = device / "device"
        netdevs = sorted(name(path) for path in (pci / "net").glob("*")) if (pci / "net").is_dir() else []
        for port in sorted((device / "ports").glob("*"), key=lambda path: to_int(path.name) or 0):
            rate = read(port / "rate")
            match = _IB_RATE.match(rate or "")
            layer = read(port / "link_layer")
            ports.append(
                {
                    "name": f"{name(device)}:{name(port)}",
                    "kind": "RoCE" if layer == "Ethernet" else "InfiniBand" if layer == "InfiniBand" else layer,
                    "rate": rate,
                    "rate_gbps": _plausible(float(match["gbps"])) if match else None,
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
    driver = target_name(interface / "device" / "driver") or ""
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
            virtual.append(name(interface))
            continue
        pci = pci_address(device)
        if pci in rdma_pci:
            continue
        speed = to_int(read(interface / "speed"))  # Mb/s; -1 or unreadable when unknown
        state = read(interface / "operstate")
        adapters.append(
            {
                "name": name(interface),
                "kind": _net_kind(interface),
                "rate": f"{speed} Mb/s" if speed and speed > 0 else None,
                "rate_gbps": speed / 1000 if speed and 0 < speed <= MAX_PORT_GBPS * 1000 else None,
                "state": state,
                "up": state == "up",
                "netdev": name(interface),
                "pci": pci,
                "pcie": pcie_link(device),
                "numa_node": numa_node(device),
            }
        )
    return adapters, virtual


def _rate_unknown(adapter: dict) -> str:
    if adapter["rate"] is None:
        return f"{adapter['name']}: line rate"
    return (
        f"{adapter['name']}: line rate ({adapter['rate'][:40]!r} is more than a port can carry, {MAX_PORT_GBPS:,} Gb/s)"
    )


def inventory(root: Path | None = None, environ=os.environ, fresh: bool = False) -> dict:
    """This host's links: adapters, CPU, GPUs; `unknown` lists what could not be read.

    sysfs is read every time: a few milliseconds, and what changes while a machine runs (a
    port's state and rate, a PCIe link retrained) is there. Only nvidia-smi's answers are kept
    per host and boot (execute.gpu_links); `fresh` asks it again (`info --links` does)."""
    root = root or sysfs_root(environ)
    ports = infiniband_ports(root)
    interfaces, virtual = net_interfaces(root, {port["pci"] for port in ports if port["pci"]})
    adapters = ports + interfaces
    unknown = [_rate_unknown(adapter) for adapter in adapters if adapter["rate_gbps"] is None]
    unknown += [f"{adapter['name']}: PCIe link" for adapter in adapters if adapter["pcie"] is None]
    gpus = gpu_inventory(root, environ, fresh=fresh)
    if gpus.get("reason"):
        unknown.append(f"GPUs: {gpus['reason']}")
    return {
        "host": socket.gethostname(),
        # the running kernel's release: a change of it explains a change in a series (history);
        # a recorded tree says nothing of the kernel that ran beside it
        "kernel": os.uname().release if root == Path("/sys") else None,
        "sysfs": file_name(root),
        "adapters": adapters,
        "virtual_interfaces": virtual,
        "cpu": cpu_inventory(root),
        "gpus": gpus,
        "unknown": unknown,
    }
