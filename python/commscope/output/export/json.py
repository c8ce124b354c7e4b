"""JSON documents as commscope writes them all: two-space indents, text as it is (not
\\u-escaped) but for bytes that are not UTF-8 (a name read from a broken sysfs or tool,
stored before names were made safe), written as \\xNN, a number that is not finite as
null (JSON has no NaN), a final newline: always a document UTF-8 can hold."""

from __future__ import annotations

import json
import math
from typing import Any

from commscope.records.textsafe import not_utf8


def json_text(document: Any) -> str:
    return json.dumps(_finite(document), indent=2, ensure_ascii=False) + "\n"


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, str):
        return not_utf8(value) or value
    if isinstance(value, dict):
        return {_finite(key): _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
