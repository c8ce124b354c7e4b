"""Keeping secrets out of what is stored: environment values whose names look secret.

commscope-bench records the environment variables of the MPI stack (OMPI_*, UCX_*,
FI_*, MPICH_*, ...), and some of them carry credentials (UCX_TOKEN, FI_PASSWORD,
OMPI_MCA_..._password). Their values are replaced by REDACTED before a run is stored,
in the run's environment and in every raw copy of the core's output that holds them,
so neither the database nor an export nor `show --raw` gives them away.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

REDACTED = "<redacted>"
#: Parts of a variable name that mark a secret, matched without regard to case.
_SECRET_NAME = re.compile(r"token|passw(?:or)?d|secret|key|credential|auth", re.IGNORECASE)


def is_secret(name: str) -> bool:
    return _SECRET_NAME.search(name) is not None


def redact_environment(environment: Mapping[str, str] | None) -> dict[str, str] | None:
    """The environment with the values of secret-looking names replaced."""
    if environment is None:
        return None
    return {name: REDACTED if is_secret(name) else value for name, value in environment.items()}


def secret_names(environment: Mapping[str, object] | None) -> list[str]:
    return [name for name in environment or () if is_secret(name)]


def redact_json_text(data: bytes, names: Iterable[str]) -> bytes:
    """`data` (JSON, JSON Lines or any text holding them) with the string value of each
    `"NAME": "..."` member replaced, whatever the spacing. Only the given names are touched,
    so numbers and keys elsewhere stay byte for byte what the core wrote."""
    for name in names:
        key = re.escape(json.dumps(name).encode())
        data = re.sub(rb"(" + key + rb"\s*:\s*)\"(?:[^\"\\]|\\.)*\"", rb'\1"' + REDACTED.encode() + rb'"', data)
    return data
