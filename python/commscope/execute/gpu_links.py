"""The GPUs of this host and the link between every pair, from NVIDIA's own tool:
`nvidia-smi topo -m` (NV# for # bonded NVLinks, PIX/PXB one or more PCIe switches, PHB a
host bridge, NODE host bridges of one NUMA node, SYS across sockets), `nvidia-smi nvlink
-s` (each NVLink's speed) and `--query-gpu` (name and PCI bus id, whose PCIe link sysfs
gives). COMMSCOPE_NVIDIA_SMI=PROGRAM runs another program in its place: a recorded tool
for tests and offline diagnosis. A pair the tool does not show is unknown, never filled in.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from commscope.execute.sysfs import numa_node, pcie_link

NVIDIA_SMI_VARIABLE = "COMMSCOPE_NVIDIA_SMI"
TIMEOUT_S = 20
_NVLINK = re.compile(r"^NV(?P<count>\d+)$")
_GPU = re.compile(r"^GPU(?P<index>\d+)$")
_NIC_LEGEND = re.compile(r"^\s*(?P<nic>NIC\d+):\s*(?P<name>\S+)\s*$")
_NVLINK_GPU = re.compile(r"^GPU (?P<index>\d+): (?P<name>.*?)(?: \(UUID: [^)]*\))?\s*$")
_NVLINK_LINK = re.compile(r"^\s*Link (?P<link>\d+): (?:(?P<gbs>\d+(?:\.\d+)?) GB/s|(?P<other>.*))\s*$")


def path_of(cell: str | None) -> dict | None:
    """One cell of the matrix: {"path": "NVLink", "nvlinks": 12} or {"path": "PXB"}."""
    if not cell or cell == "X":
        return None
    match = _NVLINK.match(cell)
    if match:
        return {"path": "NVLink", "nvlinks": int(match["count"])}
    return {"path": cell}


def parse_topo(text: str) -> dict:
    """`nvidia-smi topo -m`: the GPUs (with CPU and NUMA affinity, the NICs each reaches by
    which path) and the path of every pair of GPUs the matrix shows."""
    lines = [line for line in text.splitlines() if line.strip()]
    # The header starts with GPU0 as row GPU0 does, whose next cell is always X (itself).
    header_at = next(
        (i for i, line in enumerate(lines) if line.split()[:1] == ["GPU0"] and line.split()[1:2] != ["X"]), None
    )
    if header_at is None:
        return {"gpus": [], "pairs": []}
    header = lines[header_at].split()
    columns = header[: header.index("CPU")] if "CPU" in header else header
    legend = {m["nic"]: m["name"] for m in map(_NIC_LEGEND.match, lines) if m}
    rows: dict[int, dict[str, str]] = {}
    gpus = []
    for line in lines[header_at + 1 :]:
        tokens = line.split()
        match = _GPU.match(tokens[0])
        if not match:
            continue
        cells = dict(zip(columns, tokens[1 : 1 + len(columns)]))
        rest = tokens[1 + len(columns) :]
        index = int(match["index"])
        rows[index] = cells
        gpus.append(
            {
                "index": index,
                "cpu_affinity": rest[0] if rest else None,
                "numa_affinity": rest[1] if len(rest) > 1 and rest[1] != "N/A" else None,
                "nics": {
                    legend.get(name, name): cells[name] for name in columns if not _GPU.match(name) and name in cells
                },
            }
        )
    indexes = sorted({int(m["index"]) for m in map(_GPU.match, columns) if m} | set(rows))
    pairs = []
    for position, a in enumerate(indexes):
        for b in indexes[position + 1 :]:
            cell = rows.get(a, {}).get(f"GPU{b}") or rows.get(b, {}).get(f"GPU{a}")
            pairs.append({"a": a, "b": b, "cell": cell, **(path_of(cell) or {"path": None})})
    return {"gpus": gpus, "pairs": pairs}


def parse_nvlink_status(text: str) -> dict[int, dict]:
    """`nvidia-smi nvlink -s`: per GPU its name and each link's speed in GB/s (None: inactive)."""
    found: dict[int, dict] = {}
    current = None
    for line in text.splitlines():
        gpu = _NVLINK_GPU.match(line)
        if gpu:
            current = found.setdefault(int(gpu["index"]), {"name": gpu["name"].strip(), "links": {}})
            continue
        link = _NVLINK_LINK.match(line)
        if link and current is not None:
            current["links"][int(link["link"])] = float(link["gbs"]) if link["gbs"] else None
    return found


def parse_query(text: str) -> list[dict]:
    """`--query-gpu=index,name,pci.bus_id --format=csv,noheader` lines."""
    devices = []
    for line in text.splitlines():
        parts = [part.strip() for part in line.split(",")]
        if len(parts) >= 3 and parts[0].isdigit():
            devices.append({"index": int(parts[0]), "name": parts[1], "bus_id": parts[2]})
    return devices


def sysfs_pci_name(bus_id: str) -> str:
    """nvidia-smi's "00000000:07:00.0" as sysfs names it: "0000:07:00.0"."""
    domain, _, rest = bus_id.partition(":")
    return f"{domain[-4:]}:{rest}".lower()


def nvidia_smi(environ=os.environ) -> str | None:
    return environ.get(NVIDIA_SMI_VARIABLE) or shutil.which("nvidia-smi")


def _ask(program: str, *args: str) -> tuple[str | None, str | None]:
    """The tool's output, or None and why not."""
    try:
        done = subprocess.run([program, *args], capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"{program} {' '.join(args)}: {exc}"
    if done.returncode != 0:
        said = (done.stdout + done.stderr).strip().splitlines()
        return None, f"{program} {' '.join(args)}: exit {done.returncode}" + (f": {said[0]}" if said else "")
    return done.stdout, None


def _none(reason: str | None) -> dict:
    return {"available": False, "reason": reason, "devices": [], "pairs": []}


def gpu_inventory(root: Path, environ=os.environ) -> dict:
    program = nvidia_smi(environ)
    if program is None:
        return {
            "available": False,
            "reason": "no nvidia-smi on PATH (no NVIDIA driver here)",
            "devices": [],
            "pairs": [],
        }
    topo_text, reason = _ask(program, "topo", "-m")
    if topo_text is None:
        return _none(reason)
    topo = parse_topo(topo_text)
    nvlink_text, nvlink_reason = _ask(program, "nvlink", "-s")
    query_text, query_reason = _ask(program, "--query-gpu=index,name,pci.bus_id", "--format=csv,noheader")
    nvlinks = parse_nvlink_status(nvlink_text or "")
    queried = {device["index"]: device for device in parse_query(query_text or "")}
    devices = []
    for gpu in topo["gpus"]:
        index = gpu["index"]
        query = queried.get(index, {})
        pci = root / "bus" / "pci" / "devices" / sysfs_pci_name(query["bus_id"]) if query.get("bus_id") else None
        links = nvlinks.get(index, {}).get("links", {})
        devices.append(
            {
                **gpu,
                "name": query.get("name") or nvlinks.get(index, {}).get("name"),
                "bus_id": query.get("bus_id"),
                "pcie": pcie_link(pci) if pci is not None else None,
                "numa_node": numa_node(pci) if pci is not None else None,
                "nvlink_speeds_gbs": sorted({speed for speed in links.values() if speed is not None}),
                "nvlinks_inactive": sum(1 for speed in links.values() if speed is None),
            }
        )
    notes = [reason for reason in (nvlink_reason, query_reason) if reason]
    return {"available": True, "reason": None, "devices": devices, "pairs": topo["pairs"], "notes": notes}
