"""Files the harness writes, written whole or not at all: the data goes to a temporary file
beside the target, which is then renamed over it. An error on the way (a full disk, text
that cannot be encoded) leaves no empty or cut file, and an earlier file as it was."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_whole(path: Path, data: bytes) -> None:
    """Write `data` to `path` (through a link, to the file it names), with the permissions
    the file has, or a new file would get. Raises OSError as writing in place would."""
    target = path.resolve()
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temporary, _mode_of(target))
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mode_of(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0o022)
        os.umask(mask)
        return 0o666 & ~mask
