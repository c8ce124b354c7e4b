"""What is kept per host and boot: answers that take a while to get and cannot change until
the machine boots again or what they depend on changes (nvidia-smi's, execute.gpu_links).

One JSON file per host and subject, in a folder of this user's alone on the host itself
($XDG_RUNTIME_DIR, emptied at every boot; else the temporary folder): {"key": ..., "value":
...}. The key holds the host name, the kernel's boot id (/proc/sys/kernel/random/boot_id,
new at every boot) and what the caller names; anything else found there (another key, a
damaged file, a folder another user could write) is not used. Keeping is never needed:
where the folder cannot be made or written, every call asks afresh."""

from __future__ import annotations

import json
import os
import socket
import stat
import tempfile
from pathlib import Path

from commscope.execute.sysfs import read

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
#: Bytes of a kept file read at most (nvidia-smi's answers of a 16-GPU node are some 10 kB).
MAX_BYTES = 1 << 20


def folder() -> Path | None:
    """This user's folder on this host, made private; None where it cannot be trusted."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime and Path(runtime).is_dir() else Path(tempfile.gettempdir())
    path = base / f"commscope-{os.getuid()}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = path.lstat()
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077
    return path if private else None


def file_identity(path: Path) -> list | None:
    """A program as the key names it: where it is and which file (a new version, another key)."""
    try:
        real = path.resolve(strict=True)
        info = real.stat()
    except (OSError, RuntimeError):
        return None
    return [os.fsencode(real).decode(errors="replace"), info.st_ino, info.st_size, info.st_mtime_ns]


class Kept:
    """One subject's value kept on this host for this boot, under `depends_on`."""

    def __init__(self, subject: str, depends_on: dict) -> None:
        boot = read(BOOT_ID)
        host = socket.gethostname()
        self.key = {"host": host, "boot": boot, **depends_on} if boot else None
        where = folder() if boot else None
        self.path = where / f"{subject}-{host.replace('/', '_')}.json" if where else None

    def load(self) -> dict:
        """The value kept under this key; {} where there is none."""
        if self.path is None:
            return {}
        try:
            with open(self.path, "rb") as file:
                text = file.read(MAX_BYTES + 1)
            document = json.loads(text) if len(text) <= MAX_BYTES else None
        except (OSError, ValueError):
            return {}
        if not isinstance(document, dict) or document.get("key") != self.key:
            return {}
        value = document.get("value")
        return value if isinstance(value, dict) else {}

    def save(self, value: dict) -> None:
        """Keep `value` (written whole or not at all; a failure only means asking again)."""
        if self.path is None:
            return
        text = json.dumps({"key": self.key, "value": value})
        try:
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(handle, "w") as file:
                file.write(text)
            os.replace(temporary, self.path)
        except OSError:
            Path(temporary).unlink(missing_ok=True)
