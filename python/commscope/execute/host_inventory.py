"""The link inventory of a host, and of every host a command runs on.

A host's: its network adapters (execute.sysfs), CPUs (execute.cpu_topology) and GPUs with
the link between every pair (execute.gpu_links). Stored in every run's provenance and
printed by `commscope info --links`; analysis.peaks turns it into theoretical peaks.
Everything is read, never guessed: a value the kernel does not give (a virtual NIC's speed
of -1, a PCIe link of a device that has none) is None, and the inventory says what it could
not read. COMMSCOPE_SYSFS=DIR reads a recorded tree instead of /sys (offline diagnosis,
tests of hardware this machine lacks).

Every host's: one extra launch through the run's own launcher, one process per host, before
the benchmarks, so an inter-node peak (the slower node's fastest adapter) can be worked out.
It costs a launch; a host's state cannot be known without asking the host, so it is not
kept on the launching host (docs/peaks.md, "What the inventory costs").

Each process runs this module (`python -m commscope.execute.host_inventory`) and prints its
inventory as frames: lines of `#commscope-links HOST PID INDEX/COUNT CHUNK`, the chunks
being the base64 of the zlib-compressed JSON. Launchers forward every rank's output through
one stream and may cut a long line where another rank's output falls in; short lines, each
checked against the frame pattern, and zlib's checksum over the whole mean a host whose
frames came back damaged is left out (its peak unknown, with the reason), never read wrong.

The launch never fails a command: whatever hosts answered are kept, and the reason the rest
did not is stored beside them (`provenance.links.not_inventoried`).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import socket
import sys
import zlib
from collections.abc import Iterable
from pathlib import Path

from commscope.errors import CommscopeError
from commscope.execute.core import core_mpi_flavour, find_core
from commscope.execute.cpu_topology import cpu_inventory
from commscope.execute.gpu_links import gpu_inventory
from commscope.execute.launchers import Launcher, LaunchSpec, hostfile_nodes, resolve_launcher, split_host
from commscope.execute.process import run_program
from commscope.execute.signals import StopSignals
from commscope.execute.sysfs import adapters_of, rate_unknown, sysfs_root
from commscope.records.textsafe import file_name

FRAME = "#commscope-links"
#: Characters of base64 per line: well under a pipe's atomic write (PIPE_BUF, 4096 bytes).
CHUNK = 512
#: Seconds the inventory launch may take (nvidia-smi alone can take a few on a large node).
TIMEOUT_S = 60.0
_FRAME_LINE = re.compile(
    rf"^{re.escape(FRAME)} (?P<host>\S+) (?P<pid>\d+) (?P<index>\d+)/(?P<count>\d+) (?P<chunk>[A-Za-z0-9+/=]+)$"
)


def inventory(root: Path | None = None, environ=os.environ, fresh: bool = False) -> dict:
    """This host's links: adapters, CPU, GPUs; `unknown` lists what could not be read.

    sysfs is read every time: a few milliseconds, and what changes while a machine runs (a
    port's state and rate, a PCIe link retrained) is there. Only nvidia-smi's answers are kept
    per host and boot (execute.gpu_links); `fresh` asks it again (`info --links` does)."""
    root = root or sysfs_root(environ)
    adapters, virtual = adapters_of(root)
    unknown = [rate_unknown(adapter) for adapter in adapters if adapter["rate_gbps"] is None]
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


def unreadable(reason: str) -> dict:
    """The inventory of a host whose links could not be read at all, saying why."""
    return {
        "host": socket.gethostname(),
        "kernel": None,
        "sysfs": None,
        "adapters": [],
        "virtual_interfaces": [],
        "cpu": {},
        "gpus": {"available": False, "reason": reason, "devices": [], "pairs": []},
        "unknown": [reason],
    }


def frames(found: dict, pid: int) -> list[str]:
    """One host's inventory as the lines its process prints."""
    payload = base64.b64encode(zlib.compress(json.dumps(found).encode())).decode()
    chunks = [payload[start : start + CHUNK] for start in range(0, len(payload), CHUNK)]
    host = re.sub(r"\s", "_", found.get("host") or socket.gethostname()) or "?"
    return [f"{FRAME} {host} {pid} {index}/{len(chunks)} {chunk}" for index, chunk in enumerate(chunks, 1)]


def read_frames(lines: Iterable[str]) -> tuple[dict[str, dict], list[str]]:
    """The inventories whole in the output, by host; and what could not be read, in words."""
    parts: dict[tuple[str, str], dict[int, str]] = {}
    counts: dict[tuple[str, str], int] = {}
    for line in lines:
        match = _FRAME_LINE.match(line.strip())
        if match:
            key = (match["host"], match["pid"])
            parts.setdefault(key, {})[int(match["index"])] = match["chunk"]
            counts[key] = int(match["count"])
    found: dict[str, dict] = {}
    problems = []
    for key, chunks in parts.items():
        host = key[0]
        if sorted(chunks) != list(range(1, counts[key] + 1)):
            problems.append(f"{host}: {counts[key] - len(chunks)} of {counts[key]} lines of its inventory lost")
            continue
        try:
            inventory = json.loads(zlib.decompress(base64.b64decode("".join(chunks[i] for i in sorted(chunks)))))
        except (ValueError, zlib.error) as exc:
            problems.append(f"{host}: its inventory came back damaged ({exc})")
            continue
        found.setdefault(inventory.get("host") or host, inventory)  # two processes on one host: one is enough
    return found, problems


@dataclasses.dataclass
class HostsLinks:
    """What `commscope run` stores as `provenance.links`: inventories by host, and why some
    host may be missing (None: every host that answered is there)."""

    hosts: dict[str, dict]
    not_inventoried: str | None = None
    argv: list[str] | None = None  # the inventory launch, where there was one
    answered: tuple[str, ...] = ()  # the hosts whose own process answered the launch

    def provenance(self) -> dict:
        document: dict = {"hosts": self.hosts}
        if self.not_inventoried:
            document["not_inventoried"] = self.not_inventoried
        return document


def one_per_host(spec: LaunchSpec) -> LaunchSpec | None:
    """The launch of one process on every host of a command's spec; None where the spec
    names no other host than this one (no hosts, no hostfile, no allocation of several)."""
    nodes = spec.known_nodes
    if not (spec.hosts or spec.hostfile or (nodes or 0) > 1) or not nodes:
        return None
    hosts = tuple(dict.fromkeys(split_host(entry)[0] for entry in spec.hosts))  # one slot each
    return dataclasses.replace(spec, np=nodes, hosts=hosts, placement="inter-node", bind="none")


def inventory_command(launcher: Launcher, spec: LaunchSpec) -> list[str] | None:
    """The launcher's argv of the inventory launch; None where there is nothing to launch."""
    every = one_per_host(spec)
    if every is None:
        return None
    return launcher.command(every, [sys.executable, "-m", __name__]).argv


def every_host(
    local: dict, launcher: Launcher, spec: LaunchSpec, signals: StopSignals, timeout: float = TIMEOUT_S
) -> HostsLinks:
    """This host's inventory and, where the command runs on other hosts, theirs."""
    every = one_per_host(spec)
    if every is None:
        return HostsLinks({local["host"]: local})
    command = launcher.command(every, [sys.executable, "-m", __name__])
    try:
        done = run_program(command.argv, signals, env=command.env, timeout=timeout)
    except CommscopeError as exc:  # never fail the command over its inventory
        return HostsLinks({local["host"]: local}, f"the inventory launch did not start: {exc}", command.argv)
    found, problems = read_frames(done.stdout.decode(errors="replace").splitlines())
    if done.stopped:
        problems.append(f"the inventory launch was stopped: {done.stopped}")
    elif done.returncode != 0:
        said = _first_message(done.stderr.decode(errors="replace"))
        problems.append(f"the inventory launch exited with {done.returncode}" + (f": {said}" if said else ""))
    if len(found) < every.np and not problems:
        problems.append(f"{len(found)} of {every.np} hosts answered the inventory launch")
    return HostsLinks({local["host"]: local, **found}, "; ".join(problems) or None, command.argv, tuple(found))


def _first_message(stderr: str) -> str | None:
    """The launcher's first line of words: the cause (`ssh: Could not resolve hostname n9`)
    comes before the banners of dashes and advice that follow it."""
    return next((line.strip() for line in stderr.splitlines() if re.search(r"[A-Za-z]", line)), None)


def of_hosts(hosts: tuple[str, ...], hostfile: str | None, launcher_choice: str) -> HostsLinks:
    """`commscope info --links --hosts/--hostfile`: every named host's inventory through the
    launcher `commscope run` would use: the hosts whose own process answered. A named host
    that does not answer is an error that names it: printing the other hosts' links alone
    would read as all of them."""

    try:
        flavour = core_mpi_flavour(find_core())
    except CommscopeError:  # no core: the launcher is told by its own name and --version
        flavour = None
    launcher = resolve_launcher(launcher_choice, flavour)
    nodes = len(hosts) if hosts else hostfile_nodes(hostfile or "")
    spec = LaunchSpec(np=nodes, hosts=hosts, hostfile=hostfile, known_nodes=nodes, core_flavour=flavour)
    spec = dataclasses.replace(spec, as_root=os.geteuid() == 0, local_cores=len(os.sched_getaffinity(0)))
    local = inventory(fresh=True)
    with StopSignals() as signals:
        found = every_host(local, launcher, spec, signals)
    for host in set(found.hosts) - set(found.answered):
        del found.hosts[host]  # the launching host, read in this process, where it is not one named
    if len(found.answered) >= nodes:
        return found
    named = list(dict.fromkeys(split_host(entry)[0] for entry in hosts))
    missing = [host for host in named if not any(_same_host(host, other) for other in found.answered)]
    if hosts and len(missing) == nodes - len(found.answered):
        which = ", ".join(missing)
    else:  # a hostfile's names, or names that are not what the hosts call themselves (addresses)
        which = f"{nodes - len(found.answered)} of the {nodes} hosts of {', '.join(named) or hostfile}"
    raise CommscopeError(
        f"no link inventory of {which}" + (f": {found.not_inventoried}" if found.not_inventoried else "")
    )


def _same_host(named: str, answered: str) -> bool:
    """A name given and the name a host gave itself: the same, or one's short name the other
    (n1 and n1.cluster)."""
    return named == answered or named.split(".")[0] == answered.split(".")[0]


def main() -> int:
    try:
        found = inventory()
    except CommscopeError as exc:
        print(f"commscope: {socket.gethostname()}: {exc}", file=sys.stderr)
        return 1
    for line in frames(found, os.getpid()):
        os.write(sys.stdout.fileno(), (line + "\n").encode())  # one write per line: whole in the pipe
    return 0


if __name__ == "__main__":
    sys.exit(main())
