"""A host's or link's history over stored sweeps (analysis.host_history) written out: one
series as `history` writes a benchmark's (levels, change points, what changed), and among
many the table of those named, as the terminal, Markdown, the report and JSON show them."""

from __future__ import annotations

import numpy as np

from commscope.analysis.drift import Q
from commscope.analysis.host_history import HOST, SubjectHistory, SubjectSeries
from commscope.output.export.json import json_text
from commscope.output.export.markdown import markdown_text
from commscope.output.export.table import Cell, Column, Table
from commscope.output.history import changes_table, levels_table, series_dict, when

#: How the multiple-testing rule is said wherever the named ones are shown.
METHOD = (
    "each one's values scored against its sweeps' population (median, MAD, clipped), its newest level "
    f"tested against the levels before (exact null over the sweeps' scores, Bonferroni over the places), "
    f"Benjamini-Hochberg at {100 * Q:g} % across them all"
)


def _plural(what: str) -> str:
    return "hosts" if what == HOST else "links"


def headline(history: SubjectHistory) -> str:
    """ "240 hosts over 12 sweeps (run 1 (2026-03-01 02:00) .. run 12 (...)), bw: 1 named" """
    found = history.matrix
    runs = found.runs
    span = f"{len(runs)} sweep(s)" + (f", {when(runs[0])} .. {when(runs[-1])}" if runs else "")
    named = len(history.series)
    return (
        f"{len(found.names)} {_plural(found.what)} over {span}, {found.metric} slowdown against each sweep's "
        f"healthy pair: {named} named as drifting"
    )


def drift_table(history: SubjectHistory) -> Table:
    """The named hosts or links: the drift, when it began, the levels either side, the test."""
    what = history.matrix.what
    columns = [
        Column(what, what.capitalize(), numeric=False),
        Column("sweeps", "Sweeps"),
        Column("before", "Level before"),
        Column("after", "Level now"),
        Column("drift", "Drift"),
        Column("began", "Began", numeric=False),
        Column("p", "p"),
        Column("newest", "Newest", numeric=False),
    ]
    rows = []
    for series in history.series:
        levels = series.levels
        ratio = series.drift
        began = series.changes[-1].after if series.changes else None
        rows.append(
            [
                Cell(series.subject),
                Cell(len(series.samples)),
                Cell(
                    levels[-2].median if len(levels) > 1 else None,
                    f"{levels[-2].median:.3f}" if len(levels) > 1 else "-",
                ),
                Cell(levels[-1].median, f"{levels[-1].median:.3f}"),
                Cell(ratio, f"x{ratio:.3f} ({100 * (ratio - 1):+.1f}%)"),
                Cell(began.id if began else None, when(began) if began else "-"),
                Cell(series.p, "-" if series.p is None else f"{series.p:.2g}"),
                Cell("worse" if series.regressed else "better"),
            ]
        )
    caption = f"slowdowns against each sweep's healthy pair (1: as healthy, 1.12: 12 % slower); {METHOD}"
    return Table(columns, rows, title=f"{_plural(what).capitalize()} named as drifting", caption=caption)


def named_lines(history: SubjectHistory) -> list[str]:
    """Below the table: each named one's drift in words."""
    lines = []
    for series in history.series:
        point = series.changes[-1]
        ratio = series.drift
        lines.append(
            f"  {series.what} {series.subject}: {100 * (ratio - 1):+.1f}% since {when(point.after)} "
            f"(last sweep before: {when(point.before)}), {'worse' if series.regressed else 'better'}"
        )
    return lines


def markdown(history: SubjectHistory) -> str:
    if history.test is None:
        tables = [levels_table(series) for series in history.series]
        tables += [changes_table(series) for series in history.series if series.changes]
        return markdown_text(tables)
    notes = "".join(f"{note}\n\n" for note in history.notes)
    return f"{headline(history)}\n\n{notes}" + markdown_text([drift_table(history)])


def _named_dict(series: SubjectSeries) -> dict:
    began = series.changes[-1].after if series.changes else None
    return {
        **series_dict(series),
        series.what: series.subject,
        "p": series.p,
        "drift_ratio": series.drift,
        "began_run": began.id if began else None,
        "began_at": began.started_at if began else None,
    }


def to_json(history: SubjectHistory) -> str:
    """The history as JSON ("commscope-host-history", version 1): the series shown and,
    among many, every host's or link's change test."""
    found = history.matrix
    document = {
        "format": "commscope-host-history",
        "version": 1,
        "what": found.what,
        "metric": found.metric,
        "tolerance": history.policy.tolerance,
        "sweeps": [{"id": run.id, "started_at": run.started_at, "label": run.label} for run in found.runs],
        "regressed": bool(history.regressed),
        "notes": history.notes,
        "series": [_named_dict(series) for series in history.series],
    }
    if history.test is not None:
        document["method"] = METHOD
        document["false_discovery_rate"] = Q
        document["tested"] = [
            {found.what: name, "sweeps": int(count), "p": float(p), "kept": bool(kept)}
            for name, count, p, kept in zip(
                found.names, (~np.isnan(found.values)).sum(axis=1), history.test.p, history.test.kept
            )
        ]
    return json_text(document)
