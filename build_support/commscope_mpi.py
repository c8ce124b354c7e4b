"""`pip install .`: which MPI commscope-bench is built with.

An MPI the user has always wins: $MPICC, else the mpicc on PATH (a cluster must use
its own MPI). Only when there is none does the build ask for the mpich wheel from
PyPI: pip installs build requirements into the isolated build environment, whose
bin/ (with the wheel's mpicc) it puts on PATH, so CMake's FindMPI finds it there.
A core built against that wheel needs its libmpi at run time too, so the wheel's
dependencies then name mpich; commscope-bench finds lib/libmpi.so.12 through its
RUNPATH ($ORIGIN/../lib, see CMakeLists.txt).

A dynamic-metadata provider for scikit-build-core (pyproject.toml names it).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

MPICH_WHEEL = "mpich"


def _harness_only(settings: Mapping[str, Any]) -> bool:
    """`make venv` installs the harness without building the core: no MPI is needed."""
    name = settings.get("harness-only-env")
    return bool(name) and os.environ.get(name, "").lower() in ("1", "true", "yes", "on")


def _mpi_compiler() -> Path | None:
    chosen = os.environ.get("MPICC") or shutil.which("mpicc")
    return Path(chosen).resolve() if chosen else None


def _wheel_version(compiler: Path) -> str | None:
    """The mpich wheel's version if `compiler` is that wheel's mpicc, else None."""
    try:
        dist = metadata.distribution(MPICH_WHEEL)
    except metadata.PackageNotFoundError:
        return None
    for entry in dist.files or ():
        if entry.name == "mpicc" and Path(dist.locate_file(entry)).resolve() == compiler:
            return dist.version
    return None


def get_requires_for_dynamic_metadata(settings: Mapping[str, Any]) -> list[str]:
    if _harness_only(settings) or _mpi_compiler() is not None:
        return []
    return [MPICH_WHEEL]


def dynamic_metadata(settings: Mapping[str, Any], project: Mapping[str, Any]) -> dict[str, Any]:
    extra = {key: value for key, value in settings.items() if key not in ("field", "harness-only-env")}
    if extra or settings.get("field") != "dependencies":
        raise ValueError(f"commscope_mpi provides 'dependencies' only and takes no settings besides "
                         f"harness-only-env; got {dict(settings)}")
    compiler = None if _harness_only(settings) else _mpi_compiler()
    version = _wheel_version(compiler) if compiler else None
    return {"dependencies": [f"{MPICH_WHEEL}>={version}"] if version else []}
