"""The one exception the readers raise."""

from __future__ import annotations


class ParseError(Exception):
    """A result file could not be read.

    Every reader raises this and only this, for any input: empty, binary,
    truncated, malformed or simply unknown files. ``path`` is the file (or the
    source name given to :func:`parse_text`), ``line`` the 1-based line the
    problem was found on (``None`` only when the file could not be read at
    all), and ``message`` says what is wrong. ``str()`` gives the usual
    compiler-style ``path:line: message``.
    """

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        super().__init__(self.__str__())

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"

    def __reduce__(self):  # keep the three fields when pickled (e.g. by multiprocessing)
        return (type(self), (self.path, self.line, self.message))
