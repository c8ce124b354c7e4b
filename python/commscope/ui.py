"""Where messages go: results on stdout, everything about the run on stderr. Messages quote
labels, system names and file names, so control characters in them are shown escaped."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from commscope.records.textsafe import terminal

if TYPE_CHECKING:
    from rich.console import Console


@functools.cache
def _console(*, stderr: bool) -> Console:
    # Rich looks sys.stdout/sys.stderr up on every print, so redirections (and
    # click's test runner) see the output. Markup is off because messages quote
    # user text and file names that may contain brackets. Made on first use, so
    # that `commscope --help` and usage errors do not import rich.
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def __getattr__(name: str) -> Console:
    """`ui.out` (results) and `ui.err` (messages), the consoles everything prints to."""
    if name in ("out", "err"):
        return _console(stderr=name == "err")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def error(message: str) -> None:
    _console(stderr=True).print(f"error: {terminal(message)}", style="bold red", markup=False)


def warn(message: str) -> None:
    _console(stderr=True).print(f"warning: {terminal(message)}", style="yellow", markup=False)


def note(message: str) -> None:
    _console(stderr=True).print(terminal(message), markup=False)


def table_console() -> Console:
    """Where tables go: the terminal at its width, or, when piped, a console that does
    not squeeze rows into 80 columns, since scripts split them into fields."""
    from rich.console import Console

    out = _console(stderr=False)
    return out if out.is_terminal else Console(highlight=False, width=1000)
