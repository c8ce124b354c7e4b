"""Turning file bytes into lines the readers can trust."""

from __future__ import annotations

import codecs
import re

from commscope.ingest.parse.errors import ParseError

# Share of replacement/control characters above which a file is taken for
# binary: a few stray bytes in an MPI warning must not reject a good log, a
# core dump or a tarball must not be read as text.
_BINARY_SHARE = 0.05
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\ufffd]")

# Markup that wraps pasted tables in documents: HTML <pre>/<code> tags and
# Markdown code fences. Readers look through it.
_WRAPPER_TAGS = re.compile(r"</?(?:pre|code)\b[^>]*>", re.IGNORECASE)


def decode(data: bytes) -> str:
    """Decode a result file: UTF-8 (with or without BOM), UTF-16 with a BOM;
    bytes that are not valid UTF-8 become U+FFFD instead of failing."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


#: A JSON escape of half a UTF-16 pair (\\ud800): json.loads makes a lone surrogate of one
#: that no low half follows, text no UTF-8 file, terminal or SQLite can hold.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str, document: object) -> tuple[tuple, str] | None:
    """Where a JSON `document` (loaded from `text`) holds a lone surrogate, key or value:
    its path and the text; None when it holds none. Refused as the file's fault: stored,
    it could be neither written to SQLite (cpu_model: the database's error) nor exported."""
    if not _SURROGATE_ESCAPE.search(text):
        return None
    todo: list[tuple[tuple, object]] = [((), document)]
    while todo:
        path, value = todo.pop()
        if isinstance(value, str) and _SURROGATE.search(value):
            return path, value
        if isinstance(value, dict):
            for key, item in value.items():
                if _SURROGATE.search(key):
                    return path, key
                todo.append(((*path, key), item))
        elif isinstance(value, list):
            todo.extend(((*path, index), item) for index, item in enumerate(value))
    return None


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` with any newline convention; index 0 is line 1."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def check_is_text(text: str, source: str) -> None:
    """Raise :class:`ParseError` if ``text`` is empty or looks like binary data."""
    if not text.strip():
        raise ParseError(source, 1, "file is empty")
    if "\x00" in text:
        raise ParseError(source, _line_of(text, text.index("\x00")), "binary data (NUL bytes), not a text result file")
    suspicious = _CONTROL.findall(text)
    if len(suspicious) > _BINARY_SHARE * len(text):
        first = _CONTROL.search(text)
        raise ParseError(
            source,
            _line_of(text, first.start() if first else 0),
            "binary data (undecodable or control bytes), not a text result file",
        )


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + text.count("\r", 0, offset) - text.count("\r\n", 0, offset) + 1


def unwrap(line: str) -> str:
    """A line without indentation, trailing blanks and HTML ``<pre>`` tags,
    as tables pasted into Markdown, reStructuredText or HTML carry them."""
    if "<" in line:  # the regex only for lines that may hold a tag: readers unwrap every line
        line = _WRAPPER_TAGS.sub("", line)
    return line.strip()


_VERSION_IN_TEXT = re.compile(r"\bv(\d+(?:\.\d+)+)\b")


def version_in(text: str | None) -> str | None:
    """A ``v5.7.1``-style version mentioned in a label, without the ``v``.

    Hand-made comparison tables name each column ``cluster v5.7.1``."""
    match = _VERSION_IN_TEXT.search(text) if text else None
    return match.group(1) if match else None
