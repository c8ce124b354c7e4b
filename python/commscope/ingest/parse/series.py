"""From a header and its rows to per-size series: the part every table reader shares.

A header is turned into a :class:`Layout` (which cell is the size, which the
IMB group, which cells belong to which series), then a
:class:`SeriesCollector` reads rows against it and enforces the rules every
reader promises: as many cells as columns, numbers where numbers belong, and
sizes that grow.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from commscope.ingest.parse.columns import GROUP, SIZE, Column, read_cell, recognise, recognise_labelled
from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import Point


class UnknownColumn(ValueError):
    """A header cell that is not a known column name."""

    def __init__(self, cell: str) -> None:
        super().__init__(f"unrecognised column '{cell}' in table header")
        self.cell = cell


@dataclass
class Layout:
    """How the cells of a row map onto series.

    ``groups`` lists, for each series in a row, the indexes of its metric
    cells. A plain OMB table has one group; a side-by-side table comparing
    three clusters repeats the same metrics three times and has three.
    """

    columns: list[Column]
    size_index: int | None
    group_index: int | None
    groups: list[list[int]]
    labels: list[str | None]

    @property
    def width(self) -> int:
        return len(self.columns)


def layout_of(cells: list[str], *, allow_labelled: bool = False) -> Layout:
    """The layout of a header; :class:`UnknownColumn` if a cell is not known.

    With ``allow_labelled``, a cell may carry a label before the column name
    (``"clusterA Latency (us)"``); the label then names the cell's series.
    """
    columns: list[Column] = []
    prefixes: list[str | None] = []
    for cell in cells:
        column = recognise(cell)
        prefix = None
        if column is None and allow_labelled:
            labelled = recognise_labelled(cell)
            if labelled is not None:
                prefix, column = labelled
        if column is None:
            raise UnknownColumn(cell)
        columns.append(column)
        prefixes.append(prefix)

    size_index = group_index = None
    metric_cells: list[int] = []
    for index, column in enumerate(columns):
        if column.kind == SIZE:
            if size_index is None:
                size_index = index
            # a second size column (e.g. msg_size beside size) adds nothing
        elif column.kind == GROUP:
            group_index = index
        else:
            metric_cells.append(index)
    positions = group_series([(columns[i].metric, prefixes[i]) for i in metric_cells])
    groups = [[metric_cells[p] for p in group] for group in positions]
    labels = [prefixes[group[0]] for group in groups]
    return Layout(columns, size_index, group_index, groups, labels)


def group_series(columns: list[tuple[str | None, str | None]]) -> list[list[int]]:
    """Split a row's metric columns, given as ``(metric, label)``, into the
    series of a side-by-side table: a metric seen again in the current series,
    or a different label, starts the next one. Returns positions in ``columns``.

    ``Size  Latency  Latency  Latency`` gives three series;
    ``Size  Avg  Min  Max  Avg  Min  Max`` gives two.
    """
    groups: list[list[int]] = []
    seen: set[str | None] = set()
    for position, (metric, label) in enumerate(columns):
        if not groups or metric in seen or label != columns[groups[-1][0]][1]:
            groups.append([])
            seen = set()
        groups[-1].append(position)
        seen.add(metric)
    return groups


@dataclass
class Series:
    """The points of one series read from a table."""

    label: str | None
    group: int | None  # IMB -multi group number
    metrics: dict[str, str]
    points: list[Point] = field(default_factory=list)


class SeriesCollector:
    """Reads the data rows under one header into series."""

    def __init__(self, layout: Layout, source: str, header_line: int) -> None:
        self.layout = layout
        self.source = source
        self.header_line = header_line
        self._series: dict[tuple[int | None, int], Series] = {}

    @property
    def row_count(self) -> int:
        return max((len(s.points) for s in self._series.values()), default=0)

    def add(self, cells: list[str], line: int) -> None:
        layout = self.layout
        if len(cells) != layout.width:
            raise ParseError(self.source, line, f"row has {len(cells)} values but header has {layout.width} columns")
        try:
            values = list(map(read_cell, cells, layout.columns))  # as many as columns: checked above
        except ValueError as error:
            raise ParseError(self.source, line, str(error)) from None
        size = values[layout.size_index] if layout.size_index is not None else None
        group = values[layout.group_index] if layout.group_index is not None else None
        for number, indexes in enumerate(layout.groups):
            series = self._series_for(group, number)
            self._append(
                series, Point(size=size, line=line, values={layout.columns[i].metric: values[i] for i in indexes})
            )

    def _series_for(self, group: int | None, number: int) -> Series:
        key = (group, number)
        if key not in self._series:
            columns = [self.layout.columns[i] for i in self.layout.groups[number]]
            self._series[key] = Series(
                label=self.layout.labels[number], group=group, metrics={c.metric: c.unit for c in columns}
            )
        return self._series[key]

    def _append(self, series: Series, point: Point) -> None:
        append_point(series.points, point, self.source)

    def series(self) -> list[Series]:
        return list(self._series.values())


def append_point(points: list[Point], point: Point, source: str) -> None:
    """Append ``point`` to a series, which must grow in size (a series without
    sizes, like a barrier's, has a single point)."""
    if points:
        previous = points[-1]
        if point.size is None or previous.size is None:
            raise ParseError(
                source,
                point.line,
                f"a table without a size column has more than one row (the first is on line {previous.line})",
            )
        if point.size <= previous.size:
            raise ParseError(
                source, point.line, f"sizes not increasing: {point.size} follows {previous.size} (line {previous.line})"
            )
    points.append(point)
