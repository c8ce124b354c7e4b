"""Where `commscope run storage` writes: the target folder checked (created if missing, a
non-empty one refused unless allowed, writable, enough free space), a private subfolder
for fio's files, how the page cache is defeated there (direct I/O, files larger than
memory, dropped caches), and only the files commscope named removed on every way out."""

from __future__ import annotations

import errno
import mmap
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from commscope import ui
from commscope.errors import CommscopeError, UsageError
from commscope.execute.tools import memory_bytes

DEFAULT_PROCS = (1, 2, 4, 8, 13)
FILE_PREFIX = "commscope."
#: Room beyond the files themselves: fio's own bookkeeping, rounding, the file system's.
SPACE_MARGIN = 1.05
SPACE_SLACK = 64 << 20


@dataclass
class StorageRequest:
    directory: Path
    size: int = 1 << 30  # bytes over all processes of one count (the standard-benchmarks page: 512 GB split among them)
    block: int = 1 << 20
    rand_block: int = 4 << 10
    procs: Sequence[int] = DEFAULT_PROCS
    runtime: float = 30.0  # seconds of each random workload
    nodes: tuple[str, ...] = ()
    launcher: str = "auto"
    allow_nonempty: bool = False
    timeout: float | None = None


@dataclass
class Workspace:
    directory: Path
    folder: Path  # private subfolder holding the files
    cache_policy: str
    direct: bool
    drop_caches: bool
    notes: list[str] = field(default_factory=list)


def probe_direct(folder: Path) -> bool:
    """Whether the file system takes O_DIRECT: open and write one aligned block (tmpfs refuses)."""
    if not hasattr(os, "O_DIRECT"):
        return False
    probe = folder / f"{FILE_PREFIX}probe"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_DIRECT, 0o600)
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return False
        raise
    try:
        buffer = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT wants
        os.write(fd, buffer)
        return True
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return False
        raise
    finally:
        os.close(fd)
        probe.unlink(missing_ok=True)


def _prepare_directory(request: StorageRequest) -> tuple[Path, bool]:
    directory = request.directory.expanduser().absolute()
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--dir {directory} is not a folder")
    created = False
    if not directory.exists():
        if not directory.parent.is_dir():
            raise UsageError(f"--dir {directory}: its parent folder {directory.parent} does not exist")
        try:
            directory.mkdir()
        except OSError as exc:
            raise UsageError(f"--dir {directory}: cannot create it: {exc.strerror}") from None
        created = True
    elif any(directory.iterdir()) and not request.allow_nonempty:
        raise UsageError(
            f"--dir {directory} is not empty and was not created by commscope; choose an empty "
            "or new folder, or give --allow-nonempty (commscope deletes only its own files)"
        )
    if not os.access(directory, os.W_OK | os.X_OK):
        if created:
            directory.rmdir()
        raise UsageError(f"--dir {directory}: no permission to write there")
    return directory, created


@contextmanager
def workspace(request: StorageRequest) -> Iterator[Workspace]:
    """The folder to write in, checked and prepared; everything it made is removed on the way out."""
    directory, created = _prepare_directory(request)
    try:
        try:
            folder = Path(tempfile.mkdtemp(prefix="commscope-storage-", dir=directory))
        except OSError as exc:
            raise UsageError(f"--dir {directory}: cannot write there: {exc.strerror}") from None
        try:
            space = _check_space(folder, request)
            direct = probe_direct(folder)
            memory = memory_bytes()
            notes = [space]
            drop = False
            if direct:
                policy = "direct I/O (O_DIRECT)"
            elif request.size > memory * len(request.nodes or [None]):
                policy = "buffered I/O, files larger than memory"
            elif os.geteuid() == 0:
                policy, drop = "buffered I/O, page cache dropped before each read (root)", True
            else:
                policy = "buffered I/O: the page cache is NOT defeated (no O_DIRECT, files fit in memory, not root)"
                ui.warn(f"{directory}: {policy}; read figures may come from memory")
            yield Workspace(directory, folder, policy, direct, drop, notes)
        finally:
            _remove_ours(folder)
    finally:
        if created:
            try:
                directory.rmdir()
            except OSError:
                ui.warn(
                    f"{directory} is not empty after the run; left in place (commscope created it, "
                    "but something else wrote into it)"
                )


def _check_space(folder: Path, request: StorageRequest) -> str:
    free = shutil.disk_usage(folder).free
    needed = int(request.size * SPACE_MARGIN) + SPACE_SLACK
    if free < needed:
        raise CommscopeError(
            f"--dir {request.directory}: {free / 2**30:.2f} GiB free, the test needs "
            f"{needed / 2**30:.2f} GiB (--size {request.size / 2**30:.2f} GiB and a margin); "
            "choose a smaller --size"
        )
    return f"{free / 2**30:.1f} GiB free before the test"


def _our_files(folder: Path) -> list[Path]:
    return [path for path in folder.iterdir() if path.name.startswith(FILE_PREFIX) or path.name.startswith("fio-")]


def _remove_ours(folder: Path) -> None:
    """Delete the files this module names, then the subfolder if nothing else is in it."""
    if not folder.exists():
        return
    for path in _our_files(folder):
        try:
            path.unlink()
        except OSError as exc:
            ui.warn(f"cannot delete {path}: {exc.strerror}")
    try:
        folder.rmdir()
    except OSError:
        ui.warn(f"{folder} holds files commscope did not write; left in place")
