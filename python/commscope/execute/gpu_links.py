"""The GPUs of this host and the link between every pair, from NVIDIA's own tool:
`nvidia-smi topo -m` (NV# for # bonded NVLinks, PIX/PXB one or more PCIe switches, PHB a
host bridge, NODE host bridges of one NUMA node, SYS across sockets), `nvidia-smi nvlink
-s` (each NVLink's speed) and `--query-gpu` (name and PCI bus id, whose PCIe link sysfs
gives). COMMSCOPE_NVIDIA_SMI=PROGRAM runs another program in its place: a recorded tool
for tests and offline diagnosis. A pair the tool does not show is unknown, never filled in.

nvidia-smi's answers are kept per host and boot (Kept): its calls take seconds on a large
node and every run asks. They are kept in one JSON file per host, in a folder of this user's
alone on the host itself ($XDG_RUNTIME_DIR, emptied at every boot; else the temporary
folder), under a key of the host name, the kernel's boot id (new at every boot), the tool
(path, inode, size, mtime), the driver's version and the GPUs the driver holds; anything else
found there (another key, a damaged file, a folder another user could write) is not used,
and where nothing can be kept every call asks afresh.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import stat
import tempfile
from pathlib import Path

from commscope.errors import CommscopeError
from commscope.execute.process import run_program
from commscope.execute.signals import StopSignals
from commscope.execute.sysfs import numa_node, pcie_link, read
from commscope.records.outputs import write_whole

NVIDIA_SMI_VARIABLE = "COMMSCOPE_NVIDIA_SMI"
#: Seconds one nvidia-smi call may take (a hung driver must not hang every run).
TIMEOUT_S = 20
#: What the inventory asks nvidia-smi, in this order: the matrix first (without it, nothing).
QUESTIONS = (("topo", "-m"), ("nvlink", "-s"), ("--query-gpu=index,name,pci.bus_id", "--format=csv,noheader"))
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
    return environ.get(NVIDIA_SMI_VARIABLE) or shutil.which("nvidia-smi", path=environ.get("PATH"))


def _ask(program: str, args: tuple[str, ...], timeout: float) -> tuple[dict, bool]:
    """The tool's answer, {"text": output} or {"reason": why not}, and whether it lasts: an
    exit status does, a tool stopped or not started may answer next time. It runs as every
    program commscope starts (execute.process): a tool that hangs is stopped after `timeout`
    with every process it started. A stop signal meanwhile stops it too, then reaches the
    command as it would have."""
    asked = f"{program} {' '.join(args)}"
    with StopSignals() as signals:
        try:
            done = run_program([program, *args], signals, timeout=timeout)
        except CommscopeError as exc:
            return {"reason": f"{asked}: {exc}"}, False
    for received in signals.received[:1]:
        signal.raise_signal(signal.Signals[received])
    if done.stopped:
        return {"reason": f"{asked}: {done.stopped}"}, False
    # a driver's messages in another encoding must not cost a run: what is not UTF-8 is replaced
    out = done.stdout.decode(errors="replace")
    if done.returncode != 0:
        said = (out + done.stderr.decode(errors="replace")).strip().splitlines()
        return {"reason": f"{asked}: exit {done.returncode}" + (f": {said[0]}" if said else "")}, True
    return {"text": out}, True


def _none(reason: str | None) -> dict:
    return {"available": False, "reason": reason, "devices": [], "pairs": []}


def _answers(program: str, environ, timeout: float, fresh: bool) -> dict[str, dict]:
    """nvidia-smi's answer to each of QUESTIONS, kept per host and boot (Kept):
    its calls take seconds on a large node, every run asks, and what they say changes only
    with a boot, the driver or the GPUs the driver holds; `fresh` asks anew. A recorded tool
    (COMMSCOPE_NVIDIA_SMI) answers from files that may change: never kept."""
    kept = None if environ.get(NVIDIA_SMI_VARIABLE) else Kept("nvidia-smi", _driver_state(program))
    known = {} if kept is None or fresh else kept.load()
    answers, lasting = {}, {}
    for args in QUESTIONS:
        asked = " ".join(args)
        answer = known.get(asked)
        if not isinstance(answer, dict):
            answer, lasts = _ask(program, args, timeout)
            if lasts:
                lasting[asked] = answer
        answers[asked] = answer
        if args == QUESTIONS[0] and answer.get("text") is None:
            break  # without the matrix, nothing
    if kept is not None and lasting:
        kept.save({**known, **lasting})
    return answers


def gpu_inventory(root: Path, environ=os.environ, timeout: float = TIMEOUT_S, fresh: bool = False) -> dict:
    """The GPUs and their pairs, from nvidia-smi's answers (kept per boot, see _answers)."""
    program = nvidia_smi(environ)
    if program is None:
        return _none("no nvidia-smi on PATH (no NVIDIA driver here)")
    answers = _answers(program, environ, timeout, fresh)
    topo_answer, nvlink_answer, query_answer = (answers.get(" ".join(args), {}) for args in QUESTIONS)
    topo_text = topo_answer.get("text")
    if not isinstance(topo_text, str):
        return _none(topo_answer.get("reason"))
    nvlink_text, query_text = nvlink_answer.get("text"), query_answer.get("text")
    topo = parse_topo(topo_text)
    nvlinks = parse_nvlink_status(nvlink_text if isinstance(nvlink_text, str) else "")
    queried = {device["index"]: device for device in parse_query(query_text if isinstance(query_text, str) else "")}
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
    notes = [answer["reason"] for answer in (nvlink_answer, query_answer) if isinstance(answer.get("reason"), str)]
    return {"available": True, "reason": None, "devices": devices, "pairs": topo["pairs"], "notes": notes}


def _driver_state(program: str) -> dict:
    """What nvidia-smi's answers depend on besides the boot: the tool itself, the driver's
    version and the GPUs the driver holds (one gone or reset, another answer)."""
    gpus = Path("/proc/driver/nvidia/gpus")
    return {
        "program": file_identity(Path(program)),
        "driver": read(Path("/sys/module/nvidia/version")),
        "gpus": _names_in(gpus),
    }


def _names_in(folder: Path) -> list[str] | None:
    try:
        return sorted(entry.name for entry in folder.iterdir())
    except OSError:  # no NVIDIA driver loaded, or not ours to read
        return None


# -- kept per host and boot ----------------------------------------------------------

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
#: Bytes of a kept file read at most (nvidia-smi's answers of a 16-GPU node are some 10 kB).
MAX_BYTES = 1 << 20


def _kept_folder() -> Path | None:
    """This user's folder on this host, made private; None where it cannot be trusted."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime and Path(runtime).is_dir() else Path(tempfile.gettempdir())
    path = base / f"commscope-{os.getuid()}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = path.lstat()
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077
    return path if private else None


def file_identity(path: Path) -> list | None:
    """A program as the key names it: where it is and which file (a new version, another key)."""
    try:
        real = path.resolve(strict=True)
        info = real.stat()
    except (OSError, RuntimeError):
        return None
    return [os.fsencode(real).decode(errors="replace"), info.st_ino, info.st_size, info.st_mtime_ns]


class Kept:
    """One subject's value kept on this host for this boot, under `depends_on`."""

    def __init__(self, subject: str, depends_on: dict) -> None:
        boot = read(BOOT_ID)
        host = socket.gethostname()
        self.key = {"host": host, "boot": boot, **depends_on} if boot else None
        where = _kept_folder() if boot else None
        self.path = where / f"{subject}-{host.replace('/', '_')}.json" if where else None

    def load(self) -> dict:
        """The value kept under this key; {} where there is none."""
        if self.path is None:
            return {}
        try:
            with open(self.path, "rb") as file:
                text = file.read(MAX_BYTES + 1)
            document = json.loads(text) if len(text) <= MAX_BYTES else None
        except (OSError, ValueError):
            return {}
        if not isinstance(document, dict) or document.get("key") != self.key:
            return {}
        value = document.get("value")
        return value if isinstance(value, dict) else {}

    def save(self, value: dict) -> None:
        """Keep `value` (written whole or not at all; a failure only means asking again)."""
        if self.path is None:
            return
        try:
            write_whole(self.path, json.dumps({"key": self.key, "value": value}).encode())
        except OSError:
            pass
