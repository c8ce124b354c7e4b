"""--time-limit: what a command's launches of the core may take in all, said up front.

The launches still to come share the time left: each gets `commscope-bench --time-limit`
of its share, less its own start-up and those of the launches after it, and sizes its
iterations to it from the warm-up (src/util/budget.h). A start-up is START_UP_S until one
has been seen, then the longest seen (from the launch to the core's header, and from its
end line to the exit). A start-up longer than foreseen is what can carry the command past
its limit: a launch still running one start-up past it is stopped, and what it measured is
kept.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from commscope import ui
from commscope.errors import UsageError
from commscope.records.benchmarks import DEFAULT_TIME_LIMIT_S
from commscope.records.duration import format_duration

#: A launch's start-up and end (MPI_Init across a few hosts, the launcher's daemons, a loaded
#: machine) before one has been seen: the shortest limit is one of these.
START_UP_S = 10.0
#: The longest limit the core takes (a week).
LONGEST_S = 7 * 86400.0
#: The least the core is given to measure in: each point then runs its one iteration.
LEAST_CORE_S = 1.0
#: How the reason of a launch stopped at its time limit begins (not a timeout: never started again).
TIME_LIMIT_REACHED = "stopped at its time limit"


def checked_limit(seconds: float) -> float:
    """`seconds` when a command can plan to it; ValueError saying why not otherwise."""
    if seconds > LONGEST_S:
        raise ValueError("at most a week")
    if seconds <= START_UP_S:
        raise ValueError(
            f"shorter than one launch's start-up (about {format_duration(START_UP_S)}, before anything is "
            f"measured); give more than {START_UP_S:g}s"
        )
    return seconds


@dataclass
class TimeLimit:
    """The time of `launches` launches to come, started now; `said` names where the limit
    came from in the plan's line ("--time-limit 4m", "congestion's default")."""

    limit_s: float
    launches: int
    said: str
    begin: float = field(default_factory=time.monotonic)
    #: The longest start-up seen; None before a launch has ended.
    seen_start_up_s: float | None = None

    def __post_init__(self) -> None:
        if self.launches * self.start_up_s >= self.limit_s:
            raise UsageError(
                f"{self.said}: {self.launches} launches need about {format_duration(self.launches * self.start_up_s)} "
                "to start alone; give a longer limit or fewer benchmarks"
            )

    @property
    def start_up_s(self) -> float:
        return START_UP_S if self.seen_start_up_s is None else self.seen_start_up_s

    @property
    def plan_line(self) -> str:
        """What the command says before it starts: "about 4 min (--time-limit 4m)"."""
        return f"about {format_duration(self.limit_s)} ({self.said}; each point's iterations sized to it)"

    def left_s(self) -> float:
        return self.limit_s - (time.monotonic() - self.begin)

    def core_args(self) -> list[str]:
        """The next launch's `--time-limit`: its share of the time left, less its start-up and
        those of the launches after it (the core counts from its MPI_Init)."""
        ahead = max(self.launches, 1)
        share = (self.left_s() - ahead * self.start_up_s) / ahead
        return ["--time-limit", f"{max(share, LEAST_CORE_S):.3f}"]

    def passed(self) -> str | None:
        """Why the launch now running must stop: it is one start-up past the limit."""
        if time.monotonic() - self.begin <= self.limit_s + self.start_up_s:
            return None
        said = self.said.split(";")[0]
        return f"{TIME_LIMIT_REACHED} ({said}, and one start-up of {self.start_up_s:g} s past it)"

    def launched(self, start_up_s: float | None) -> None:
        """A launch ended: one fewer to come; its start-up and end, where seen, learned."""
        self.launches = max(self.launches - 1, 0)
        if start_up_s is not None:
            self.seen_start_up_s = max(self.seen_start_up_s or 0.0, start_up_s)

    def again(self) -> None:
        """A launch is started once more (it failed at start): one more to come."""
        self.launches += 1


class RunLimits:
    """The time limits of `commscope run`'s launches: --time-limit shared by all of them, or
    else a benchmark's own default (DEFAULT_TIME_LIMIT_S) for each launch of it alone."""

    def __init__(self, limit_s: float | None, launches: int) -> None:
        self.shared = TimeLimit(limit_s, launches, f"--time-limit {format_duration(limit_s)}") if limit_s else None

    def plan_line(self) -> str | None:
        return f"{self.shared.launches} launch(es), {self.shared.plan_line}" if self.shared else None

    def of(self, benchmark: str) -> TimeLimit | None:
        """The limit of the next launch of `benchmark` (a default one says its plan now)."""
        if self.shared is not None or benchmark not in DEFAULT_TIME_LIMIT_S:
            return self.shared
        own = DEFAULT_TIME_LIMIT_S[benchmark]
        limit = TimeLimit(own, 1, f"{benchmark}'s default; --time-limit sets another")
        ui.note(f"{benchmark}: {limit.plan_line}")
        return limit
