"""The one reader of hostfiles: `--hostfile FILE` of `run` and of every `sweep` mode.

A line names one host by its first word; what follows (Open MPI's `slots=4`) and `#`
comments are the launcher's business. Hydra's `host:4` names `host`. A word with no host
before its colon (`:4`) is an error naming the file and line: it would otherwise be a host
called "" that every launcher refuses in its own way, or that a sweep measures and stores.
"""

from __future__ import annotations

from pathlib import Path

from commscope.errors import UsageError
from commscope.records.inputs import read_text


def read_hostfile(path: Path | str) -> list[str]:
    """The hosts of the hostfile at `path`, in the file's order, as often as it names them."""
    hosts: list[str] = []
    for number, line in enumerate(read_text(Path(path), "hostfile").splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        host = words[0].split(":", 1)[0]
        if not host:
            raise UsageError(f"{path}:{number}: {words[0]!r} names no host (a hostfile line is HOST[:SLOTS] ...)")
        hosts.append(host)
    if not hosts:
        raise UsageError(f"hostfile {path} names no hosts")
    return hosts
