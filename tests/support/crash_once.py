"""crash_once.c built for an MPI library: a stand-in for commscope-bench whose chosen rank
dies by SIGSEGV at start the first time (the source says how it is told)."""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
from pathlib import Path

from paths import REPO

COMPILERS = {"mpich": "mpicc.mpich", "openmpi": "mpicc.openmpi"}


@functools.cache
def crash_once(flavour: str, directory: Path = REPO / "build" / "test-support") -> Path:
    """The stand-in built with FLAVOUR's compiler into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / f"crash_once_{flavour}"
    with tempfile.NamedTemporaryFile(dir=directory, delete=False) as partial:
        source = Path(__file__).with_name("crash_once.c")
        built = subprocess.run(
            [COMPILERS[flavour], "-O2", "-o", partial.name, str(source)], capture_output=True, text=True
        )
        assert built.returncode == 0, built.stderr
        os.chmod(partial.name, 0o755)
        os.replace(partial.name, program)  # whole or not at all, for a reader elsewhere
    return program


def crash_env(flavour: str, core: Path, marker: Path | None, rank: int = 1) -> dict[str, str]:
    """COMMSCOPE_BENCH and the stand-in's settings: RANK dies the first time (every time
    without a marker), then `core` runs."""
    env = {"COMMSCOPE_BENCH": str(crash_once(flavour)), "CRASH_REAL_CORE": str(core), "CRASH_RANK": str(rank)}
    return {**env, "CRASH_MARKER": str(marker)} if marker else env
