"""What the link sweeps (one-to-all, all-pairs, intra) share: one launch of `commscope-bench
pairs` over the mode's schedule, a serial retest of the suspects, flags judged per pair
(sweep/run.py), and their words."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from commscope.execute.limits import POINT_S, START_S
from commscope.sweep.modes.base import Option, SweepMode
from commscope.sweep.modes.options import BASELINE, NO_RETEST, PLOT

if TYPE_CHECKING:
    from commscope.sweep.modes.base import SweepRequest
    from commscope.sweep.run import LinkOutcome

#: A launch's time limit, as every mode says it (execute/limits.py derives the default).
DEFAULT_LIMIT = f"default: {START_S:g} s to start plus {POINT_S:g} s for each point planned"
#: The options every link sweep takes after its own.
LINK_OPTIONS = (NO_RETEST, BASELINE, PLOT)


class LinkMode(SweepMode):
    family = "link sweep"
    epilog = "Exit status 1 when something is flagged (or worse than --baseline)."
    metric_help = "What each pair measures: latency, bw, bibw (comma-separated; default all)."
    json_help = "Write the matrix, the flags and their evidence as JSON."
    timeout_help = f"Stop a launch that runs longer, then start it again (--retries; {DEFAULT_LIMIT})."
    options: ClassVar[tuple[Option, ...]] = LINK_OPTIONS

    def run(self, request: SweepRequest, db: Path | None, folder: Path | None = None) -> LinkOutcome:
        from commscope.sweep.run import run_sweep

        return run_sweep(request, db, folder)
