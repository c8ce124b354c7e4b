"""What a reader of a report should distrust: unstable points, oversubscribed hosts,
runs that did not complete, comparisons of unlike set-ups."""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence

from commscope.records.text import format_size
from commscope.records.run import Run
from commscope.analysis.stats import stability

#: A point is unstable when its 95 % confidence interval is wider than this share
#: of its mean...
CI_WIDTH_LIMIT = 0.10
#: ...or its samples' coefficient of variation exceeds this.
CV_LIMIT = 0.25
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


def unstable(run: Run) -> str | None:
    flagged = []
    for point in run.points:
        measure = stability(point)
        if (measure.ci_width or 0) > CI_WIDTH_LIMIT or (measure.cv or 0) > CV_LIMIT:
            flagged.append(f"{format_size(point.size)} (CI {100 * (measure.ci_width or 0):.0f}% of the mean, "
                           f"CV {100 * (measure.cv or 0):.0f}%)")
    if not flagged:
        return None
    more = f" and {len(flagged) - _LISTED} more" if len(flagged) > _LISTED else ""
    return (f"{_name(run)}: {len(flagged)} unstable size(s), with a 95% confidence interval wider than "
            f"{100 * CI_WIDTH_LIMIT:g}% of the mean or a coefficient of variation above {100 * CV_LIMIT:g}%: "
            f"{'; '.join(flagged[:_LISTED])}{more}")


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
    return (f"the {benchmark} runs compared used different numbers of ranks "
            f"({', '.join(str(r) for r in sorted(ranks))}); their numbers are not like for like")


def for_runs(runs: Sequence[Run]) -> list[str]:
    """Every warning about the runs, run by run."""
    found = []
    for run in runs:
        found += [text for text in (incomplete(run), oversubscribed(run), unstable(run)) if text]
    return found
