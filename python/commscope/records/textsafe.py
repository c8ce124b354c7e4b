"""Text from users and files made safe for where it is shown: terminals, CSV, Markdown.

Labels, system names and imported table headers are whatever someone typed. Shown raw,
an escape sequence rewrites the terminal, a leading "=" runs a formula in a spreadsheet
(OWASP's CSV injection) and a newline ends a Markdown table row and starts a heading.
"""

from __future__ import annotations

import os
import re
import shlex

# C0 controls but newline and tab, DEL and the C1 controls (ESC's 8-bit cousins).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_IN_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def terminal(text: str) -> str:
    """`text` with control characters (ESC, BEL, CR, ...) shown as \\xNN; lines and tabs kept."""
    return _CONTROL.sub(_escape, text)


def one_line(text: str) -> str:
    """`text` for one line or table cell of a terminal: every control character as \\xNN."""
    return _CONTROL_IN_LINE.sub(_escape, text)


def shell_word(word: str) -> str:
    """`word` as one word of a shell line printed for a user to read or run: quoted as a
    shell would need it, and a word with a control character or line break in ANSI-C
    quotes ($'...\\x0a...'), so that nothing in it ends the line or reaches the terminal."""
    if not any(not char.isprintable() for char in word):
        return shlex.quote(word)
    escaped = "".join(
        f"\\x{ord(char):02x}" if not char.isprintable() and ord(char) < 256 else
        f"\\u{ord(char):04x}" if not char.isprintable() and ord(char) < 0x10000 else
        f"\\U{ord(char):08x}" if not char.isprintable() else
        "\\" + char if char in "\\'" else char
        for char in word
    )  # fmt: skip
    return f"$'{escaped}'"


def csv_cell(value: object) -> object:
    """A CSV cell a spreadsheet will not run: text starting with = + - @ or tab gets a
    leading apostrophe (OWASP). Control characters but newline and tab are shown as \\xNN
    first: Python's csv module leaves a CR unquoted, which splits the row for readers.
    Numbers are left alone, so -1.5 stays a number."""
    if not isinstance(value, str):
        return value
    value = terminal(value)
    return "'" + value if value.startswith(_FORMULA_START) else value


def markdown_cell(text: str) -> str:
    """Text for a cell of a Markdown table: HTML and pipes escaped, line breaks as <br>, other
    control characters as \\xNN, so a cell cannot end its row or start a heading."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
    text = re.sub(r"\r\n|\r|\n", "<br>", text)
    return one_line(text)


def file_name(path: os.PathLike[str] | str) -> str:
    """A file's name as text that can be stored and shown: bytes that are not UTF-8 (which
    Python carries as lone surrogates and SQLite refuses) written as \\xNN."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def not_utf8(text: str) -> str | None:
    """None for text that can be stored; for text holding bytes that are not UTF-8 (carried
    by Python as lone surrogates), those bytes written as \\xNN, to name it in a message."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # a byte carried as U+DC80..U+DCFF as \\xNN; any other lone surrogate (a JSON file's
        # \\ud800, stored by an older commscope) as \\uNNNN
        return "".join(
            f"\\x{ord(char) - 0xDC00:02x}" if 0xDC80 <= ord(char) <= 0xDCFF else
            f"\\u{ord(char):04x}" if 0xD800 <= ord(char) <= 0xDFFF else char
            for char in text
        )  # fmt: skip
    return None
