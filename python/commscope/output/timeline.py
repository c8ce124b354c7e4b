"""A series over time as a figure: a dot per run, each level's median as a line across its
runs, and a dashed line at each change point (red where worse, green where better),
numbered above the plot with its ratio and the first thing that changed."""

from __future__ import annotations

from datetime import datetime

import matplotlib
from matplotlib.figure import Figure

from commscope.analysis.history import Series
from commscope.output.history import difference_text
from commscope.output.plot import figure_style, log_scale
from commscope.records.metrics import direction_text, metric_title

#: The differences written at a change point; the table below the figure has them all.
_SHOWN_DIFFERENCES = 1
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
    for number, point in enumerate(series.changes, start=1):
        colour = "tab:red" if point.change.worse else "tab:green"
        # halfway between the last run before and the first after: the change came between them
        at = times[point.change.index - 1] + (times[point.change.index] - times[point.change.index - 1]) / 2
        axis.axvline(at, color=colour, linestyle="--", linewidth=1)
        ratio = point.change.ratio
        text = [f"{number}: x{ratio:.2f}" if ratio is not None else f"{number}: changed"]
        text += [difference_text(found) for found in point.differences[:_SHOWN_DIFFERENCES]]
        if len(point.differences) > _SHOWN_DIFFERENCES:
            text.append(f"+{len(point.differences) - _SHOWN_DIFFERENCES} more")
        # above the plot, where no run's dot is hidden by it
        axis.annotate(
            ", ".join(text),
            (at, 1),
            xycoords=("data", "axes fraction"),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=7,
            color=colour,
        )
    positive = [value for value in values if value > 0]
    if positive and max(positive) / min(positive) > _LOG_SPAN:
        log_scale(axis)
    axis.set_ylabel(metric_title(series.metric))
    axis.set_xlabel("run start (UTC)" if isinstance(times[0], datetime) else "run, in order")
    axis.grid(True, alpha=0.3)
    axis.set_title(f"{series.name}, {direction_text(series.metric)}", fontsize=10, pad=16)
    axis.tick_params(axis="x", labelrotation=30)
    return fig
