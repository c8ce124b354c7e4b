"""`commscope overhead`: one benchmark launched plain and under a tool, interleaved (plain,
wrapped, plain, ...) and repeated, through the runner and stored as its runs. The runs come
back from the call that stored them: the slowdown is computed from exactly these, never
from whatever invocation the database holds last."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from commscope.execute.runner import RunRequest, run_benchmarks
from commscope.records.run import Run


@dataclass
class OverheadRequest:
    benchmark: str
    wrapper: tuple[str, ...]  # execute/wrap.py parse_wrapper
    repeat: int = 3
    np: int = 2
    launcher: str = "auto"
    label: str | None = None
    system: str | None = None
    timeout: float | None = None
    dry_run: bool = False
    core_flags: Sequence[str] = ()


def run_overhead(request: OverheadRequest, db: Path) -> tuple[int, list[Run]]:
    """Launch and store the plain and wrapped runs; returns the exit code and the runs stored."""
    return run_benchmarks(
        RunRequest(
            targets=[request.benchmark],
            np=request.np,
            launcher=request.launcher,
            label=request.label,
            system=request.system,
            repeat=request.repeat,
            timeout=request.timeout,
            dry_run=request.dry_run,
            extra_flags=request.core_flags,
            wrappers=((), request.wrapper),
        ),
        db,
    )
