"""JSON documents as commscope writes them all: two-space indents, text as it is (not
\\u-escaped), a number that is not finite as null (JSON has no NaN), a final newline."""

from __future__ import annotations

import json
import math
from typing import Any


def json_text(document: Any) -> str:
    return json.dumps(_finite(document), indent=2, ensure_ascii=False) + "\n"


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
