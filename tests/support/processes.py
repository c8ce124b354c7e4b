"""Finding a test's own processes in /proc while other tests run beside it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def _live_processes(matches: Callable[[Path], bool]) -> list[int]:
    """Live processes (zombies have ended) whose /proc folder `matches` says yes to."""
    found = []
    for folder in Path("/proc").glob("[0-9]*"):
        try:
            if matches(folder):
                stat = (folder / "stat").read_text()
                if stat[stat.rindex(")") + 2] != "Z":
                    found.append(int(folder.name))
        except OSError:
            continue  # it just ended, or is not ours to read
    return found


def processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line contains `text` (the launcher and the ranks name the
    run's JSONL file)."""
    return _live_processes(lambda folder: text.encode() in (folder / "cmdline").read_bytes())


def processes_in(folder: Path) -> list[int]:
    """Live processes working in `folder` or below it (hpcc's ranks run in the run's folder)."""
    return _live_processes(lambda process: Path((process / "cwd").readlink()).is_relative_to(folder))
