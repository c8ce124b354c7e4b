"""start_fault.c built for LD_PRELOAD: one host's (or rank's) MPI dies by SIGSEGV or hangs
right after MPI_Init, or hangs at its Nth MPI_Barrier (the source says how it is told).
Built with the system's C compiler, without MPI: one library serves both MPI libraries."""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
from pathlib import Path

from paths import REPO


@functools.cache
def start_fault(directory: Path = REPO / "build" / "test-support") -> Path:
    """The library, built into `directory` (shared by every virtual host)."""
    directory.mkdir(parents=True, exist_ok=True)
    library = directory / "start_fault.so"
    with tempfile.NamedTemporaryFile(dir=directory, suffix=".so", delete=False) as partial:
        source = Path(__file__).with_name("start_fault.c")
        built = subprocess.run(
            ["cc", "-O2", "-shared", "-fPIC", "-o", partial.name, str(source), "-ldl"], capture_output=True, text=True
        )
        assert built.returncode == 0, built.stderr
        os.chmod(partial.name, 0o755)
        os.replace(partial.name, library)  # whole or not at all, for a reader elsewhere
    return library


def fault_env(
    env: dict[str, str],
    fault: str,
    *,
    hosts: str | None = None,
    rank: int | None = None,
    barriers: int | None = None,
    directory: Path | None = None,
) -> dict[str, str]:
    """`env` with the library preloaded (after what it preloads already) and told which
    ranks fail how: fault segv or hang; on `hosts` (names, comma-separated) or `rank`;
    at start, or at the `barriers`-th MPI_Barrier."""
    library = start_fault(directory) if directory else start_fault()
    told = {"START_FAULT": fault}
    if hosts is not None:
        told["START_FAULT_HOST"] = hosts
    if rank is not None:
        told["START_FAULT_RANK"] = str(rank)
    if barriers is not None:
        told["START_FAULT_BARRIERS"] = str(barriers)
    preload = " ".join(filter(None, [env.get("LD_PRELOAD"), str(library)]))
    return {**env, **told, "LD_PRELOAD": preload}
