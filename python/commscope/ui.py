"""Where messages go: results on stdout, everything about the run on stderr."""

from __future__ import annotations

from rich.console import Console

# Rich looks sys.stdout/sys.stderr up on every print, so redirections (and
# click's test runner) see the output. Markup is off because messages quote
# user text and file names that may contain brackets.
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def error(message: str) -> None:
    err.print(f"error: {message}", style="bold red", markup=False)


def warn(message: str) -> None:
    err.print(f"warning: {message}", style="yellow", markup=False)


def note(message: str) -> None:
    err.print(message, markup=False)


def table_console() -> Console:
    """Where tables go: the terminal at its width, or, when piped, a console that does
    not squeeze rows into 80 columns, since scripts split them into fields."""
    return out if out.is_terminal else Console(highlight=False, width=1000)
