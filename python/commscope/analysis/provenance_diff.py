"""What differs between the provenance of consecutive runs: the environment a change point is
explained by (MPI library and version, transport and its variables, hosts, kernel, driver,
firmware where a source recorded them, the core's and commscope's versions, the core's
flags and the MPI variables of rank 0's environment)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from commscope.records.run import Run

#: Variables that differ from one job to the next whatever changed (the hosts are an
#: aspect of their own).
_PER_JOB_VARIABLES = frozenset({"SLURM_JOB_ID", "SLURM_JOB_NODELIST"})
#: Provenance entries a source may record about the machine beside the core's header (the
#: kernel too: _kernels).
_MACHINE_ENTRIES = ("driver", "firmware")


@dataclass(frozen=True)
class Difference:
    aspect: str  # "MPI", "transport", "hosts", or a variable's name ("UCX_TLS")
    before: str | None  # None: the run before did not have it
    after: str | None


def _versioned(version: str | None, commit: str | None) -> str | None:
    if version is None:
        return None
    return f"{version} (git {commit})" if commit else version


def _gpus(provenance: dict) -> str | None:
    """The GPU models and CUDA driver versions the ranks used, where the core recorded them
    (cudaDriverGetVersion's 12040 is 12.4)."""
    described = [
        f"{gpu.get('name', '?')} driver {gpu['driver_version'] // 1000}.{gpu['driver_version'] % 1000 // 10}"
        if isinstance(gpu.get("driver_version"), int)
        else gpu.get("name", "?")
        for gpu in provenance.get("gpus") or []
    ]
    return ", ".join(dict.fromkeys(described)) or None


def _kernels(provenance: dict) -> str | None:
    """The kernel a source recorded, else the releases the hosts' link inventories found
    (`commscope run` inventories every host of the run)."""
    if provenance.get("kernel"):
        return provenance["kernel"]
    hosts = ((provenance.get("links") or {}).get("hosts") or {}).values()
    releases = {host["kernel"] for host in hosts if isinstance(host, dict) and host.get("kernel")}
    return ", ".join(sorted(releases)) or None


def aspects(run: Run) -> dict[str, str]:
    """The run's provenance as comparable text, by aspect; unknown aspects are left out."""
    extra = run.provenance or {}
    transport = extra.get("transport") or {}
    found = {
        "MPI": " ".join(part for part in (run.mpi_library, run.mpi_version) if part) or None,
        "MPI library": run.mpi_library_version,
        "transport": transport.get("requested"),
        "hosts": ", ".join(host["name"] for host in run.hosts or []) or None,
        "ranks": f"{run.ranks} on {run.nodes} node(s)" if run.ranks else None,
        "CPU": run.cpu_model,
        "GPU": _gpus(extra),
        "kernel": _kernels(extra),
        **{entry: extra.get(entry) for entry in _MACHINE_ENTRIES},
        "compiler": run.compiler,
        "core": _versioned(run.tool_version, run.tool_git_commit),
        "commscope": _versioned(run.commscope_version, run.commscope_git_commit),
        "core flags": shlex.join(run.flags) if run.flags else None,
        "binding": (extra.get("binding") or {}).get("asked"),
        "launcher": (run.launcher_argv or [None])[0],
        **{name: value for name, value in (run.environment or {}).items() if name not in _PER_JOB_VARIABLES},
    }
    return {aspect: str(value) for aspect, value in found.items() if value}


def lasting_differences(described: Sequence[dict[str, str]], index: int) -> list[Difference]:
    """What changed between the runs at `index - 1` and `index` of a series (`described`:
    each run's aspects(), in order) and lasted: the aspect had its old value on the run
    before too and keeps its new value on the run after, where there are such runs. What a
    launcher sets anew for every launch (Open MPI's session folders and job ids, a Slurm job
    id) changes at every run and explains nothing. In aspects()'s order, the older run's first."""
    old, new = described[index - 1], described[index]
    earlier = described[index - 2] if index >= 2 else old
    later = described[index + 1] if index + 1 < len(described) else new
    found = [
        Difference(aspect, old.get(aspect), new.get(aspect))
        for aspect in dict.fromkeys([*old, *new])
        if old.get(aspect) != new.get(aspect)
        and earlier.get(aspect) == old.get(aspect)
        and later.get(aspect) == new.get(aspect)
    ]
    # the library's whole version string says more only where name and version stayed
    renamed = any(difference.aspect == "MPI" for difference in found)
    return [difference for difference in found if not (renamed and difference.aspect == "MPI library")]


def changed_at(described: Sequence[dict[str, str]]) -> set[int]:
    """The indices of a series where something lasting changed in the environment."""
    return {index for index in range(1, len(described)) if lasting_differences(described, index)}
