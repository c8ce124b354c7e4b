"""What the harness benchmarks under performance/ share: the wall and CPU seconds of a
command, and one line per program of the fastest and median of each. On a shared machine
the CPU time says what a command costs, the wall time mostly how long it waited."""

from __future__ import annotations

import resource
import statistics
import subprocess
import time


def children_cpu() -> float:
    """CPU seconds (user + system) of every child process waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict, **run) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall and CPU seconds of one command, and its result (`run` as subprocess.run takes)."""
    start, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(argv, env=env, **run)
    return time.perf_counter() - start, children_cpu() - cpu, done


def summary(name: str, measured: list[tuple[float, float]], digits: int = 2) -> str:
    """`NAME: wall fastest W s, median W s; CPU fastest C s, median C s` of (wall, CPU) pairs."""
    walls, cpus = [wall for wall, _ in measured], [cpu for _, cpu in measured]
    return (
        f"{name}: wall fastest {min(walls):.{digits}f} s, median {statistics.median(walls):.{digits}f} s; "
        f"CPU fastest {min(cpus):.{digits}f} s, median {statistics.median(cpus):.{digits}f} s"
    )
