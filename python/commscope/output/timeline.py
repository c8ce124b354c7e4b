"""A series over time as a figure: a dot per run, each level's median as a line across its
runs, and a vertical line at each change point (red where worse, green where better) with
what changed written beside it."""

from __future__ import annotations

from datetime import datetime

import matplotlib
from matplotlib.figure import Figure

from commscope.analysis.history import Series
from commscope.output.history import difference_text
from commscope.output.plot import figure_style
from commscope.records.metrics import direction_text, metric_title

#: The differences written beside a change point; the table below the figure has them all.
_SHOWN_DIFFERENCES = 2
#: Values spanning more than this factor get a logarithmic axis.
_LOG_SPAN = 10


def _times(series: Series) -> list[datetime] | list[int]:
    """Each run's start time, or its place in the series where some run has none."""
    started = [sample.run.started_at for sample in series.samples]
    try:
        return [datetime.fromisoformat(text.replace("Z", "+00:00")) for text in started]
    except (AttributeError, ValueError):
        return list(range(1, len(started) + 1))


def figure(series: Series) -> Figure:
    with matplotlib.rc_context(figure_style()):
        return _figure(series)


def _figure(series: Series) -> Figure:
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    axis = fig.subplots()
    times = _times(series)
    values = [sample.value for sample in series.samples]
    axis.plot(times, values, linestyle="none", marker="o", markersize=3, color="tab:blue", label="run")
    for level in series.levels:
        axis.plot(
            [times[level.start], times[level.end - 1]], [level.median] * 2, color="black", linewidth=1.5, label=None
        )
    for point in series.changes:
        colour = "tab:red" if point.change.worse else "tab:green"
        axis.axvline(times[point.change.index], color=colour, linestyle="--", linewidth=1)
        ratio = point.change.ratio
        lines = [f"x{ratio:.2f}" if ratio is not None else "changed"]
        lines += [difference_text(found) for found in point.differences[:_SHOWN_DIFFERENCES]]
        if len(point.differences) > _SHOWN_DIFFERENCES:
            lines.append(f"+{len(point.differences) - _SHOWN_DIFFERENCES} more")
        axis.annotate(
            "\n".join(lines),
            (times[point.change.index], 1),
            xycoords=("data", "axes fraction"),
            xytext=(4, -4),
            textcoords="offset points",
            va="top",
            fontsize=7,
            color=colour,
        )
    positive = [value for value in values if value > 0]
    if positive and max(positive) / min(positive) > _LOG_SPAN:
        axis.set_yscale("log")
    axis.set_ylabel(metric_title(series.metric))
    axis.set_xlabel("run start (UTC)" if isinstance(times[0], datetime) else "run, in order")
    axis.grid(True, alpha=0.3)
    axis.set_title(f"{series.name}, {direction_text(series.metric)}", fontsize=10)
    for label in axis.get_xticklabels():
        label.set_rotation(30)
    return fig
