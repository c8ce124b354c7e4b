"""Provenance the harness adds beside the core's own: who ran what, where, with which build."""

from __future__ import annotations

import functools
import os
import re
import socket
from collections.abc import Mapping
from pathlib import Path

from commscope.errors import UsageError
from commscope.records.textsafe import not_utf8

# Batch systems and the variable holding the job id, in the order they are tried.
_JOB_ID_VARIABLES = ("SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID", "COBALT_JOBID")

# Compilers leave their name in the binary's .comment section. Clang and Intel
# builds also carry GCC's string from the C runtime objects, so they are looked
# for first.
_COMPILERS = (
    re.compile(rb"Intel\(R\) oneAPI DPC\+\+/C\+\+ Compiler [^\x00]+"),
    re.compile(rb"(?:[\w-]+ )?clang version [^\x00]+"),
    re.compile(rb"GCC: \([^\x00)]*\) [^\x00]+"),
)
_BINARY_SCAN_LIMIT = 256 << 20


@functools.lru_cache(maxsize=None)
def compiler_of(binary: Path) -> str | None:
    """The compiler that built an executable, e.g. "GCC: (Debian 12.2.0-14) 12.2.0"."""
    try:
        with open(binary, "rb") as handle:
            data = handle.read(_BINARY_SCAN_LIMIT)
    except OSError:
        return None
    for pattern in _COMPILERS:
        match = pattern.search(data)
        if match:
            return match.group(0).decode("utf-8", errors="replace").strip()
    return None


def job_id(environ: Mapping[str, str] = os.environ) -> str | None:
    for variable in _JOB_ID_VARIABLES:
        if environ.get(variable):
            return environ[variable]
    return None


def default_system(environ: Mapping[str, str] = os.environ) -> str:
    """Name of the system results belong to: $COMMSCOPE_SYSTEM, the Slurm cluster, or this host.
    A name the store could not take is refused here, before anything is measured."""
    for variable in ("COMMSCOPE_SYSTEM", "SLURM_CLUSTER_NAME"):
        value = environ.get(variable)
        if value:
            shown = not_utf8(value)
            if shown is not None:
                raise UsageError(f"${variable} is not valid UTF-8: '{shown}'; give it in UTF-8")
            return value
    return socket.gethostname().split(".")[0]
