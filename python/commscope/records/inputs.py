"""Files the harness reads as input, read up to a limit.

A hostfile, suite, rules file or configuration that is /dev/zero by mistake, or a log of
gigabytes given in its place, ends with a message naming the file and the limit instead
of reading until the machine's memory is gone. Imports have their own, larger limit
(ingest/importer.py).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from commscope.errors import UsageError
from commscope.records.text import format_size

#: The largest hostfile, suite, rules or configuration file read: a hostfile naming
#: 100,000 nodes is about 2 MB, a suite of a thousand entries some 100 KB.
SETTINGS_LIMIT = 16 * 2**20
_READ_CHUNK = 2**20


#: Kinds of file that are no input and would block a reader (a pipe waits for its writer).
_NOT_INPUT = {stat.S_IFIFO: "a named pipe", stat.S_IFSOCK: "a socket", stat.S_IFBLK: "a block device"}


def _open_input(path: Path) -> int:
    """A descriptor of the input file at `path`, opened without waiting: a named pipe given
    by mistake is refused instead of waiting for a writer for ever, and a character device
    (/dev/zero, a terminal) never blocks a read (it is read up to the limit, or fails)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    kind = _NOT_INPUT.get(stat.S_IFMT(os.fstat(fd).st_mode))
    if kind is not None:
        os.close(fd)
        raise OSError(errno.EINVAL, f"{kind}, not a file")
    return fd


def read_capped(path: Path, limit: int) -> bytes | None:
    """The file's bytes, or None when it holds more than `limit` (only limit + 1 are read)."""
    chunks, total = [], 0
    with open(_open_input(path), "rb") as handle:
        while total <= limit:
            chunk = handle.read(min(_READ_CHUNK, limit + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
    return None


def read_text(path: Path, what: str, limit: int = SETTINGS_LIMIT) -> str:
    """The UTF-8 text of the input file `path`, a `what` ("hostfile", "suite file"); a
    UsageError naming the file when it cannot be read, is larger than `limit` or is not
    UTF-8 (with the line)."""
    try:
        data = read_capped(path, limit)
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if data is None:
        raise UsageError(f"{what} {path}: larger than the limit of {format_size(limit)} for a {what}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UsageError(f"{path}:{line}: {what} is not UTF-8 (byte 0x{data[exc.start]:02x})") from None


#: The largest file of a job folder read (a launch's core.jsonl, stdout, stderr, the job's
#: log): a sweep of 10,000 hosts keeps some 100 MB.
JOB_FILE_LIMIT = 1024 * 2**20


class UnsafeFile(OSError):
    """A job folder's file that is not read: a symbolic link, not a regular file (a pipe,
    a device), or larger than the limit. Its message says which and why."""


def read_inside(root: Path, path: Path, limit: int = JOB_FILE_LIMIT) -> bytes:
    """The bytes of `path`, a file inside the folder `root`, read only when it is a regular
    file reached from `root` without a symbolic link (none followed, none of its folders
    one), of at most `limit` bytes: a job folder is written by whoever ran the job, and
    `runs/001-latency/stdout -> /etc/shadow` must not be read, stored and printed by the
    user who collects it. Opened without waiting (a named pipe never blocks). Raises
    FileNotFoundError when it is missing, UnsafeFile when it may not be read."""
    parts = path.relative_to(root).parts
    if not parts or ".." in parts:
        raise UnsafeFile(errno.EINVAL, f"{path}: not a file inside {root}")
    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(root, flags | os.O_DIRECTORY)
    try:
        for depth, part in enumerate(parts):
            last = depth == len(parts) - 1
            try:
                inner = os.open(part, flags | (os.O_NONBLOCK | os.O_NOCTTY if last else os.O_DIRECTORY), dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) or (exc.errno == errno.ENXIO and last):
                    where = root.joinpath(*parts[: depth + 1])
                    raise UnsafeFile(exc.errno, f"{where} is a symbolic link or not a folder; not read") from None
                raise
            os.close(fd)
            fd = inner
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(errno.EINVAL, f"{path} is not a regular file (a pipe, socket or device); not read")
        if info.st_size > limit:
            raise UnsafeFile(errno.EFBIG, f"{path} holds {format_size(info.st_size)}, more than {format_size(limit)}")
        with open(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
        if len(data) > limit:
            raise UnsafeFile(errno.EFBIG, f"{path} holds more than {format_size(limit)}")
        return data
    finally:
        os.close(fd)
