"""Settings read from COMMSCOPE_* environment variables, each checked where it is read:
a value that is not what the variable takes is refused with the variable and the value
named, before anything is launched or written."""

from __future__ import annotations

import os

#: The largest number of seconds a setting takes (about eleven days).
MAX_SECONDS = 999_999.0


def seconds(variable: str, default: float, error: type[Exception]) -> float:
    """$variable as seconds (0 to MAX_SECONDS), `default` when unset or empty; anything
    else raises `error` (the caller's kind, so the exit status is the caller's)."""
    text = os.environ.get(variable)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= MAX_SECONDS:  # also refuses nan and inf
        raise error(f"{variable}={text!r} is not a number of seconds (0 to {MAX_SECONDS:.0f})")
    return value
