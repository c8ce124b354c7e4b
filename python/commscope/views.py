"""Text views of stored runs: the provenance block of `show` and the table of `list runs`."""

from __future__ import annotations

import shlex
import sqlite3
from collections.abc import Sequence

from rich.table import Table

from .records import Run


def _with_commit(version: str | None, commit: str | None) -> str | None:
    if version is None:
        return None
    return f"{version} (git {commit})" if commit else version


def provenance_lines(run: Run) -> list[str]:
    """`key  value` lines describing where a run's numbers come from; unknown items are left out."""
    hosts = ", ".join(f"{host['name']} (ranks {','.join(map(str, host['ranks']))})" for host in run.hosts or [])
    placement = f"{run.ranks or '?'} on {run.nodes or '?'} node(s)"
    if run.placement:
        placement += f" (placement asked for: {run.placement})"
    mpi = " ".join(part for part in (run.mpi_library, run.mpi_version) if part)
    items = [
        ("status", run.status + (f": {run.status_reason}" if run.status_reason else "")),
        ("label", run.label),
        ("system", run.system),
        ("time", " .. ".join(t for t in (run.started_at, run.ended_at) if t) or None),
        ("ranks", placement),
        ("hosts", hosts or None),
        ("flags", shlex.join(run.flags) if run.flags else None),
        ("pass", f"{run.repeat_index + 1} of a --repeat" if run.repeat_index else None),
        ("core", " ".join(part for part in (run.tool_name, _with_commit(run.tool_version, run.tool_git_commit))
                          if part) or None),
        ("MPI", mpi or None),
        ("CPU", run.cpu_model),
        ("compiler", run.compiler),
        ("job id", run.job_id),
        ("launcher", shlex.join(run.launcher_argv) if run.launcher_argv else None),
        ("source", f"{run.source_file} ({run.source_format})" if run.source_file else None),
        ("notes", "; ".join(run.notes) if run.notes else None),
        ("harness", f"commscope {_with_commit(run.commscope_version, run.commscope_git_commit)}"),
    ]
    width = max(len(key) for key, _ in items)
    return [f"run {run.id}: {run.benchmark}"] + [f"  {key:<{width}}  {value}" for key, value in items if value]


def runs_table(rows: Sequence[sqlite3.Row]) -> Table:
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for column in ("id", "started", "benchmark", "label", "system", "ranks", "nodes", "sizes", "status", "source"):
        table.add_column(column, justify="right" if column in ("id", "ranks", "nodes", "sizes") else "left")
    for row in rows:
        source = row["source_format"] or "run"
        table.add_row(str(row["id"]), (row["started_at"] or "")[:16].replace("T", " "), row["benchmark"], row["label"] or "",
                      row["system_name"] or "", str(row["ranks"] or ""), str(row["nodes"] or ""),
                      str(row["point_count"]), row["status"], source)
    return table
