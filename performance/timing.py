"""What the harness benchmarks under performance/ share: the wall and CPU seconds of a
command, and one line per program of the fastest and median of each. On a shared machine
the CPU time says what a command costs, the wall time mostly how long it waited."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import statistics
import subprocess
import time
from pathlib import Path


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


#: The harness these benchmarks time unless --commscope names others.
THIS_CHECKOUT = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "commscope")


def add_programs_option(parser: argparse.ArgumentParser) -> None:
    """--commscope PROG, repeatable: the harnesses to time side by side, A B A B."""
    parser.add_argument("--commscope", action="append", help="commscope program (default: this checkout's)")


def programs(args: argparse.Namespace) -> list[str]:
    return args.commscope or [THIS_CHECKOUT]


def heading(*what: str) -> str:
    """`# DATE HOST N cores, WHAT, ...`: the first line of a benchmark's results."""
    return ", ".join([f"# {datetime.date.today()} {platform.node()} {os.cpu_count()} cores", *what])


def print_with_peaks(title: str, results: dict[str, list[tuple[float, float]]], peaks: dict[str, int]) -> None:
    """Each program's timings with its peak memory (KiB, from /usr/bin/time -f %M), under
    `title`, and the load the machine had."""
    print(title)
    for program, measured in results.items():
        print(f"{summary(program, measured)}; peak memory {peaks[program] / 1024:.0f} MiB")
    print(f"load average: {os.getloadavg()[0]:.1f}")
