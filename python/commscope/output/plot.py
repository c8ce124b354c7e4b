"""`commscope plot`: one figure of one metric over message size, a line per run.

The x axis is the message size on a log2 scale with byte labels (1 B ... 4 MiB);
the y axis is logarithmic, since latencies and bandwidths span decades. Each
line has a band: the 95 % confidence interval (default) or the fastest and
slowest sample, where the store has them. With a reference run, a second panel
shows every other run's ratio to it, the tolerance band, and the sizes that
fall outside it in the bad direction. Size 0 has no place on a log axis and is
left out.
"""

from __future__ import annotations

import io
import math
import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, never a window; also safe without a display

from matplotlib import font_manager, ticker  # noqa: E402  (after the backend is chosen)
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.backends.backend_svg import FigureCanvasSVG  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from commscope.analysis.check import DEFAULT_TOLERANCE, default_floor, excess  # noqa: E402
from commscope.analysis.compare import column_names, common_metric, points_by_key, varying_axes
from commscope.analysis.stats import band as point_band  # noqa: E402
from commscope.errors import UsageError  # noqa: E402
from commscope.records.metrics import direction_text, higher_is_worse, metric_title
from commscope.records.run import Axes, Point, Run  # noqa: E402
from commscope.records.text import format_size

FORMATS = ("png", "svg")
#: Fonts tried after DejaVu Sans for characters it lacks (labels in Chinese, Japanese,
#: Korean, as on SJTU's OSU page), where installed: Debian's fonts-droid-fallback or fonts-noto-cjk.
FALLBACK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "WenQuanYi Zen Hei", "Droid Sans Fallback")
_MAX_SIZE_LABELS = 12
#: More lines than this get no legend: it would cover the plot and name nothing one can
#: find in it, and placing it is the slowest part of drawing hundreds of runs. The table
#: beside the figure (compare, report) names every run.
MAX_LEGEND_LINES = 16
_DPI = 120
# Reproducible SVG output: no creation date, fixed ids.
_SVG_METADATA = {"Date": None}
#: matplotlib's log axis label, "$\mathdefault{2\times10^{-3}}$", in its parts.
_MATH_LABEL = re.compile(r"\$\\mathdefault\{(?:(.*)\\times)?(.*?)(?:\^\{(.*)\})?\}\$")
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def figure_style() -> dict:
    """rc settings of every figure: the font list with whatever fallback fonts exist, and
    SVG text as <text> (searchable, a quarter smaller, quicker to write) in those fonts or
    the browser's sans-serif, rather than each glyph drawn as a path. "sans-serif" is
    DejaVu Sans alone, so the figure is measured in the same font either way."""
    installed = {entry.name for entry in font_manager.fontManager.ttflist}
    return {
        "font.family": ["DejaVu Sans", *(name for name in FALLBACK_FONTS if name in installed), "sans-serif"],
        "font.sans-serif": ["DejaVu Sans"],
        "svg.fonttype": "none",
        "svg.hashsalt": "commscope",
        # Run names and labels are shown as written: "$5 to $10" is not a formula.
        "text.parse_math": False,
    }


class PowerLabels(ticker.LogFormatterSciNotation):
    """A log axis's labels as plain text, "10³" and "2×10⁻¹", in the figure's font: matplotlib
    still decides which ticks get a label and what it says, but writes it as a mathtext
    formula, which costs a parse per label and per layout pass (a tenth of a second per report
    figure) and in SVG a separate text element and font per glyph."""

    def __call__(self, x, pos=None) -> str:
        label = super().__call__(x, pos)
        match = _MATH_LABEL.fullmatch(label)
        if match is None:
            return label
        coefficient, base, exponent = match.groups()
        power = base if exponent is None else base + exponent.translate(_SUPERSCRIPT)
        return power if coefficient is None else f"{coefficient}×{power}"


def log_scale(axis) -> None:
    """A y axis on a log scale with labels in plain text (PowerLabels)."""
    axis.set_yscale("log")
    axis.yaxis.set_major_formatter(PowerLabels())
    # as matplotlib's log scale sets them: the minor ticks are labelled where few decades show
    axis.yaxis.set_minor_formatter(PowerLabels(labelOnlyBase=False))


def _size_ticks(axis, sizes: Sequence[int]) -> None:
    """Ticks at powers of two, labelled 1 B, 64 KiB, ...: every one, or every 2nd, 4th...
    so that at most a dozen labels fit under the plot."""
    low, high = int(math.log2(min(sizes))), math.ceil(math.log2(max(sizes)))
    step = 1
    while (high - low) // step + 1 > _MAX_SIZE_LABELS:
        step *= 2
    axis.set_xscale("log", base=2)
    axis.xaxis.set_major_locator(ticker.FixedLocator([2**e for e in range(low, high + 1, step)]))
    axis.xaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: format_size(int(round(value)))))
    axis.xaxis.set_minor_locator(ticker.NullLocator())


#: What tells a run's lines apart: the window (None unless the run varies it at one size)
#: and the combination of the sweep axes that vary among the runs plotted.
Line = tuple[int | None, Axes]


def _lines(run: Run, metric: str, axes: tuple[str, ...]) -> dict[Line, list[tuple[int, float, Point]]]:
    """A run's points with a positive size, as one line per window and axis combination."""
    lines: dict[Line, list] = {}
    for (size, window, combination, _pair), point in points_by_key(run, axes).items():
        value = point.metrics.get(metric)
        if size and isinstance(value, (int, float)) and value > 0:
            lines.setdefault((window, combination), []).append((size, value, point))
    return {line: sorted(points, key=lambda item: item[0]) for line, points in lines.items()}


def _line_label(name: str, line: Line) -> str:
    window, combination = line
    return " ".join(part for part in (name, combination.label(), None if window is None else f"w{window}") if part)


def figure(
    runs: Sequence[Run],
    metric: str | None = None,
    *,
    band: str = "ci",
    ratio_to: Run | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    floor: float | None = None,
    title: str | None = None,
) -> Figure:
    """The figure of `runs` (and `ratio_to`, drawn first as the reference)."""
    with matplotlib.rc_context(figure_style()):
        return _figure(runs, metric, band, ratio_to, tolerance, floor, title)


def _figure(runs, metric, band, ratio_to, tolerance, floor, title) -> Figure:
    runs = list(runs)
    if ratio_to is not None:
        runs = [ratio_to, *[run for run in runs if run.id != ratio_to.id]]
    metric = common_metric(runs, metric)
    names = column_names(runs)
    axes = varying_axes(runs)
    with_ratio = ratio_to is not None and len(runs) > 1
    fig = Figure(figsize=(9, 6.5 if with_ratio else 5), layout="constrained")
    if with_ratio:
        top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[3, 1.5])
    else:
        top, bottom = fig.subplots(), None
    all_sizes, colours, banded = [], {}, False
    drawn = [(run, name, *line) for run, name in zip(runs, names) for line in _lines(run, metric, axes).items()]
    # Markers on a crowded figure hide the lines and cost most of its drawing time; without
    # them its lines are one collection (a line object each made hundreds slow to draw),
    # each in the colour the axes' colour cycle would have given its own line.
    collected = len(runs) > MAX_LEGEND_LINES
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    segments, segment_colours = [], []
    for run, name, key, points in drawn:
        sizes = [size for size, _, _ in points]
        values = [value for _, value, _ in points]
        all_sizes += sizes
        if collected:
            colour = cycle[len(segments) % len(cycle)]
            segments.append(list(zip(sizes, values)))
            segment_colours.append(colour)
        else:
            (line,) = top.plot(sizes, values, linewidth=1.5, label=_line_label(name, key), marker="o", markersize=3)
            colour = line.get_color()
        colours[(run.id, key)] = colour
        bands = [point_band(point, metric, band) for _, _, point in points] if band != "none" else []
        if bands and all(bands):
            top.fill_between(sizes, [b[0] for b in bands], [b[1] for b in bands], color=colour, alpha=0.2, linewidth=0)
            banded = True
    if not all_sizes:
        raise UsageError(f"nothing to plot: no run has {metric} at a size above 0")
    if segments:
        top.add_collection(LineCollection(segments, colors=segment_colours, linewidths=1.5), autolim=True)
        top.autoscale_view()
    crowded = len(drawn) > MAX_LEGEND_LINES
    log_scale(top)
    top.set_ylabel(metric_title(metric))
    top.grid(True, which="major", alpha=0.3)
    top.grid(True, which="minor", axis="y", alpha=0.1)
    benchmarks = ", ".join(dict.fromkeys(run.benchmark for run in runs))
    band_note = {"ci": "bands: 95% CI", "minmax": "bands: min-max", "none": ""}[band] if banded else ""
    crowd_note = f"{len(drawn)} lines, no legend" if crowded else ""
    notes = "; ".join(note for note in (band_note, crowd_note) if note)
    top.set_title(
        title or f"{benchmarks}: {metric_title(metric)}, {direction_text(metric)}" + (f"; {notes}" if notes else ""),
        fontsize=11,
    )
    if not crowded:
        top.legend(fontsize=9, loc="best")
    axis = top
    if with_ratio:
        _ratio_panel(
            bottom, runs, names, metric, axes, colours, tolerance, default_floor(metric) if floor is None else floor
        )
        axis = bottom
    _size_ticks(top, all_sizes)
    axis.set_xlabel("message size")
    # tick_params, not get_xticklabels(): asking for the labels makes the ticks before the
    # figure is laid out, and drawing makes them again
    axis.tick_params(axis="x", labelrotation=30)
    return fig


def _ratio_panel(
    axis,
    runs: Sequence[Run],
    names: Sequence[str],
    metric: str,
    axes: tuple[str, ...],
    colours: dict,
    tolerance: float,
    floor: float,
) -> None:
    reference = {
        (size, line): value for line, points in _lines(runs[0], metric, axes).items() for size, value, _ in points
    }
    worse = higher_is_worse(metric)
    axis.axhline(1.0, color="black", linewidth=0.8)
    axis.axhspan(1 - tolerance, 1 + tolerance, color="tab:green", alpha=0.12, label=f"±{100 * tolerance:g}% tolerance")
    failing_shown = False
    for run, name in zip(runs[1:], names[1:]):
        for line, points in _lines(run, metric, axes).items():
            pairs = [(size, value, reference[(size, line)]) for size, value, _ in points if (size, line) in reference]
            if not pairs:
                continue
            sizes = [size for size, _, _ in pairs]
            axis.plot(
                sizes,
                [value / base for _, value, base in pairs],
                marker="o",
                markersize=3,
                color=colours[(run.id, line)],
                label=f"{_line_label(name, line)} / {names[0]}",
            )
            if worse is None:
                continue
            bad = [
                (size, value / base) for size, value, base in pairs if excess(base, value, worse, tolerance, floor) > 0
            ]
            if bad:
                axis.scatter(
                    [size for size, _ in bad],
                    [ratio for _, ratio in bad],
                    marker="x",
                    s=50,
                    color="tab:red",
                    zorder=5,
                    label=None if failing_shown else "outside tolerance",
                )
                failing_shown = True
    axis.set_ylabel(f"ratio to {names[0]}" if len(names[0]) <= 24 else "ratio to reference")
    axis.grid(True, alpha=0.3)
    if len(axis.get_lines()) <= MAX_LEGEND_LINES:
        axis.legend(fontsize=8, loc="best")


def render(fig: Figure, fmt: str) -> bytes:
    """The figure as PNG or SVG bytes."""
    buffer = io.BytesIO()
    with matplotlib.rc_context(figure_style()), warnings.catch_warnings():
        # Characters no installed font has are drawn as boxes; saying so per glyph is noise.
        warnings.filterwarnings("ignore", message="Glyph .* missing from font", category=UserWarning)
        _place_once(fig, fmt, _DPI)
        fig.savefig(buffer, format=fmt, dpi=_DPI, metadata=_SVG_METADATA if fmt == "svg" else None)
    return buffer.getvalue()


def _place_once(fig: Figure, fmt: str, dpi: int) -> None:
    """Lay the figure out once, measuring its text as the file will have it, and save it
    without its layout engine: with one, savefig draws the whole figure twice, once with
    the output thrown away only to lay it out, and once to write it."""
    engine = fig.get_layout_engine()
    if engine is None:
        return
    (FigureCanvasSVG if fmt == "svg" else FigureCanvasAgg)(fig)
    fig.set_dpi(dpi)
    engine.execute(fig)
    fig.set_layout_engine(None)


def format_of(path: Path) -> str:
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise UsageError(f"cannot tell the figure format of {str(path)!r}: name it .png or .svg")
    return fmt
