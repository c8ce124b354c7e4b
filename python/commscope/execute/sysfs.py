"""Reading sysfs files (a live /sys or a recorded tree): text, numbers, a PCI device's
negotiated PCIe link and NUMA node. Nothing here guesses: what a file does not say is None."""

from __future__ import annotations

import re
from pathlib import Path

#: `current_link_speed`: "16.0 GT/s PCIe", "8.0 GT/s PCIe", "8 GT/s", "2.5 GT/s".
_PCIE_SPEED = re.compile(r"^\s*(?P<gts>\d+(?:\.\d+)?)\s*GT/s")
#: PCIe generation by its transfer rate per lane (GT/s).
PCIE_GENERATIONS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}


def read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None


def to_int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
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


def pci_address(device: Path) -> str | None:
    try:
        return device.resolve().name if device.exists() else None
    except OSError:
        return None
