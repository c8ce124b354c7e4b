"""What a sweep checks before it measures: the folder the core's result stream goes to,
and the --json and --plot paths. Each refusal is a usage error naming the setting or
option and its value, raised before the first launch, so a sweep never measures for
an hour to fail at the end."""

from __future__ import annotations

import os
from pathlib import Path

from commscope.errors import UsageError

#: Where a sweep's stream and schedule files go when the current folder is not shared.
SWEEP_TMP = "COMMSCOPE_SWEEP_TMP"


def _writable(folder: Path) -> bool:
    """Whether files can be made in `folder`; access() also answers for read-only mounts."""
    return os.access(folder, os.W_OK | os.X_OK)


def stream_folder() -> str:
    """The folder rank 0 writes the core's result stream and reads the schedule file in:
    $COMMSCOPE_SWEEP_TMP, else the current folder (more likely shared than /tmp)."""
    try:
        cwd = os.getcwd()
    except FileNotFoundError:
        raise UsageError(
            f"the current folder no longer exists: cd to a folder the hosts share, or set {SWEEP_TMP}"
        ) from None
    given = os.environ.get(SWEEP_TMP)
    if not given:
        if not _writable(Path(cwd)):
            raise UsageError(
                f"the current folder {cwd} cannot be written, and the sweep's result stream goes there: "
                f"cd to a writable folder the hosts share, or set {SWEEP_TMP}"
            )
        return cwd
    folder = Path(given)
    where = f"{SWEEP_TMP}={given}"
    if not folder.exists():
        raise UsageError(f"{where}: no such folder")
    if not folder.is_dir():
        raise UsageError(f"{where}: not a folder")
    if not _writable(folder):
        raise UsageError(f"{where}: cannot write there")
    return given


def check_output(path: Path | None, option: str, folder: bool = False) -> None:
    """Refuse an output path (--json FILE, --plot DIR) that cannot be written, making
    nothing: its folder must exist and be writable; DIR may be made there."""
    if path is None:
        return
    parent = path.parent if str(path.parent) else Path(".")
    if path.exists():
        if path.is_dir() != folder:
            raise UsageError(f"cannot write {option} {path}: {'not a folder' if folder else 'it is a folder'}")
        if not _writable(path if folder else parent) or not (folder or os.access(path, os.W_OK)):
            raise UsageError(f"cannot write {option} {path}: permission denied")
        return
    if not parent.is_dir():
        why = "no such folder" if not parent.exists() else "not a folder"
        raise UsageError(f"cannot write {option} {path}: {parent}: {why}")
    if not _writable(parent):
        raise UsageError(f"cannot write {option} {path}: {parent} cannot be written")
