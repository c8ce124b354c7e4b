"""Finding a test's own processes in /proc while other tests run beside it."""

from __future__ import annotations

from pathlib import Path


def processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line contains `text` (the launcher and the ranks name the
    run's JSONL file)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text.encode() in cmdline.read_bytes():
                stat = (cmdline.parent / "stat").read_text()
                if stat[stat.rindex(")") + 2] != "Z":
                    found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found
