"""The report's "Hosts over time": every host's slowdown in each reported sweep as a heatmap
(hosts by sweeps, the drifting hosts first, their change points marked) beside the table of
the hosts `history --hosts` names (analysis.host_history, judged in kinds/report.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from commscope.analysis.host_history import SubjectHistory
from commscope.output import plot
from commscope.output.host_history import drift_table, headline
from commscope.output.report.table import Table

#: Rows of the heatmap: the named hosts, then the lowest p-values, up to this many.
MAX_ROWS = 60
#: The colour scale's ends, log2 of the slowdown: 23 % slower or faster; beyond, as far as
#: the scale goes (one contended night would otherwise leave every drift pale).
_LIMIT = 0.3
CHANGES_GID = "hosts-changes"


@dataclass
class HostsOverTime:
    title: str
    summary: str
    figure_svg: bytes
    table: Table  # the hosts named; no rows when none drifted
    shown: str  # which hosts the figure holds
    regressed: bool


def _rows(history: SubjectHistory) -> list[int]:
    """The rows the figure shows: the named ones in their order, then the others by p-value."""
    found = history.matrix
    named = [found.row(series.subject) for series in history.series]
    rest = np.argsort(history.test.p, kind="stable") if history.test is not None else np.arange(len(found.names))
    chosen = named + [int(row) for row in rest if int(row) not in set(named)]
    return chosen[:MAX_ROWS]


def figure(history: SubjectHistory, rows: list[int]):
    """A matplotlib Figure: a cell per host and sweep, coloured by log2 of its slowdown
    (red slower, blue faster, white where not measured), a black tick where a named host's
    newest level begins."""

    found = history.matrix
    values = np.log2(found.values[rows])
    n, sweeps = len(rows), len(found.runs)
    fig = Figure(figsize=(min(4.5 + 0.25 * sweeps, 14), min(2.5 + 0.18 * n, 14)))
    axis = fig.add_subplot()
    mesh = axis.pcolormesh(np.ma.masked_invalid(values), cmap="RdBu_r", vmin=-_LIMIT, vmax=_LIMIT)
    axis.set_xlim(0, sweeps)
    axis.set_ylim(n, 0)
    fig.colorbar(
        mesh, ax=axis, label=f"log2 of the {found.metric} slowdown against the sweep's healthy pair", extend="both"
    )
    axis.set_yticks([row + 0.5 for row in range(n)], [found.names[row] for row in rows], fontsize=max(4, 9 - n // 15))
    axis.set_xticks([column + 0.5 for column in range(sweeps)], [str(run.id) for run in found.runs], fontsize=7)
    axis.set_xlabel("sweep (run id), oldest first")
    index = {run.id: column for column, run in enumerate(found.runs)}
    marks = [
        [(index[series.changes[-1].after.id], position), (index[series.changes[-1].after.id], position + 1)]
        for position, row in enumerate(rows)
        for series in history.series
        if found.names[row] == series.subject and series.changes
    ]
    if marks:
        lines = LineCollection(marks, colors="black", linewidths=2.5)
        lines.set_gid(CHANGES_GID)
        axis.add_collection(lines)
    axis.set_title(f"{found.what}s over time; a black bar where a drift began", fontsize=10)
    fig.tight_layout()
    return fig


def hosts_over_time(history: SubjectHistory | None) -> HostsOverTime | None:
    """The section, or None without a history (fewer than two sweeps of hosts)."""
    if history is None:
        return None
    rows = _rows(history)
    found = history.matrix
    shown = f"all {len(found.names)} {found.what}s"
    if len(rows) < len(found.names):
        shown = f"the {len(rows)} of {len(found.names)} {found.what}s with the lowest p-values, the named first"
    table = drift_table(history)
    return HostsOverTime(
        f"{found.what.capitalize()}s over time",
        headline(history),
        plot.render(figure(history, rows), "svg"),
        Table(table.headings(), table.texts() if history.series else [], table.caption),
        shown,
        bool(history.regressed),
    )
