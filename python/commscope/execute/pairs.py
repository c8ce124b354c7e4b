"""Which GPUs and which cores of this node a suite entry's launches use (the JUPITER rules' intra-node
rule: one-to-all pairs), from this host's link inventory and CPU topology, each read once
per command."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from commscope import ui
from commscope.errors import CommscopeError
from commscope.execute.cpu_topology import cpu_topology
from commscope.execute.sysfs import sysfs_root
from commscope.records.core_paths import one_to_all_cores
from commscope.records.suite import Entry


@functools.cache
def host_links() -> dict:
    """This host's link inventory (execute.host_inventory), read once per command. One that
    cannot be read (COMMSCOPE_SYSFS naming a missing folder, which may be there on the other
    hosts only) is stored saying why, with a warning: the inventory never costs a
    measurement (`info --links` fails instead)."""
    from commscope.execute.host_inventory import inventory, unreadable

    try:
        return inventory()
    except CommscopeError as exc:
        ui.warn(f"link inventory: {exc}; the links of this host are unknown")
        return unreadable(str(exc))


def gpu_pairs_of(entry: Entry) -> list[tuple[int, int] | None]:
    """The GPU pairs an entry runs on: with `gpu_pairs: one-to-all`, GPU 0 with each other
    GPU of this node (the JUPITER rules' intra-node rule); otherwise one launch on the GPUs the
    launcher's local ranks pick ([None])."""
    if entry.gpu_pairs is None:
        return [None]
    gpus = host_links()["gpus"]
    indexes = sorted(device["index"] for device in gpus.get("devices", []))
    if len(indexes) < 2:
        ui.warn(
            f"{entry.benchmark}: gpu_pairs one-to-all: the GPUs of this node are unknown "
            f"({gpus.get('reason') or f'{len(indexes)} GPU found'}); running it once on the GPUs the ranks pick"
        )
        return [None]
    return [(indexes[0], other) for other in indexes[1:]]


@dataclass(frozen=True)
class CorePair:
    """Two cores of one node the two ranks are bound to, and the path between them
    (records.core_paths)."""

    cpus: tuple[int, int]
    path: str

    @property
    def label(self) -> str:
        return "core{}-core{}".format(*self.cpus)

    def provenance(self) -> dict:
        return {"cpus": list(self.cpus), "path": self.path}


def core_pairs_of(entry: Entry) -> list[CorePair | None]:
    """The core pairs an entry runs on: with `core_pairs: one-to-all`, core 0 with a core on
    every NUMA node and socket of this node; otherwise one launch bound as the launcher
    binds ([None])."""
    if entry.core_pairs is None:
        return [None]

    try:
        root = sysfs_root()
    except CommscopeError as exc:
        where, pairs = str(exc), []
    else:
        where, pairs = f"{root}/devices/system/cpu", one_to_all_cores(cpu_topology(root / "devices" / "system" / "cpu"))
    if not pairs:
        ui.warn(
            f"{entry.benchmark}: core_pairs one-to-all: the sockets and NUMA nodes of this node's cores are "
            f"unknown ({where}); running it once, bound as the launcher binds"
        )
        return [None]
    return [CorePair((0, cpu), path) for cpu, path in pairs]
