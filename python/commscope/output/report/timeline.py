"""The report's timelines: each headline series of the reported runs over time (runs of
one benchmark, system and label), its change points marked on the figure and explained
in a table beside it."""

from __future__ import annotations

from dataclasses import dataclass

from commscope.analysis.history import History
from commscope.output import plot
from commscope.output.history import changes_table, summary
from commscope.output.report.table import Table
from commscope.output.timeline import figure


@dataclass
class Timeline:
    title: str
    summary: str
    figure_svg: bytes
    changes: Table  # no rows where the series kept its level
    regressed: bool


def timelines(found: History | None) -> list[Timeline]:
    """A timeline per headline series with two runs or more; none without a history (the
    runs made no series: one run, metrics without a better direction)."""
    if found is None:
        return []
    made = []
    for series in found.series:
        if len(series.samples) < 2:
            continue
        changes = changes_table(series)
        made.append(
            Timeline(
                series.name,
                summary(series),
                plot.render(figure(series), "svg"),
                Table(changes.headings(), changes.texts() if series.changes else [], changes.caption),
                series.regressed,
            )
        )
    return made
