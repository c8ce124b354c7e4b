"""What a reader of a report should distrust: unstable points, oversubscribed hosts,
runs that did not complete, comparisons of unlike set-ups."""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence

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
#: Unstable sizes named in one warning; the rest are counted.
_LISTED = 6
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


def advice(run: Run) -> str:
    """What to do about unstable numbers, most telling first for this run."""
    steps = []
    binding = (run.provenance or {}).get("binding") or {}
    if binding.get("asked") == "none":
        steps.append(
            f"bind ranks to cores (this run was not: {binding.get('reason') or 'unbound'}; "
            "`commscope run --bind core`, with no more ranks than cores)"
        )
    if oversubscribed(run):
        steps.append("use no more ranks than CPUs")
    steps += [
        "measure longer (`-- --precision 2 --max-time 2`, or a larger -i)",
        "repeat the launch and compare medians (`commscope run --repeat 5`)",
        "run on a quieter machine (nothing else busy, no other jobs on the node)",
    ]
    if not binding:
        steps.insert(2, "bind ranks to cores (`commscope run` does by default)")
    return "what helps: " + "; ".join(steps)


def unstable(run: Run) -> str | None:
    flagged = []
    for point in run.points:
        if is_unstable(point):
            measure = stability(point)
            flagged.append(
                f"{format_size(point.size)} (CI {100 * (measure.ci_width or 0):.0f}% of the mean, "
                f"CV {100 * (measure.cv or 0):.0f}%)"
            )
    if not flagged:
        return None
    more = f" and {len(flagged) - _LISTED} more" if len(flagged) > _LISTED else ""
    return (
        f"{_name(run)}: {len(flagged)} unstable size(s), with a 95% confidence interval wider than "
        f"{100 * CI_WIDTH_LIMIT:g}% of the mean or a coefficient of variation above {100 * CV_LIMIT:g}% "
        f"(spreads under {1000 * RESOLUTION_US:g} ns per operation are the clock's, not counted): "
        f"{'; '.join(flagged[:_LISTED])}{more}. {advice(run)}"
    )


def precision_missed(run: Run) -> str | None:
    """Sizes measured with --precision that ran out of time (or samples) before the target."""
    missed = [point for point in run.points if point.metrics.get("precision_stop") not in (None, "target")]
    if not missed:
        return None
    target = missed[0].metrics.get("precision_target_pct")
    listed = [
        f"{format_size(p.size)} ({p.metrics['precision_achieved_pct']:.1f}%)"
        if isinstance(p.metrics.get("precision_achieved_pct"), (int, float))
        else format_size(p.size)
        for p in missed[:_LISTED]
    ]
    more = f" and {len(missed) - _LISTED} more" if len(missed) > _LISTED else ""
    return (
        f"{_name(run)}: {len(missed)} of {len(run.points)} size(s) did not reach the --precision target "
        f"of {target:g}% before --max-time: {'; '.join(listed)}{more}. {advice(run)}"
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


def for_runs(runs: Sequence[Run]) -> list[str]:
    """Every warning about the runs, run by run."""
    found = []
    for run in runs:
        found += [text for text in (incomplete(run), oversubscribed(run), unstable(run), precision_missed(run)) if text]
    return found
