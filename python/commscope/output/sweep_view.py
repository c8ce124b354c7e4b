"""How a sweep looks: the pair table (source, destination, bandwidth, latency, flag) in
the layout of the one-host-to-every-node tables people make from OMB runs, the flags
and the pairs cleared as contention as rows, the core pairs of an intra sweep grouped by
relation, and an N x N heatmap per metric (block means beyond MAX_HEATMAP_HOSTS hosts).
`commscope sweep` prints these as text; the report and `plot` show the same rows and
figures of a stored sweep."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from commscope.analysis.bad_nodes import NodeFinding
from commscope.analysis.sweep import UNIT, Cleared, Flag, SweepMatrix, number
from commscope.analysis.sweep_fabric import SwitchFlag
from commscope.analysis.sweep_intra import intra_groups
from commscope.analysis.sweep_verdicts import SweepJudgement
from commscope.errors import UsageError
from commscope.records.core_paths import Cpu, relation
from commscope.records.run import Run
from commscope.records.textsafe import one_line

COLUMNS = (("bw", "Bandwidth (MB/s)"), ("bibw", "Bi-BW (MB/s)"), ("latency", "Latency (us)"))
#: A heatmap cell per host up to this many hosts; beyond, per block of hosts (their mean),
#: and the report's pair table lists the flagged pairs only.
MAX_HEATMAP_HOSTS = 64
#: SVG ids of the heatmap's cells, of the outlines of flagged cells and of the lines between
#: leaf switches (tests count them).
CELLS_GID, FLAGGED_GID, LEAVES_GID = "heatmap-cells", "heatmap-flagged", "heatmap-leaves"
#: Hosts leaf by leaf in the topology's order: (leaf switch, host indices) (analysis/fabric.py).
Groups = Sequence[tuple[str, Sequence[int]]]


def shown_labels(labels: Sequence[str]) -> list[str]:
    """Host names as a terminal or table shows them: a host name is whatever a hostfile or
    the core said, and a control character in it (a newline, ESC) is shown as \\xNN."""
    return [one_line(label) for label in labels]


def flag_text(
    i: int, j: int, flags: Sequence[Flag], labels: Sequence[str], uplinks: Sequence[tuple[str, frozenset]] = ()
) -> str:
    """What a pair's row says of it: its bad node or link, or the bad uplink it crosses
    (`uplinks`: each bad switch's line and hosts)."""
    notes = [line for line, hosts in uplinks if (i in hosts) != (j in hosts)]
    for flag in flags:
        if flag.kind == "node" and flag.where[0] in (i, j):
            notes.append(f"bad node {labels[flag.where[0]]} ({flag.metric})")
        elif flag.kind == "link" and set(flag.where) == {i, j}:
            notes.append(f"bad link ({flag.metric})")
    return "; ".join(dict.fromkeys(notes))


def where_text(where: Sequence[int], labels: Sequence[str]) -> str:
    """A node's name, or a pair's as "a <-> b"."""
    return " <-> ".join(one_line(labels[i]) for i in where)


def with_unit(value: float | None, metric: str) -> str:
    return "-" if value is None else f"{number(value)} {UNIT[metric]}"


# -- rows -----------------------------------------------------------------------


def pair_rows(
    matrix: SweepMatrix, flags: Sequence[Flag], only_flagged: bool = False, switches: Sequence[SwitchFlag] = ()
) -> tuple[list[str], list[list[str]]]:
    """Header and one row per measured pair (source, destination, a value per metric with
    two decimals, flag: a pair across a bad switch's uplink says so); with `only_flagged`,
    the pairs of bad nodes and links only (a bad uplink's pairs are its hosts' times the
    rest: its row in the bad switches' table speaks for them)."""
    labels = shown_labels(matrix.labels)
    columns = [(metric, title) for metric, title in COLUMNS if metric in matrix.values]
    header = ["Source", "Destination", *(title for _, title in columns), "Flag"]
    uplinks = [(f"{switch_line(switch)} ({switch.metric})", frozenset(switch.hosts)) for switch in switches]
    rows = []
    for i in range(matrix.n):
        for j in range(i + 1, matrix.n):
            cells = [matrix.values[metric][i, j] for metric, _ in columns]
            if all(np.isnan(cell) for cell in cells):
                continue
            flag = flag_text(i, j, flags, labels)
            if only_flagged and not flag:
                continue
            if uplinks:
                flag = flag_text(i, j, flags, labels, uplinks)
            rows.append([labels[i], labels[j], *("-" if np.isnan(cell) else f"{cell:.2f}" for cell in cells), flag])
    return header, rows


def sweep_table(matrix: SweepMatrix, flags: Sequence[Flag], switches: Sequence[SwitchFlag] = ()) -> str:
    """Every measured pair, one line each, flagged pairs marked."""
    header, rows = pair_rows(matrix, flags, switches=switches)
    width = max([len("Destination"), *map(len, shown_labels(matrix.labels))]) + 2
    values = len(header) - 3
    lines = [
        f"{header[0]:<{width}}| {header[1]:<{width}}" + "".join(f"| {title:>17} " for title in header[2:-1]) + "| Flag",
        "-" * width + "|-" + "-" * width + "|-------------------" * values + "|-----",
    ]
    for row in rows:
        lines.append(
            f"{row[0]:<{width}}| {row[1]:<{width}}" + "".join(f"| {c:>17} " for c in row[2:-1]) + f"| {row[-1]}"
        )
    return "\n".join(lines) + "\n"


FLAG_HEADER = ["Kind", "Metric", "Where", "Value", "Population median", "Retest (alone)", "Evidence"]


def flag_rows(flags: Sequence[Flag], labels: Sequence[str]) -> list[list[str]]:
    """A row per flag: bad nodes first, then bad links."""
    ordered = sorted(flags, key=lambda flag: (flag.kind != "node", flag.where, flag.metric))
    return [
        [
            f"bad {flag.kind}",
            flag.metric,
            where_text(flag.where, labels),
            with_unit(flag.value, flag.metric),
            with_unit(flag.population_median, flag.metric),
            with_unit(flag.retest, flag.metric),
            flag.evidence(shown_labels(labels)),
        ]
        for flag in ordered
    ]


def flag_record(flag: Flag, labels: Sequence[str]) -> dict:
    """A flag as `commscope sweep --json` writes it."""
    return {
        "kind": flag.kind,
        "metric": flag.metric,
        "where": [labels[i] for i in flag.where],
        "value": flag.value,
        "population_median": flag.population_median,
        "retest": flag.retest,
        "evidence": flag.evidence(labels),
    }


SWITCH_HEADER = ["Switch", "Metric", "Hosts", "Across its uplink", "Inside it", "Retest (alone)", "Evidence"]


def switch_rows(switches: Sequence[SwitchFlag], labels: Sequence[str]) -> list[list[str]]:
    """A row per bad switch (a bad uplink): its hosts, its pairs across against inside."""
    return [
        [
            one_line(flag.switch),
            flag.metric,
            ", ".join(shown_labels([labels[i] for i in flag.hosts])),
            with_unit(flag.across, flag.metric),
            with_unit(flag.inside, flag.metric),
            with_unit(flag.retest, flag.metric),
            flag.evidence(),
        ]
        for flag in switches
    ]


def switch_record(flag: SwitchFlag, labels: Sequence[str]) -> dict:
    """A bad switch as `commscope sweep --json` writes it, under "bad_switches"."""
    return {
        "switch": flag.switch,
        "metric": flag.metric,
        "hosts": [labels[i] for i in flag.hosts],
        "across": flag.across,
        "across_pairs": flag.across_pairs,
        "across_slow": flag.across_slow,
        "inside": flag.inside,
        "inside_pairs": flag.inside_pairs,
        "reference": flag.reference,
        "retest": flag.retest,
        "alike": list(flag.alike),
        "evidence": flag.evidence(),
    }


def switch_line(flag: SwitchFlag) -> str:
    """A bad switch as the terminal and the report's summary name it."""
    also = f" (or {', '.join(one_line(name) for name in flag.alike)})" if flag.alike else ""
    return f"bad switch {one_line(flag.switch)}{also} uplink"


def verdict_lines(judgement: SweepJudgement) -> list[tuple[str, str]]:
    """The verdict as `commscope sweep` prints it and `show` repeats it, (level, line):
    "warn" for the bad switches, nodes and links with their evidence, "note" for the pairs
    cleared as contention."""
    labels = shown_labels(judgement.matrix.labels)  # control characters escaped
    lines = [
        ("warn", f"bad node {one_line(fault.host)} ({fault.reason}): {fault.evidence}") for fault in judgement.set_aside
    ]
    lines += [("warn", f"{switch_line(switch)}: {switch.evidence()}") for switch in judgement.switches]
    lines += [
        ("warn", f"bad {flag.kind} {where_text(flag.where, labels)}: {flag.evidence(labels)}")
        for flag in judgement.flags()
    ]
    lines += [
        (
            "note",
            f"contention, not a fault: {where_text(item.pair, labels)} {item.metric} "
            f"{number(item.value)} in the sweep, {number(item.retest)} alone",
        )
        for item in judgement.cleared()
    ]
    return lines


CLEARED_HEADER = ["Pair", "Metric", "In the sweep", "Alone"]


def cleared_rows(cleared: Sequence[Cleared], labels: Sequence[str]) -> list[list[str]]:
    return [
        [
            where_text(item.pair, labels),
            item.metric,
            with_unit(item.value, item.metric),
            with_unit(item.retest, item.metric),
        ]
        for item in cleared
    ]


INTRA_HEADER = ["Relation", "Metric", "Pairs", "Worst pair (cpus)", "Value"]


def intra_rows(run: Run, topology: dict[int, Cpu]) -> list[list[str]]:
    """Per relation of the two cores (same L3, same socket, across sockets) and metric: the
    worst pair's best value. `topology` is the host's the sweep measured."""
    groups = intra_groups(run.points, lambda a, b: relation(topology.get(a), topology.get(b)))
    return [
        [
            group.relation,
            group.metric,
            str(group.pairs),
            f"{group.src_cpu} - {group.dst_cpu}",
            f"{group.value:.2f} {UNIT[group.metric]}",
        ]
        for group in groups
    ]


def intra_table(run: Run, topology: dict[int, Cpu]) -> str:
    lines = [
        "",
        "Core pairs by relation: the worst pair's best value (max bandwidth, min latency)",
        f"{'Relation':<24}{'Metric':<9}{'Pairs':>6}  {'Worst pair (cpus)':<18}{'Value':>12}",
    ]
    for name, metric, pairs, worst, value in intra_rows(run, topology):
        number, unit = value.split(" ", 1)
        lines.append(f"{name:<24}{metric:<9}{pairs:>6}  {worst:<18}{number:>12} {unit}")
    return "\n".join(lines) + "\n"


# -- heatmaps -------------------------------------------------------------------


def blocks(values: np.ndarray, labels: Sequence[str]) -> tuple[np.ndarray, list[str], int]:
    """The heatmap's cells: the matrix itself up to MAX_HEATMAP_HOSTS hosts, beyond that the
    means of blocks of hosts; with the blocks' names and how many hosts a block holds."""
    n = values.shape[0]
    if n <= MAX_HEATMAP_HOSTS:
        return values, list(labels), 1
    size = -(-n // MAX_HEATMAP_HOSTS)
    count = -(-n // size)
    padded = np.full((count * size, count * size), np.nan, dtype=np.float64)
    padded[:n, :n] = values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN block stays NaN
        means = np.nanmean(padded.reshape(count, size, count, size), axis=(1, 3))
    names = [f"{labels[b * size]}..{labels[min(n, (b + 1) * size) - 1]}" for b in range(count)]
    return means, names, size


def flagged_cells(flags: Sequence[Flag], metric: str, count: int, size: int) -> set[tuple[int, int]]:
    """(row, column) of the cells to outline: a bad node's row, a bad link's two cells; with
    blocks of `size` hosts, the blocks holding them."""
    cells: set[tuple[int, int]] = set()
    for flag in flags:
        if flag.metric != metric:
            continue
        where = [index // size for index in flag.where]
        if flag.kind == "node":
            cells |= {(where[0], j) for j in range(count) if size > 1 or j != where[0]}
        else:
            cells |= {(where[0], where[1]), (where[1], where[0])}
    return cells


def by_switch(matrix: SweepMatrix, flags: Sequence[Flag], groups: Groups) -> tuple[SweepMatrix, list[Flag]]:
    """The matrix and flags with the hosts in the order of `groups` (leaf by leaf)."""
    order = [host for _, hosts in groups for host in hosts]
    position = {host: k for k, host in enumerate(order)}
    values = {metric: cells[np.ix_(order, order)] for metric, cells in matrix.values.items()}
    ordered = SweepMatrix([matrix.labels[i] for i in order], [matrix.hosts[i] for i in order], values)
    moved = [dataclasses.replace(flag, where=tuple(position[i] for i in flag.where)) for flag in flags]
    return ordered, moved


def heatmap(
    matrix: SweepMatrix,
    metric: str,
    flags: Sequence[Flag] = (),
    title: str | None = None,
    groups: Groups | None = None,
):
    """A matplotlib Figure: a cell per pair of hosts (or of blocks of hosts), each an element
    of its own in an SVG (pcolormesh, not a raster image), flagged cells outlined in red.
    With `groups` (a topology's leaves) the hosts go leaf by leaf, lines between leaves."""
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    if metric not in matrix.values:
        raise ValueError(f"the sweep has no {metric} values")
    if groups:
        matrix, flags = by_switch(matrix, flags, groups)
    values, names, size = blocks(matrix.values[metric], matrix.labels)
    n = len(names)
    fig = Figure(figsize=(min(5.5 + 0.2 * n, 18), min(4.5 + 0.2 * n, 16)))
    axis = fig.add_subplot()
    cmap = "viridis_r" if metric == "latency" else "viridis"  # better is brighter either way
    mesh = axis.pcolormesh(np.ma.masked_invalid(values), cmap=cmap)
    mesh.set_gid(CELLS_GID)
    axis.set_xlim(0, n)
    axis.set_ylim(n, 0)  # row 0 at the top, as in a table
    axis.set_aspect("equal")
    fig.colorbar(mesh, ax=axis, label=f"{metric} ({UNIT[metric]})")
    ticks = [index + 0.5 for index in range(n)]
    axis.set_xticks(ticks, names, rotation=90, fontsize=max(4, 10 - n // 10))
    axis.set_yticks(ticks, names, fontsize=max(4, 10 - n // 10))
    aggregated = f" (means of blocks of {size} hosts, {matrix.n} hosts)" if size > 1 else ""
    leaves = " by leaf switch" if groups else ""
    axis.set_title(title or f"{metric} per pair{aggregated}{leaves}; flagged cells outlined", fontsize=10)
    if groups:
        edges = np.cumsum([len(hosts) for _, hosts in groups])[:-1] / size
        lines = [[(0, edge), (n, edge)] for edge in edges] + [[(edge, 0), (edge, n)] for edge in edges]
        collection = LineCollection(lines, colors="white", linewidths=1.2)
        collection.set_gid(LEAVES_GID)
        axis.add_collection(collection)
    outlines = [Rectangle((j, i), 1, 1) for i, j in sorted(flagged_cells(flags, metric, n, size))]
    if outlines:
        collection = PatchCollection(outlines, facecolor="none", edgecolor="red", linewidth=1.5)
        collection.set_gid(FLAGGED_GID)
        axis.add_collection(collection)
    fig.tight_layout()
    return fig


def heatmap_svgs(matrix: SweepMatrix, flags: Sequence[Flag], groups: Groups | None = None) -> dict[str, bytes]:
    """One SVG heatmap per metric, for the report; by leaf switch with `groups`."""
    from commscope.output.plot import render

    return {metric: render(heatmap(matrix, metric, flags, groups=groups), "svg") for metric in matrix.values}


def heatmap_figures(
    matrix: SweepMatrix,
    flags: Sequence[Flag],
    path: Path,
    fmt: str,
    metric: str | None = None,
    title: str | None = None,
    groups: Groups | None = None,
) -> dict[Path, bytes]:
    """`commscope plot` of a sweep: FILE.svg becomes FILE-bw.svg, FILE-latency.svg, ... (one
    metric: FILE-METRIC.svg), each a heatmap in `fmt` (png or svg), hosts leaf by leaf
    with `groups` (the topology the sweep recorded)."""
    from commscope.output.plot import render

    if metric is not None and metric not in matrix.values:
        raise UsageError(f"--metric {metric}: the sweep measured {', '.join(matrix.values)}")
    chosen = [metric] if metric else list(matrix.values)
    return {
        path.with_name(f"{path.stem}-{name}{path.suffix}"): render(heatmap(matrix, name, flags, title, groups), fmt)
        for name in chosen
    }


def heatmap_files(matrix: SweepMatrix, flags: Sequence[Flag], folder: Path, groups: Groups | None = None) -> list[Path]:
    """One PNG per metric in `folder` (created), by leaf switch with `groups`; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for metric in matrix.values:
        path = folder / f"sweep-{metric}.png"
        heatmap(matrix, metric, flags, groups=groups).savefig(path, dpi=110)
        paths.append(path)
    return paths


def matrix_document(
    judgement: SweepJudgement,
    run_id: int | None,
    retest_run_id: int | None,
    drained: list[str] | None = None,
    bad_nodes: Sequence[NodeFinding] = (),
) -> dict:
    """A link sweep's --json: hosts, a matrix per metric, flags with evidence, the bad nodes
    (set aside at MPI start, or flagged) with why and their evidence, and the hosts --drain
    took out of service (`drained`, where it was asked)."""
    labels = judgement.matrix.labels

    def cell(value) -> float | None:
        return None if np.isnan(value) else round(float(value), 4)

    return {
        "schema": "commscope-sweep",
        "schema_version": 1,
        "run_id": run_id,
        "retest_run_id": retest_run_id,
        "hosts": labels,
        "units": {"latency": "us", "bw": "MB/s", "bibw": "MB/s"},
        "matrices": {
            metric: [[cell(v) for v in row] for row in values] for metric, values in judgement.matrix.values.items()
        },
        "flags": [flag_record(flag, labels) for flag in judgement.flags()],
        "bad_nodes": [{"host": node.host, "reason": node.reason, "evidence": node.evidence} for node in bad_nodes],
        "bad_switches": [switch_record(flag, labels) for flag in judgement.switches],
        "cleared": [
            {"metric": item.metric, "pair": [labels[i] for i in item.pair], "value": item.value, "retest": item.retest}
            for item in judgement.cleared()
        ],
    } | ({"drained": drained} if drained is not None else {})
