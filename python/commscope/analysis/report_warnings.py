"""What a reader of a report should distrust: unstable points, oversubscribed hosts,
runs that did not complete, comparisons of unlike set-ups."""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from commscope.analysis.stats import stability
from commscope.records.run import Run
from commscope.records.text import format_size

#: A point is unstable when its 95 % confidence interval is wider than this share
#: of its mean...
CI_WIDTH_LIMIT = 0.10
#: ...or its samples' coefficient of variation exceeds this.
CV_LIMIT = 0.25
#: Spreads of the time per operation (µs) at or below this are the clock's and the timed
#: loop's, not the machine's: a sample is a batch read with a clock of about a nanosecond
#: (clock_gettime under both MPIs' MPI_Wtime), but two reads and the loop around them
#: jitter by tens of nanoseconds, so a sub-microsecond latency whose interval is a few
#: nanoseconds wide is as steady as it can be measured, however large that is in percent.
RESOLUTION_US = 0.03
#: The clock tick (µs) a sample's resolution is at worst divided by its batch.
CLOCK_TICK_US = 0.001
# Keys under which a host record may carry its CPU count (none of the readers or
# the core write one yet; the local machine's count is used for its own name).
_CPU_KEYS = ("cpus", "cpu_count", "nproc")


def _name(run: Run) -> str:
    who = run.label or run.system
    return f"run {run.id} ({run.benchmark}{', ' + who if who else ''})"


def incomplete(run: Run) -> str | None:
    if run.status == "complete":
        return None
    return f"{_name(run)} is {run.status}" + (f": {run.status_reason}" if run.status_reason else "")


def resolution_us(point) -> float:
    """The spread (µs per operation) that a point's clock and loop cannot tell from zero."""
    return max(RESOLUTION_US, CLOCK_TICK_US / (point.batch or 1))


def is_unstable(point) -> bool:
    """Wide interval or large CV, by more than the clock's resolution."""
    measure, stats = stability(point), point.stats
    floor = resolution_us(point)
    half = (stats["ci95_high"] - stats["ci95_low"]) / 2 if measure.ci_width is not None else 0
    wide = (measure.ci_width or 0) > CI_WIDTH_LIMIT and half > floor
    scattered = (measure.cv or 0) > CV_LIMIT and (stats.get("stddev") or 0) > floor
    return wide or scattered


def advice(runs: Sequence[Run]) -> str:
    """What to do about numbers less certain than asked, said once for all the runs, most
    telling first."""
    steps = []
    for run in runs:
        binding = (run.provenance or {}).get("binding") or {}
        if binding.get("asked") == "none":
            steps.append(
                f"bind ranks to cores (run {run.id} was not: {binding.get('reason') or 'unbound'}; "
                "`commscope run --bind core`, with no more ranks than cores)"
            )
        if oversubscribed(run):
            steps.append("use no more ranks than CPUs")
    steps += [
        "measure longer (`-- --precision 2 --max-time 2`, or a larger -i)",
        "repeat the launch and compare medians (`commscope run --repeat 5`)",
        "run on a quieter machine (nothing else busy, no other jobs on the node)",
    ]
    if any(not (run.provenance or {}).get("binding") for run in runs):
        steps.insert(len(steps) - 1, "bind ranks to cores (`commscope run` does by default)")
    return "what helps: " + "; ".join(dict.fromkeys(steps))


@dataclass(frozen=True)
class OffTarget:
    """A run whose sizes are less certain than asked: a 95 % confidence interval or a
    spread beyond the limits above, or a --precision target not reached. The spread is
    said as the widest interval's half-width in % of the mean; the samples' coefficient of
    variation is left out: a sample is a batch of sub-microsecond operations, whose
    scatter in percent says more about the clock than about the machine."""

    run_id: int | None
    run: str  # benchmark and label
    count: int  # sizes off target
    total: int
    sizes: str  # "1 B .. 4 MiB"
    widest: str  # "±27% at 1 KiB", or "-" without sample statistics
    target: str  # the --precision target, "-" without one


def _half_width_pct(point) -> float | None:
    """The 95 % interval's half-width in % of the mean: what --precision measures."""
    reached = point.metrics.get("precision_achieved_pct")
    if isinstance(reached, (int, float)):
        return float(reached)
    width = stability(point).ci_width
    return 50 * width if width is not None else None


def off_target(run: Run) -> OffTarget | None:
    missed = [
        point
        for point in run.points
        if is_unstable(point) or point.metrics.get("precision_stop") not in (None, "target")
    ]
    if not missed:
        return None
    widths = [(width, point) for point in missed if (width := _half_width_pct(point)) is not None]
    widest = max(widths, key=lambda pair: pair[0], default=None)
    target = next((p.metrics["precision_target_pct"] for p in missed if "precision_target_pct" in p.metrics), None)
    who = run.label or run.system
    return OffTarget(
        run_id=run.id,
        run=run.benchmark + (f", {who}" if who else ""),
        count=len(missed),
        total=len(run.points),
        sizes=format_size(missed[0].size) + (f" .. {format_size(missed[-1].size)}" if len(missed) > 1 else ""),
        widest=f"±{widest[0]:.0f}% at {format_size(widest[1].size)}" if widest else "-",
        target=f"{target:g}%" if isinstance(target, (int, float)) else "-",
    )


def _cpu_count(host: dict) -> tuple[int | None, str]:
    for key in _CPU_KEYS:
        if isinstance(host.get(key), int):
            return host[key], "recorded"
    if host.get("name") and host["name"].split(".")[0] == socket.gethostname().split(".")[0]:
        return os.cpu_count(), "of this machine"
    return None, ""


def oversubscribed(run: Run) -> str | None:
    """Hosts that ran more ranks than they have CPUs, as far as the store knows them."""
    crowded = []
    for host in run.hosts or []:
        cpus, where = _cpu_count(host)
        ranks = len(host.get("ranks") or [])
        if cpus is not None and ranks > cpus:
            crowded.append(f"{host['name']} ran {ranks} ranks on {cpus} CPUs ({where})")
    if not crowded:
        return None
    return f"{_name(run)} is oversubscribed, so ranks competed for CPUs: {'; '.join(crowded)}"


def unlike(runs: Sequence[Run], benchmark: str) -> str | None:
    """Runs compared side by side that used different numbers of ranks."""
    ranks = {run.ranks for run in runs if run.ranks is not None}
    if len(ranks) <= 1:
        return None
    return (
        f"the {benchmark} runs compared used different numbers of ranks "
        f"({', '.join(str(r) for r in sorted(ranks))}); their numbers are not like for like"
    )


@dataclass
class Warnings:
    """The report's warnings: one line per run that did not complete or crowded its hosts,
    then one table of the runs with sizes off target and what helps, said once."""

    notes: list[str]
    off_target: list[OffTarget]
    advice: str | None

    def __bool__(self) -> bool:
        return bool(self.notes or self.off_target)

    @property
    def meaning(self) -> str:
        return OFF_TARGET_MEANING


#: What the table of sizes off target counts, said above it.
OFF_TARGET_MEANING = (
    f"Sizes whose numbers are less certain than asked: a 95% confidence interval wider than "
    f"{100 * CI_WIDTH_LIMIT:g}% of the mean, samples scattered by more than {100 * CV_LIMIT:g}% of it, "
    f"or a --precision target not reached (spreads under {1000 * RESOLUTION_US:g} ns per operation are "
    "the clock's and not counted). The widest interval is its half-width, in % of the mean."
)


def for_runs(runs: Sequence[Run]) -> Warnings:
    notes = [text for run in runs for text in (incomplete(run), oversubscribed(run)) if text]
    flagged = [(run, found) for run in runs if (found := off_target(run)) is not None]
    return Warnings(
        notes=notes,
        off_target=[found for _, found in flagged],
        advice=advice([run for run, _ in flagged]) if flagged else None,
    )
