"""The fabric's shape where the user gives none: what Slurm's controller says
(`scontrol show topology`), read by records/topology.py.

A site's topology.conf sits beside slurm.conf on the controller, often not on the node a
sweep runs from; `scontrol show topology` asks the controller instead, from any node of
an allocation.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from commscope.cluster.slurm import run_slurm
from commscope.errors import CommscopeError
from commscope.records.topology import Topology, parse_scontrol_topology, read_topology


def scontrol_topology() -> Topology | None:
    """What `scontrol show topology` says; None where Slurm knows no topology (no
    topology plugin, or no switch in it). A CommscopeError where scontrol is missing,
    does not answer, or fails."""
    done = run_slurm(["scontrol", "show", "topology"])
    if done.returncode != 0:
        said = " ".join((done.stderr or done.stdout).split()) or f"exit status {done.returncode}"
        raise CommscopeError(f"`scontrol show topology` failed: {said}")
    return parse_scontrol_topology(done.stdout)


def site_topology(path: str | Path | None, environ: Mapping[str, str] = os.environ) -> Topology | None:
    """The topology a sweep uses: the file given (--topology FILE), else inside a Slurm
    allocation (SLURM_JOB_ID set) what the controller says, else None (none is known)."""
    if path is not None:
        return read_topology(path)
    if environ.get("SLURM_JOB_ID"):
        return scontrol_topology()
    return None
