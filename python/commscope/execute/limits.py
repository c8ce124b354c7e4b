"""How long a launch of commscope-bench may run when --timeout does not say: a limit derived
from what it was asked to measure, so that no launch waits for ever (a rank that died where
its launcher does not notice, a wire-up that hangs), yet none that still measures is cut short.

START_S covers the MPI start-up of a large job on a loaded machine, before the core's header;
the header says how many points the launch will measure, and each gets POINT_S, far more than
the largest OSU size takes over a slow network (1,000 iterations of 4 MiB at 100 MB/s: 42 s).
A header that does not say leaves the launch without a limit, as before.
"""

from __future__ import annotations

import time

from commscope.execute.process import TIMED_OUT
from commscope.records.core_record import CoreOutput

START_S = 300.0
POINT_S = 60.0


def default_limit_s(planned_points: int | None) -> float | None:
    """Seconds a launch measuring `planned_points` may take; START_S before its header said."""
    return START_S + POINT_S * planned_points if planned_points is not None else None


class DefaultLimit:
    """The default limit of one launch, started when the launch starts; nothing where
    --timeout gave one (the runner's own deadline stops it then)."""

    def __init__(self, timeout: float | None) -> None:
        self.applies = not timeout
        self.begin = time.monotonic()

    def passed(self, output: CoreOutput | None) -> str | None:
        """Why the launch must stop now, when it has run past its default limit; else None."""
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
