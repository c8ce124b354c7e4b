"""What ends a launch of commscope-bench that would otherwise never end.

A rank that died while its launcher keeps the others waiting for it: the launcher said so
(outcome.early_death), and is stopped DEATH_GRACE_S later if it has not ended by itself
(MPICH's Hydra over ssh fails to signal its other proxies now and then, and waits for ever).

When --timeout does not say, a limit derived from what the launch was asked to measure, so
that no launch waits for ever (a rank that died where its launcher does not notice, a
wire-up that hangs), yet none that still measures is cut short.

START_S covers the MPI start-up of a large job on a loaded machine, before the core's header;
the header says how many points the launch will measure, and each gets POINT_S, far more than
the largest OSU size takes over a slow network (1,000 iterations of 4 MiB at 100 MB/s: 42 s).
A header that does not say leaves the launch without a limit, as before.
"""

from __future__ import annotations

import time
from pathlib import Path

from commscope.execute.launch_files import STDERR, STDOUT
from commscope.execute.outcome import RANK_DIED, early_death
from commscope.execute.process import TIMED_OUT
from commscope.records.core_record import CoreOutput

START_S = 300.0
POINT_S = 60.0
#: Seconds a launcher that said a rank died may take to end the other ranks by itself.
DEATH_GRACE_S = 10.0
#: How much of the end of the launcher's stdout and stderr is read for a death, and how often.
TAIL_BYTES = 64 * 1024
LOOK_EVERY_S = 1.0


def default_limit_s(planned_points: int | None) -> float | None:
    """Seconds a launch measuring `planned_points` may take; START_S before its header said."""
    return START_S + POINT_S * planned_points if planned_points is not None else None


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, handle.seek(0, 2) - TAIL_BYTES))
            return handle.read().decode(errors="replace")
    except OSError:
        return ""


class DefaultLimit:
    """The watch over one launch, started when the launch starts: a rank's death its launcher
    does not act on, and the default limit (nothing where --timeout gave one: the runner's
    own deadline stops it then). `folder` holds the launch's stdout and stderr."""

    def __init__(self, timeout: float | None, folder: Path | None = None) -> None:
        self.applies = not timeout
        self.begin = time.monotonic()
        self.folder = folder
        self.looked = self.begin
        self.death: tuple[str, float] | None = None  # what the launcher said, and when it was seen

    def passed(self, output: CoreOutput | None) -> str | None:
        """Why the launch must stop now: a rank died DEATH_GRACE_S ago and the launcher still
        runs, or it ran past its default limit; else None."""
        return self._dead() or self._limit(output)

    def _dead(self) -> str | None:
        now = time.monotonic()
        if self.folder is None:
            return None
        if self.death is None and now - self.looked >= LOOK_EVERY_S:
            self.looked = now
            said = early_death(_tail(self.folder / STDERR) + _tail(self.folder / STDOUT))
            self.death = (said, now) if said else None
        if self.death is None or now - self.death[1] < DEATH_GRACE_S:
            return None
        return f"{RANK_DIED}: {self.death[0]}; the launcher had not ended the other ranks {DEATH_GRACE_S:g} s later"

    def _limit(self, output: CoreOutput | None) -> str | None:
        if not self.applies:
            return None
        planned = output.planned_records if output is not None else None
        limit = default_limit_s(planned) if output is not None else START_S
        if limit is None or time.monotonic() - self.begin <= limit:
            return None
        if output is None:
            why = f"its header did not come within {START_S:g} s"
        else:
            why = f"{START_S:g} s to start and {POINT_S:g} s for each of its {planned} points"
        return f"{TIMED_OUT} {limit:g} s (the default limit: {why}; --timeout sets another)"
