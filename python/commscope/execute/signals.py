"""The signals that end `commscope run` gracefully, whatever sent them.

SIGINT (Ctrl-C), SIGTERM (kill, a scheduler), SIGHUP (a closed terminal, a dropped ssh
connection) and SIGQUIT (Ctrl-\\) all mean "stop": the benchmark that runs is stopped with
its launcher's whole process group, what it measured is stored, no further benchmark
starts, and the command exits 3. Left at their defaults, SIGHUP and SIGQUIT would kill
commscope alone, orphaning mpirun and its ranks (they run in their own session) and
losing the run.

The handler only records the signal; the runner's wait loop acts on it, so no store
write is cut short. Entered inside another (a sweep inside `sweep recheck`), it records a
signal for the outer one too: the workflow around a sweep learns of a stop the sweep
acted on, and gives back what it took.
"""

from __future__ import annotations

import os
import signal
import sys

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


class StopSignals:
    """While entered, STOP_SIGNALS are recorded in `received` (names, in order)."""

    def __init__(self) -> None:
        self.received: list[str] = []
        self._previous: dict[int, object] = {}

    def __enter__(self) -> StopSignals:
        for signum in STOP_SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *_exc_info) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def _handle(self, signum: int, frame: object) -> None:
        if signum == signal.SIGHUP:
            _detach_from_terminal()
        self.received.append(signal.Signals(signum).name)
        outer = self._previous.get(signum)
        if isinstance(getattr(outer, "__self__", None), StopSignals):
            outer(signum, frame)


def _detach_from_terminal() -> None:
    """After a hang-up, writing to the terminal fails (EIO), which would stop the run before
    it stores what it measured: send what would go there to /dev/null instead."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and stream.isatty():
                os.dup2(null, stream.fileno())
        except (OSError, ValueError):
            continue
    os.close(null)
