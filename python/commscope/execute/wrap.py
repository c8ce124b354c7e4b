"""`--wrap 'CMD ...'`: a program every rank runs the benchmark under (a profiler, `perf
stat`, a tracer, valgrind), placed between the launcher and the benchmark:
`mpirun -np 2 valgrind --tool=none commscope-bench barrier ...`. The text is split like a
shell would (shlex), never run through one, so quoting in it is kept and nothing in it is
interpreted twice."""

from __future__ import annotations

import os
import shlex
import shutil

from commscope.errors import UsageError


def parse_wrapper(text: str) -> tuple[str, ...]:
    """The wrapper's argv; UsageError for empty text, unbalanced quotes or a program that is
    neither on PATH nor an executable file."""
    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise UsageError(f"--wrap {text!r}: {exc}") from None
    if not argv:
        raise UsageError("--wrap needs a command, e.g. --wrap 'valgrind --tool=none'")
    program = argv[0]
    if os.sep in program:
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise UsageError(f"--wrap: {program} is not an executable file")
    elif shutil.which(program) is None:
        raise UsageError(f"--wrap: program {program!r} not found on PATH")
    return argv


def describe(wrapper: tuple[str, ...]) -> str:
    return shlex.join(wrapper) if wrapper else "(none)"
