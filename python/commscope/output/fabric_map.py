"""A locate sweep's fabric map, at any scale: every host a cell, leaf switch by leaf switch
(the hosts of a leaf in rows of at most ROW_CELLS), coloured by its value against the sweep
(the median of its pairs over the healthy pairs' median: half as fast is as red as twice as
fast is blue); named nodes outlined, a named switch's hosts framed, undecided hosts greyed
and undecided switches marked. One raster image and a few outlines, not an element per pair: the map of
10,000 hosts draws in a fraction of a second (performance/report/locate.py)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from commscope.analysis.locate_verdict import LocateVerdict
from commscope.analysis.sweep import HIGHER_IS_WORSE
from commscope.output.sweep_view import shown_labels

#: A leaf of more hosts than this is drawn in rows of this many.
ROW_CELLS = 64
#: Leaves named on the axis at most (every k-th beyond).
LEAF_TICKS = 40
#: Undecided hosts also get a cross each, up to this many.
MARKED = 200
#: The SVG element ids of what a reader (or a test) looks for.
HOSTS_GID, NAMED_GID, SWITCHES_GID, UNDECIDED_GID = "fabric-hosts", "named-hosts", "named-switches", "undecided"


def layout(verdict: LocateVerdict) -> tuple[np.ndarray, list[tuple[str, int, int]]]:
    """Each host's (row, column), and each leaf's (name, first row, rows); without a
    topology the hosts by rank in a square-ish block."""
    n = verdict.n
    groups = verdict.leaves or [("", list(range(n)))]
    widest = max(len(hosts) for _, hosts in groups)
    width = min(widest, ROW_CELLS) if verdict.leaves else min(max(int(math.ceil(math.sqrt(n))), 1), ROW_CELLS * 2)
    where = np.zeros((n, 2), dtype=np.int64)
    spans, row = [], 0
    for name, hosts in groups:
        rows = max(int(math.ceil(len(hosts) / width)), 1)
        for k, host in enumerate(hosts):
            where[host] = (row + k // width, k % width)
        spans.append((name, row, rows))
        row += rows
    return where, spans


def relative(verdict: LocateVerdict) -> np.ndarray:
    """Each host's value against the sweep's, log2 and signed so that slower is lower."""
    reference = verdict.reference.median if verdict.reference is not None else float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log2(np.asarray(verdict.host_values, dtype=np.float64) / reference)
    return -ratio if HIGHER_IS_WORSE[verdict.metric] else ratio


def fabric_map(verdict: LocateVerdict, labels: Sequence[str], title: str | None = None):
    """A matplotlib Figure of the fabric map."""
    from matplotlib.collections import PatchCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    where, spans = layout(verdict)
    rows = spans[-1][1] + spans[-1][2]
    width = int(where[:, 1].max()) + 1 if verdict.n else 1
    grid = np.full((rows, width), np.nan)
    grid[where[:, 0], where[:, 1]] = relative(verdict)
    fig = Figure(figsize=(min(4 + 0.12 * width, 14), min(2.5 + 0.12 * rows, 14)))
    fig.suppressComposite = True  # the map and the undecided shade stay two images, each with its id
    axis = fig.add_subplot()
    image = axis.imshow(
        np.ma.masked_invalid(grid), cmap="RdBu", vmin=-1, vmax=1, aspect="auto", interpolation="nearest"
    )
    image.set_gid(HOSTS_GID)
    colorbar = fig.colorbar(image, ax=axis, ticks=[-1, -0.5, 0, 0.5, 1])
    colorbar.ax.set_yticklabels(["½ or slower", "", "as the sweep", "", "2× or faster"])
    hosts = [node.host for node in verdict.bad_nodes]
    # a ring a few cells wide where cells are small, and the host's name beside it
    ring = max(1, min(rows, width) // 40)
    named = [
        Rectangle((where[h, 1] - 0.5 - ring + 1, where[h, 0] - 0.5 - ring + 1), 2 * ring - 1, 2 * ring - 1)
        for h in hosts
    ]
    if named:
        axis.add_collection(PatchCollection(named, facecolor="none", edgecolor="black", linewidth=2)).set_gid(NAMED_GID)
        for host in hosts[:MARKED]:
            axis.annotate(
                shown_labels([labels[host]])[0], (where[host, 1], where[host, 0]), xytext=(4, 4),
                textcoords="offset points", fontsize=7, fontweight="bold",
            )  # fmt: skip
    bad = {switch.switch for switch in verdict.bad_switches}
    framed = [Rectangle((-0.5, first - 0.5), width, count) for name, first, count in spans if name in bad]
    if framed:
        frames = PatchCollection(framed, facecolor="none", edgecolor="black", linewidth=2.5, linestyle="--")
        axis.add_collection(frames).set_gid(SWITCHES_GID)
    undecided = [*verdict.undecided, *verdict.unconfirmed]
    if undecided:
        # a raster of its own, greyed cells (thousands of markers would be an element each)
        shade = np.zeros((rows, width, 4))
        shade[where[undecided, 0], where[undecided, 1]] = (0.2, 0.2, 0.2, 0.6)
        axis.imshow(shade, aspect="auto", interpolation="nearest").set_gid(UNDECIDED_GID)
        if len(undecided) <= MARKED:
            axis.scatter(where[undecided, 1], where[undecided, 0], marker="x", color="white", s=10, linewidths=0.8)
    for _, first, _ in spans[1:]:
        axis.axhline(first - 0.5, color="white", linewidth=1)
    step = max(1, int(math.ceil(len(spans) / LEAF_TICKS)))
    if verdict.leaves:
        shown = spans[::step]
        undecided_switches = set(verdict.undecided_switches)
        axis.set_yticks(
            [first + (count - 1) / 2 for _, first, count in shown],
            [f"{name} (undecided)" if name in undecided_switches else name for name, _, _ in shown],
            fontsize=max(4, 9 - len(shown) // 10),
        )
    else:
        axis.set_yticks([])
    axis.set_xticks([])
    what = "by leaf switch" if verdict.leaves else "by rank"
    axis.set_title(
        title
        or f"{verdict.n:,} hosts {what}: each host's pairs against the sweep's median; named outlined, undecided grey",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def fabric_map_svg(verdict: LocateVerdict, labels: Sequence[str]) -> bytes:
    from commscope.output.plot import render

    return render(fabric_map(verdict, labels), "svg")
