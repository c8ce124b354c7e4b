"""What sysfs says of this host's network (a live /sys or a recorded tree): every adapter,
InfiniBand and RoCE ports, Ethernet and HPE Slingshot interfaces, with its line rate, state,
negotiated PCIe link and NUMA node; and the bounded reading of sysfs files the CPU and GPU
parts of the inventory use too. Nothing here guesses: what a file does not say is None, and
a value no port can have (a line rate above MAX_PORT_GBPS) is left unknown with a note, not
taken as a peak.

Every `commscope run` reads these files, and COMMSCOPE_SYSFS may point at any folder, so a
read is bounded and never waits: only a regular file is read (a FIFO, /dev/zero or a socket
linked into the tree is not), opened non-blocking, and no more than a text attribute can
hold (the kernel gives one at most a page)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from commscope.errors import CommscopeError
from commscope.records.textsafe import file_name

SYSFS_VARIABLE = "COMMSCOPE_SYSFS"
#: Bytes of one sysfs file read at most: a text attribute is at most a page (PAGE_SIZE, 4096
#: on the machines commscope runs on); a longer file is not an attribute and is not read.
READ_LIMIT = 4096
#: `current_link_speed`: "16.0 GT/s PCIe", "8.0 GT/s PCIe", "8 GT/s", "2.5 GT/s".
_PCIE_SPEED = re.compile(r"^\s*(?P<gts>\d+(?:\.\d+)?)\s*GT/s")
#: PCIe generation by its transfer rate per lane (GT/s).
PCIE_GENERATIONS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}


def sysfs_root(environ=os.environ) -> Path:
    """/sys, or the recorded tree COMMSCOPE_SYSFS names; a folder that is not there is an
    error, not a machine without adapters."""
    named = environ.get(SYSFS_VARIABLE)
    if not named:
        return Path("/sys")
    if not Path(named).is_dir():
        raise CommscopeError(f"{SYSFS_VARIABLE}={file_name(named)}: no such folder (a recorded sysfs tree, or unset)")
    return Path(named)


def read(path: Path) -> str | None:
    """A sysfs file's text, stripped; None where it is missing, not a regular file, longer than
    an attribute can be, or not UTF-8."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO's open would wait for a writer
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, READ_LIMIT + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > READ_LIMIT:
        return None
    try:
        return data.decode().strip()
    except UnicodeDecodeError:
        return None


def to_int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:  # not a number, or more digits than Python converts
        return None


def name(path: Path) -> str:
    """A file's name as text that can be stored (bytes that are not UTF-8 as \\xNN): device and
    interface names come from the tree's file names, which a recorded tree makes anything."""
    return file_name(path.name)


def target_name(path: Path) -> str | None:
    """The name of what a link points to (a PCI address, a driver); None where it does not
    resolve."""
    try:
        return file_name(path.resolve().name) if path.exists() else None
    except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13)
        return None


def pcie_link(device: Path) -> dict | None:
    """A PCI device's negotiated link: generation, lanes, GT/s (and the maximum it could
    train to); None when the device has no PCIe link files (virtual devices)."""
    speed = read(device / "current_link_speed")
    width = to_int(read(device / "current_link_width"))
    if speed is None and width is None:
        return None
    match = _PCIE_SPEED.match(speed or "")
    gts = float(match["gts"]) if match else None
    return {
        "speed": speed,
        "gts": gts,
        "generation": PCIE_GENERATIONS.get(gts) if gts is not None else None,
        "width": width,
        "max_speed": read(device / "max_link_speed"),
        "max_width": to_int(read(device / "max_link_width")),
    }


def numa_node(device: Path) -> int | None:
    node = to_int(read(device / "numa_node"))
    return node if node is not None and node >= 0 else None


# -- network adapters ---------------------------------------------------------------

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
            layer, state = read(port / "link_layer"), read(port / "state")
            ports.append(
                {
                    "name": f"{name(device)}:{name(port)}",
                    "kind": "RoCE" if layer == "Ethernet" else "InfiniBand" if layer == "InfiniBand" else layer,
                    "rate": rate,
                    "rate_gbps": _plausible(float(match["gbps"])) if match else None,
                    "state": state,
                    "up": (state or "").endswith("ACTIVE"),
                    "netdev": ", ".join(netdevs) or None,
                    "pci": target_name(pci),
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
        pci = target_name(device)
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


def rate_unknown(adapter: dict) -> str:
    """What the inventory notes of an adapter without a line rate."""
    if adapter["rate"] is None:
        return f"{adapter['name']}: line rate"
    return (
        f"{adapter['name']}: line rate ({adapter['rate'][:40]!r} is more than a port can carry, {MAX_PORT_GBPS:,} Gb/s)"
    )


def adapters_of(root: Path) -> tuple[list[dict], list[str]]:
    """Every adapter (RDMA ports first) and the names of the virtual interfaces."""
    ports = infiniband_ports(root)
    interfaces, virtual = net_interfaces(root, {port["pci"] for port in ports if port["pci"]})
    return ports + interfaces, virtual
