"""Who ran a command, when, and with which commscope: the `invocations` row every run and
import belongs to, and the timestamps the harness writes."""

from __future__ import annotations

import functools
import os
import socket
import subprocess
from collections.abc import Sequence
from datetime import datetime, timezone

from commscope import REPO_ROOT, __version__


def now() -> str:
    """The current time as ISO 8601 in UTC, as the core writes its times."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@functools.lru_cache(maxsize=None)
def harness_git_commit() -> str | None:
    """Commit of the commscope checkout this package runs from, "-dirty" when its python/
    folder differs from it; None for an installed package or a repository without commits."""
    if not (REPO_ROOT / ".git").exists():
        return None
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=20
        )
        if head.returncode != 0:
            return None
        # Only the harness's own sources decide "-dirty"; new, not yet committed files count.
        changes = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--", "python"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return head.stdout.strip() + ("-dirty" if changes.stdout.strip() else "")


def invocation(command: str, argv: Sequence[str]) -> dict:
    """The `invocations` row of one run or import command."""
    return {
        "command": command,
        "argv": list(argv),
        "started_at": now(),
        "cwd": os.getcwd(),
        "hostname": socket.gethostname(),
        "commscope_version": __version__,
        "commscope_git_commit": harness_git_commit(),
    }
