"""Reader for OSU Micro-Benchmarks text output (5.x to 7.x) and commscope's
own text tables, which use the same layout under a ``# commscope ...`` title.

An OMB output is a title (``# OSU MPI Latency Test v7.4``), some ``#``
comments (datatype, window creation, pairs and window size...), a header
line naming the columns, and one row per message size. The reader walks a
file line by line, so a job log that ran several benchmarks, or a document
with tables pasted into code blocks, gives one run per table. Lines that are
not part of a table (launcher warnings, prose, markup) are skipped; a line
that starts like a row but is not one is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from commscope.ingest.parse.columns import (
    FLOAT,
    SIZE,
    Column,
    is_integer,
    is_number,
    recognise,
    split_header,
    split_on_wide_gaps,
)
from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import ParsedRun, Point
from commscope.ingest.parse.series import Layout, Series, SeriesCollector, UnknownColumn, layout_of
from commscope.ingest.parse.text import unwrap, version_in
from commscope.records import benchmarks
from commscope.records.metrics import unit_of

_TITLE = re.compile(
    r"^#\s*(?P<tool>OSU|commscope)\s+(?P<body>.*?\bTest)(?:\s+v(?P<version>\d[\w.\-]*))?\s*$", re.IGNORECASE
)
# "MPI-CUDA Bandwidth Test", "MPI_Put-ROCM Latency Test", "MPI Latency Test".
_TITLE_BODY = re.compile(
    r"^(?P<api>MPI(?:_(?P<op>[A-Za-z_]+?))?|OpenSHMEM|UPC\+\+|UPC|XCCL|NCCL|RCCL)"
    r"(?:-(?P<accel>CUDA MANAGED|CUDA|ROCM|OPENACC|MANAGED|CXL))?\s+(?P<desc>.*?)\s*\bTest$",
    re.IGNORECASE,
)

_DATATYPE = re.compile(r"^Datatype:\s*(?P<value>\S+?)\.?$", re.IGNORECASE)
_SETTING = re.compile(r"^(?P<key>Window creation|Synchronization):\s*(?P<value>.+)$", re.IGNORECASE)
_PAIRS = re.compile(r"\[\s*pairs:\s*(?P<pairs>\d+)\s*\]\s*\[\s*window size:\s*(?P<window>\w+)\s*\]", re.IGNORECASE)
# "Send Buffer on DEVICE (D) and Receive Buffer on HOST (H)" (pt2pt) and
# "Rank 0 Memory on DEVICE (D) and Rank 1 Memory on HOST (H)" (one-sided).
_BUFFERS = re.compile(
    r"^(?P<first>Send Buffer|Rank 0 Memory) on (?P<a>[A-Z ]+?)\s*(?:\(\w+\))?"
    r" and (?:Receive Buffer|Rank 1 Memory) on (?P<b>[A-Z ]+?)\s*(?:\(\w+\))?$",
    re.IGNORECASE,
)
_MATRIX = {
    "uni-directional bandwidth (mb/sec)": "bandwidth_MBps",
    "message rate profile": "message_rate",
}
_KEY_VALUE = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9 ._/-]{0,40}?)\s*:\s*(?P<value>\S.{0,200})$")
_INIT = re.compile(
    r"nprocs:\s*(?P<n>\d+),\s*min:\s*(?P<min>[\d.]+)\s*ms,\s*max:\s*(?P<max>[\d.]+)\s*ms,"
    r"\s*avg:\s*(?P<avg>[\d.]+)\s*ms",
    re.IGNORECASE,
)
_HELLO = re.compile(r"This is a test with (?P<n>\d+) processes", re.IGNORECASE)


@dataclass
class DanglingTitle:
    """A title with no table after it: truncated output, or a heading in a
    document whose table another reader may find."""

    line: int
    title: str


@dataclass
class _Table:
    collector: SeriesCollector
    parameters: dict[str, Any]
    label_line: str | None
    first_line: int  # where its own lines start: after the title or the table before it
    last_row: int = 0


@dataclass
class _Section:
    """Everything under one title, up to the next title."""

    line: int
    title: str
    tool: str
    version: str | None
    benchmark: str
    parameters: dict[str, Any] = field(default_factory=dict)
    tables: list[_Table] = field(default_factory=list)
    current: _Table | None = None
    label_candidate: str | None = None
    matrix_metric: str | None = None
    matrices: dict[str, SeriesCollector] = field(default_factory=dict)
    extra_points: list[Point] = field(default_factory=list)
    ranks: int | None = None
    notes: list[str] = field(default_factory=list)
    last_line: int = 0
    next_table_line: int = 0  # where the lines of the next table start


class OmbReader:
    """Line-by-line reader of OMB-layout text. Use :func:`read_omb`."""

    def __init__(self, source: str, lines: list[str]) -> None:
        self.source = source
        self.lines = lines
        self.runs: list[ParsedRun] = []
        self.claimed: set[int] = set()
        self.dangling: list[DanglingTitle] = []
        self.section: _Section | None = None

    # -- driving --------------------------------------------------------

    def feed(self, number: int, raw: str) -> None:
        line = unwrap(raw)
        if not line:
            return
        title = _TITLE.match(line)
        if title:
            self._close_section()
            self.section = self._open_section(number, title)
            return
        section = self.section
        if section is None:
            return
        if line.startswith("#"):
            self._comment(section, number, line[1:].strip())
            return
        tokens = line.split()
        if is_number(tokens[0]):
            self._row(section, number, tokens)
            return
        self._text(section, number, line)

    def close(self) -> None:
        self._close_section()

    # -- sections -------------------------------------------------------

    def _open_section(self, number: int, match: re.Match[str]) -> _Section:
        body = " ".join(match["body"].split())
        tool = "OMB" if match["tool"].upper() == "OSU" else "commscope"
        parts = _TITLE_BODY.match(body)
        parameters: dict[str, Any] = {}
        if parts is None:
            name = benchmarks.slug(body[: -len("Test")])
        elif parts["api"].upper().startswith("MPI"):
            name = benchmarks.from_omb_description(parts["desc"], parts["op"])[0]
            if parts["accel"]:
                parameters["accelerator"] = parts["accel"].upper()
        else:
            name = benchmarks.slug(f"{parts['api']} {parts['desc']}")
        title = match.group(0).lstrip("#").strip()
        return _Section(
            line=number,
            title=title,
            tool=tool,
            version=match["version"],
            benchmark=name,
            parameters=parameters,
            last_line=number,
            next_table_line=number + 1,
        )

    def _close_section(self) -> None:
        section, self.section = self.section, None
        if section is None:
            return
        self._finish_table(section)
        produced: list[ParsedRun] = []
        if section.extra_points or section.ranks is not None:
            produced.append(self._run_from_points(section))
        for table in section.tables:
            produced.extend(self._runs_from_table(section, table))
        produced.extend(self._runs_from_matrices(section))
        if not produced:
            self.dangling.append(DanglingTitle(section.line, section.title))
            return
        if section.notes:
            produced[-1].notes.extend(section.notes)
        self.runs.extend(produced)
        self.claimed.update(range(section.line, section.last_line + 1))

    # -- line kinds -----------------------------------------------------

    def _comment(self, section: _Section, number: int, text: str) -> None:
        if not text:
            return
        section.last_line = number
        datatype = _DATATYPE.match(text)
        if datatype:
            # OMB -T all prints one table per datatype, each after its own line.
            self._finish_table(section)
            section.parameters["datatype"] = datatype["value"]
            return
        settings = _settings_in(text)
        if settings:
            section.parameters.update(settings)
            return
        matrix = _MATRIX.get(" ".join(text.lower().split()))
        if matrix:
            self._finish_table(section)
            section.matrix_metric = matrix
            return
        tokens = text.split()
        if section.matrix_metric and tokens and all(is_integer(t) for t in tokens):
            section.matrices[section.matrix_metric] = SeriesCollector(
                _window_layout(section.matrix_metric, [int(t) for t in tokens]), self.source, number
            )
            return
        if self._header(section, number, text):
            return
        key_value = _KEY_VALUE.match(text)
        if key_value and section.current is None and not section.tables:
            section.parameters.setdefault(benchmarks.slug(key_value["key"]), key_value["value"].strip())

    def _header(self, section: _Section, number: int, text: str) -> bool:
        """Start a table if ``text`` is a column header; False if it is not one."""
        cells = split_header(text)
        try:
            layout = layout_of(cells)
        except UnknownColumn as error:
            if _looks_like_header(cells):
                raise ParseError(self.source, number, str(error)) from None
            return False
        if not layout.groups:
            return False
        self._finish_table(section)
        section.matrix_metric = None
        section.current = _Table(
            SeriesCollector(layout, self.source, number),
            dict(section.parameters),
            section.label_candidate,
            section.next_table_line,
        )
        return True

    def _row(self, section: _Section, number: int, tokens: list[str]) -> None:
        section.last_line = number
        if section.matrix_metric is not None:
            collector = section.matrices.get(section.matrix_metric)
            if collector is None:
                raise ParseError(self.source, number, "data row before the window sizes of the matrix")
            collector.add(tokens, number)
            return
        if section.current is None:
            raise ParseError(self.source, number, "data row before any column header")
        section.current.collector.add(tokens, number)
        section.current.last_row = number

    def _text(self, section: _Section, number: int, line: str) -> None:
        if line.upper().startswith("DATA VALIDATION ERROR"):
            section.notes.append(line)
            section.last_line = number
            return
        init = _INIT.search(line)
        if init and section.benchmark == benchmarks.INIT_BENCHMARK:
            section.ranks = int(init["n"])
            section.extra_points.append(
                Point(
                    size=None,
                    line=number,
                    values={
                        "init_min_ms": float(init["min"]),
                        "init_max_ms": float(init["max"]),
                        "init_avg_ms": float(init["avg"]),
                    },
                )
            )
            section.last_line = number
            return
        hello = _HELLO.search(line)
        if hello and section.benchmark == benchmarks.HELLO_BENCHMARK:
            section.ranks = int(hello["n"])
            section.last_line = number
            return
        if section.current is None and not section.tables:
            # Side-by-side tables carry their system names on a line of
            # their own between title and header.
            section.label_candidate = line

    # -- turning tables into runs ---------------------------------------

    def _finish_table(self, section: _Section) -> None:
        table, section.current = section.current, None
        if table is None:
            return
        if table.collector.row_count == 0:
            raise ParseError(self.source, table.collector.header_line, "table header has no data rows")
        section.tables.append(table)
        section.next_table_line = table.last_row + 1

    def _runs_from_matrices(self, section: _Section) -> list[ParsedRun]:
        """Merge OMB's -V matrices (bandwidth, then message rate) into one run
        per window size."""
        merged: dict[str | None, Series] = {}
        for collector in section.matrices.values():
            if collector.row_count == 0:
                raise ParseError(self.source, collector.header_line, "matrix has no data rows")
            for series in collector.series():
                target = merged.setdefault(series.label, Series(series.label, None, {}, []))
                target.metrics.update(series.metrics)
                by_size = {point.size: point for point in target.points}
                for point in series.points:
                    if point.size in by_size:
                        by_size[point.size].values.update(point.values)
                    else:
                        target.points.append(point)
                target.points.sort(key=lambda point: point.size)
        runs = []
        for label, series in merged.items():
            parameters = dict(section.parameters)
            parameters["window_size"] = int(label.split()[-1]) if label else None
            runs.append(self._run(section, series.metrics, series.points, parameters, label=label, source_format="omb"))
        return runs

    def _runs_from_table(self, section: _Section, table: _Table) -> list[ParsedRun]:
        layout = table.collector.layout
        side_by_side = len(layout.groups) > 1
        line_labels = _labels(table, len(layout.groups)) if side_by_side else [None]
        runs = []
        for index, series in enumerate(table.collector.series()):
            label = series.label if series.label is not None else line_labels[index]
            run = self._run(
                section,
                series.metrics,
                series.points,
                dict(table.parameters),
                label=label,
                source_format="table" if side_by_side else "omb",
            )
            if not side_by_side:  # a column of a shared table has no text of its own
                run.text = self._text_of(section, table.first_line, table.last_row)
            if side_by_side and run.tool_version is None:
                # Hand-made comparisons put the OMB version beside the system name.
                run.tool_version = version_in(label)
            runs.append(run)
        return runs

    def _text_of(self, section: _Section, first: int, last: int) -> str:
        """The title line and lines first..last (1-based) of the file, as written."""
        return "\n".join([self.lines[section.line - 1], *self.lines[first - 1 : last]]) + "\n"

    def _run_from_points(self, section: _Section) -> ParsedRun:
        """The run of osu_init / osu_hello, which print a line, not a table."""
        metrics = {name: unit_of(name) for point in section.extra_points for name in point.values}
        return self._run(
            section, metrics, section.extra_points, dict(section.parameters), label=None, source_format="omb"
        )

    def _run(
        self,
        section: _Section,
        metrics: dict[str, str],
        points: list[Point],
        parameters: dict[str, Any],
        *,
        label: str | None,
        source_format: str,
    ) -> ParsedRun:
        return ParsedRun(
            benchmark=section.benchmark,
            source_format=source_format,
            source=self.source,
            line=section.line,
            metrics=dict(metrics),
            points=points,
            tool=section.tool,
            tool_version=section.version,
            title=section.title,
            label=label,
            ranks=(section.ranks if section.ranks is not None else benchmarks.ranks_of(section.benchmark, parameters)),
            parameters=parameters,
        )


def _settings_in(comment: str) -> dict[str, Any] | None:
    """Run settings printed as a comment above the table, or ``None``."""
    setting = _SETTING.match(comment)
    if setting:
        return {benchmarks.slug(setting["key"]): setting["value"].strip()}
    pairs = _PAIRS.search(comment)
    if pairs:
        window = pairs["window"]
        return {"pairs": int(pairs["pairs"]), "window_size": int(window) if window.isdigit() else window}
    buffers = _BUFFERS.match(comment)
    if buffers:
        pt2pt = buffers["first"].lower().startswith("send")
        first, second = ("send_buffer", "recv_buffer") if pt2pt else ("rank0_memory", "rank1_memory")
        return {first: buffers["a"].strip().upper(), second: buffers["b"].strip().upper()}
    return None


def _window_layout(metric: str, windows: list[int]) -> Layout:
    """Layout of one OMB -V matrix: the size, then one column per window size."""
    columns = [Column("Size", SIZE, SIZE)] + [Column(f"window {w}", metric, FLOAT) for w in windows]
    return Layout(
        columns=columns,
        size_index=0,
        group_index=None,
        groups=[[i] for i in range(1, len(columns))],
        labels=[f"window {w}" for w in windows],
    )


def _looks_like_header(cells: list[str]) -> bool:
    """Whether a comment that failed to parse as a header was meant as one:
    it starts with Size, or some of its cells are known column names."""
    known = [recognise(cell) for cell in cells]
    if not cells or known[0] is None:
        return False
    return known[0].kind == SIZE or sum(k is not None for k in known) >= 2


def _labels(table: _Table, count: int) -> list[str]:
    """Names of the side-by-side series: the label line if it has one name per
    series, else ``column 1``, ``column 2``..."""
    if table.label_line:
        names = split_on_wide_gaps(table.label_line)
        if len(names) == count:
            return names
    return [f"column {i + 1}" for i in range(count)]


def read_omb(lines: list[str], source: str) -> tuple[list[ParsedRun], set[int], list[DanglingTitle]]:
    """Read every OMB/commscope table in ``lines``.

    Returns the runs, the line numbers they cover (so the generic table
    reader leaves them alone) and the titles that had no table under them.
    """
    reader = OmbReader(source, lines)
    for number, raw in enumerate(lines, start=1):
        reader.feed(number, raw)
    reader.close()
    return reader.runs, reader.claimed, reader.dangling
