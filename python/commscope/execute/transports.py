"""Which path ranks on one node take to each other: shared memory, or the network stack.

`--transport net` makes ranks that share a node talk through TCP as if they were on
different nodes (the student report's "one node, forced network"); `shm` keeps the library on
its shared-memory path where it would otherwise pick something else; `auto` leaves
the library alone. Each library is told through its own environment variables, all
of them in TRANSPORT_ENV below, so a new library or device is one more row.

MPICH is told per device because its devices listen to different variables: Debian's
MPICH is ch4:ucx (UCX picks the wire: UCX_TLS), MPICH's PyPI wheel is ch4:ofi
(libfabric picks it: FI_PROVIDER), and MPICH's own shared-memory module is skipped
for every ch4 device with MPIR_CVAR_NOLOCAL (ch3's name is MPIR_CVAR_CH3_NOLOCAL).
The device is told by the library the core links against (libucp, libfabric); when
it cannot be told, the variables of every device are set, which is harmless: each
library ignores the others' variables.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from commscope.errors import UsageError
from commscope.execute.core import MPICH, OPENMPI

TRANSPORTS = ("auto", "shm", "net")

UCX = "ucx"
OFI = "ofi"
CH3 = "ch3"

#: (library, device) -> transport -> environment. device None: the library as a whole.
TRANSPORT_ENV: dict[tuple[str, str | None], dict[str, dict[str, str]]] = {
    (OPENMPI, None): {
        # ob1 with the TCP BTL between every pair of ranks, the one on the same node
        # included; vader is Open MPI 4's shared-memory BTL (5 calls it sm and keeps
        # the old name as an alias).
        "net": {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "tcp,self"},
        "shm": {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "vader,self"},
    },
    (MPICH, UCX): {
        "net": {"MPIR_CVAR_NOLOCAL": "1", "UCX_TLS": "tcp,self"},
        "shm": {"UCX_TLS": "sm,self"},
    },
    (MPICH, OFI): {
        "net": {"MPIR_CVAR_NOLOCAL": "1", "FI_PROVIDER": "tcp"},
        "shm": {"FI_PROVIDER": "shm"},
    },
    (MPICH, CH3): {
        "net": {"MPIR_CVAR_CH3_NOLOCAL": "1"},
        "shm": {},
    },
}

# Shared libraries that tell an MPICH build's device (ch4:ucx links libucp, ch4:ofi libfabric).
_DEVICE_LIBRARIES = ((re.compile(r"\blibucp\.so"), UCX), (re.compile(r"\blibfabric\.so"), OFI))
# What transport settings are read back from: the variables the core saw.
_TRANSPORT_PREFIXES = (
    "OMPI_MCA_pml",
    "OMPI_MCA_btl",
    "UCX_TLS",
    "UCX_NET_DEVICES",
    "FI_PROVIDER",
    "MPIR_CVAR_NOLOCAL",
    "MPIR_CVAR_CH3_NOLOCAL",
)


@dataclass(frozen=True)
class TransportChoice:
    """The transport asked for and the variables that ask the library for it."""

    requested: str
    library: str | None
    device: str | None
    env: dict[str, str]

    def provenance(self) -> dict:
        return {"requested": self.requested, "library": self.library, "device": self.device, "settings": dict(self.env)}


def mpich_device(ldd_output: str) -> str | None:
    for pattern, device in _DEVICE_LIBRARIES:
        if pattern.search(ldd_output):
            return device
    return None


def core_device(core: str, flavour: str | None) -> str | None:
    """The MPICH device the core's library uses (ucx, ofi), from what it links; None if unknown."""
    if flavour != MPICH:
        return None
    try:
        done = subprocess.run(["ldd", str(core)], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return mpich_device(done.stdout)


def transport_env(transport: str, flavour: str | None, device: str | None = None) -> dict[str, str]:
    """The variables that ask `flavour` (openmpi, mpich) for `transport`; {} for auto.
    Raises UsageError for a library commscope does not know how to steer."""
    if transport not in TRANSPORTS:
        raise UsageError(f"--transport {transport}: choose one of {', '.join(TRANSPORTS)}")
    if transport == "auto":
        return {}
    rows = [
        settings
        for (library, dev), settings in TRANSPORT_ENV.items()
        if library == flavour and (dev is None or device is None or dev == device)
    ]
    if not rows:
        raise UsageError(
            f"--transport {transport}: commscope does not know how to steer the MPI library "
            f"of this commscope-bench ({flavour or 'unknown'}); use --transport auto and set "
            "the library's own variables"
        )
    env: dict[str, str] = {}
    for settings in rows:
        env.update(settings[transport])
    return env


def choose(transport: str, flavour: str | None, device: str | None) -> TransportChoice:
    """The transport choice for a launch. Its variables override the same ones in the
    environment (the flag is the more explicit wish); the ones it does not name, such as
    a site's UCX_NET_DEVICES or OMPI_MCA_btl_tcp_if_include, are kept."""
    return TransportChoice(transport, flavour, device, transport_env(transport, flavour, device))


def observed(environment: Mapping[str, str] | None) -> dict[str, str]:
    """The transport variables rank 0 of the core ran with (from its JSON header), which
    shows what the library was asked for whether commscope or the user set it."""
    return {
        key: value
        for key, value in (environment or {}).items()
        if any(key.startswith(prefix) for prefix in _TRANSPORT_PREFIXES)
    }
