"""How a sweep looks: the pair table (source, destination, bandwidth, latency, flag) in
the layout of the one-host-to-every-node tables people make from OMB runs, and an
N x N heatmap per metric (block means beyond MAX_HEATMAP_HOSTS hosts)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from commscope.analysis.sweep import UNIT, Flag, SweepMatrix

COLUMNS = (("bw", "Bandwidth (MB/s)"), ("bibw", "Bi-BW (MB/s)"), ("latency", "Latency (us)"))
#: A heatmap cell per host up to this many hosts; beyond, per block of hosts (their mean).
MAX_HEATMAP_HOSTS = 64


def flag_text(i: int, j: int, flags: Sequence[Flag], labels: Sequence[str]) -> str:
    notes = []
    for flag in flags:
        if flag.kind == "node" and flag.where[0] in (i, j):
            notes.append(f"bad node {labels[flag.where[0]]} ({flag.metric})")
        elif flag.kind == "link" and set(flag.where) == {i, j}:
            notes.append(f"bad link ({flag.metric})")
    return "; ".join(dict.fromkeys(notes))


def sweep_table(matrix: SweepMatrix, flags: Sequence[Flag]) -> str:
    """Every measured pair, one line each, flagged pairs marked."""
    labels = matrix.labels
    columns = [(metric, title) for metric, title in COLUMNS if metric in matrix.values]
    width = max([len("Destination"), *map(len, labels)]) + 2
    lines = [
        "Source".ljust(width)
        + "| "
        + "Destination".ljust(width)
        + "".join(f"| {title:>17} " for _, title in columns)
        + "| Flag",
        "-" * width + "|-" + "-" * width + "".join("|" + "-" * 19 for _ in columns) + "|-----",
    ]
    n = matrix.n
    for i in range(n):
        for j in range(i + 1, n):
            cells = [matrix.values[metric][i, j] for metric, _ in columns]
            if all(np.isnan(cell) for cell in cells):
                continue
            values = "".join(f"| {'-' if np.isnan(cell) else f'{cell:.2f}':>17} " for cell in cells)
            lines.append(f"{labels[i]:<{width}}| {labels[j]:<{width}}{values}| {flag_text(i, j, flags, labels)}")
    return "\n".join(lines) + "\n"


def _blocks(values: np.ndarray, labels: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Block means when there are more hosts than a heatmap can show one by one."""
    n = values.shape[0]
    if n <= MAX_HEATMAP_HOSTS:
        return values, list(labels)
    size = -(-n // MAX_HEATMAP_HOSTS)
    count = -(-n // size)
    padded = np.full((count * size, count * size), np.nan, dtype=np.float64)
    padded[:n, :n] = values
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN block stays NaN
        means = np.nanmean(padded.reshape(count, size, count, size), axis=(1, 3))
    names = [f"{labels[b * size]}..{labels[min(n, (b + 1) * size) - 1]}" for b in range(count)]
    return means, names


def heatmap(matrix: SweepMatrix, metric: str, flags: Sequence[Flag] = ()):
    """A matplotlib Figure: pairs' values, bad nodes' and links' cells outlined."""
    from matplotlib.figure import Figure

    values, names = _blocks(matrix.values[metric], matrix.labels)
    n = len(names)
    fig = Figure(figsize=(min(3 + 0.25 * n, 18), min(2.5 + 0.25 * n, 16)))
    axis = fig.add_subplot()
    cmap = "viridis_r" if metric == "latency" else "viridis"
    image = axis.imshow(np.ma.masked_invalid(values), cmap=cmap, interpolation="nearest")
    fig.colorbar(image, ax=axis, label=f"{metric} ({UNIT[metric]})")
    ticks = range(n)
    axis.set_xticks(ticks, names, rotation=90, fontsize=max(4, 10 - n // 10))
    axis.set_yticks(ticks, names, fontsize=max(4, 10 - n // 10))
    aggregated = n < matrix.n
    axis.set_title(f"{metric} per pair" + (f" (means of blocks of hosts, {matrix.n} hosts)" if aggregated else ""))
    if not aggregated:
        for flag in flags:
            if flag.metric != metric:
                continue
            cells = [(flag.where[0], j) for j in range(n)] if flag.kind == "node" else [flag.where, flag.where[::-1]]
            for i, j in cells:
                if i != j:
                    axis.add_patch(_outline(j, i))
    fig.tight_layout()
    return fig


def _outline(x: int, y: int):
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=1.5)


def heatmap_files(matrix: SweepMatrix, flags: Sequence[Flag], folder: Path) -> list[Path]:
    """One PNG per metric in `folder` (created); returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for metric in matrix.values:
        path = folder / f"sweep-{metric}.png"
        heatmap(matrix, metric, flags).savefig(path, dpi=110)
        paths.append(path)
    return paths
