"""Durations as commands take and say them: `--time-limit 4m`, "about 4 min".

A duration is a number with a unit (s, m or min, h, d), or several in a row (1h30m), or a
plain number of seconds; the core's `--time-limit` takes the seconds."""

from __future__ import annotations

import math
import re

_UNITS = {"s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|min|m|sec|s)", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def parse_duration(text: str) -> float:
    """Seconds of `text` (240, 240s, 4m, 4min, 1h30m, 2.5m); ValueError saying what was
    expected for anything else, and for a duration that is not above zero."""
    given = re.sub(r"\s+", "", text)
    negative = given.startswith("-")
    given = given.lstrip("-") if negative and len(given) > 1 else given
    if _NUMBER.fullmatch(given):
        seconds = float(given)
    else:
        parts = list(_PART.finditer(given))
        if not parts or "".join(part[0] for part in parts) != given:
            raise ValueError("give a duration such as 90s, 4m, 1h30m or a number of seconds")
        seconds = sum(float(part[1]) * _UNITS[part[2].lower()] for part in parts)
    if negative or not math.isfinite(seconds) or seconds <= 0:
        raise ValueError("give a duration above zero, such as 90s, 4m or 1h30m")
    return seconds


def format_duration(seconds: float) -> str:
    """45 s, 4 min, 2 min 30 s, 1 h 5 min: rounded to what a person plans with."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{minutes} min {secs} s" if secs and minutes < 10 else f"{minutes} min"
