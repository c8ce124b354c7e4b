"""Reader for Intel MPI Benchmarks text output (IMB-MPI1, and the IMB-NBC /
IMB-EXT / IMB-RMA tables that share its layout).

An IMB file starts with a preamble (version, date, machine, MPI version,
datatypes) and then has one section per benchmark and process count::

    #---------------------------------------------------
    # Benchmarking PingPong
    # #processes = 2
    #---------------------------------------------------
           #bytes #repetitions      t[usec]   Mbytes/sec
                0         1000         0.35         0.00

With ``-multi 1`` the title reads ``Multi-PingPong``, a ``( N groups of M
processes each running simultaneous )`` line follows, the table gets a
leading ``Group`` column and every size has one row per group: each group
becomes a run of its own, labelled ``group N``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from commscope.ingest.parse.columns import is_integer, recognise, split_header
from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import ParsedRun
from commscope.ingest.parse.series import SeriesCollector, UnknownColumn, layout_of
from commscope.ingest.parse.text import unwrap
from commscope.records import benchmarks

_VERSION = re.compile(
    r"Intel\s*\(R\)\s*MPI\s+Benchmarks\s+(?P<version>[^,]+?)\s*,\s*(?P<part>[\w-]+)\s+part", re.IGNORECASE
)
_BENCHMARKING = re.compile(r"^#\s*Benchmarking\s+(?P<multi>Multi-)?(?P<name>\S+)\s*$", re.IGNORECASE)
_PROCESSES = re.compile(r"^#\s*#processes\s*=\s*(?P<n>\d+)", re.IGNORECASE)
_GROUPS = re.compile(r"^#\s*\(\s*(?P<groups>\d+)\s+groups?\s+of\s+(?P<n>\d+)\s+process", re.IGNORECASE)
_MODE = re.compile(r"^#\s*MODE:\s*(?P<mode>[\w-]+)", re.IGNORECASE)
_PREAMBLE = re.compile(
    r"^#\s*(?P<key>Date|Machine|System|Release|Version|MPI Version|MPI Thread Environment"
    r"|MPI_Datatype for reductions|MPI_Datatype|MPI_Op)\s*:\s*(?P<value>.*?)\s*$",
    re.IGNORECASE,
)
_CALLING_SEQUENCE = re.compile(r"^#\s*Calling sequence was", re.IGNORECASE)
# Rows IMB prints instead of numbers when a size could not be measured.
_FAILURE = re.compile(
    r"^(?:(?P<group>\d+)\s+)?(?P<size>\d+)\s+"
    r"(?P<what>(?:out-of-mem|int-overflow|time-out).*)$",
    re.IGNORECASE,
)
# IMB's header cells start with "#" too: "#bytes #repetitions t[usec] ...".
_HEADER_START = re.compile(r"^#(?:bytes|repetitions)\b", re.IGNORECASE)
_FINALIZE = re.compile(r"^#\s*All processes entering MPI_Finalize", re.IGNORECASE)

# Preamble lines that describe how every benchmark of the file ran.
_PARAMETER_KEYS = {
    "mpi_datatype": "datatype",
    "mpi_datatype_for_reductions": "reduction_datatype",
    "mpi_op": "reduction_op",
}


@dataclass
class _Section:
    line: int
    name: str
    multi: bool
    ranks: int | None = None
    groups: int | None = None
    mode: str | None = None
    collector: SeriesCollector | None = None
    notes: list[tuple[int | None, str]] = field(default_factory=list)  # (group, note)
    last_line: int = 0


class ImbReader:
    """Line-by-line reader of IMB text. Use :func:`read_imb`."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.tool: str | None = None
        self.version: str | None = None
        self.preamble: dict[str, Any] = {}
        self.runs: list[ParsedRun] = []
        self.claimed: set[int] = set()
        self.section: _Section | None = None
        self._expect_calling_sequence = False

    def feed(self, number: int, raw: str) -> None:
        line = unwrap(raw)
        if not line:
            return
        version = _VERSION.search(line)
        if version:
            self.version = version["version"].strip()
            self.tool = "IMB-" + version["part"].replace("-", "").upper()
            self.preamble["imb_version"] = self.version
            return
        title = _BENCHMARKING.match(line)
        if title:
            self._close_section()
            self.section = _Section(line=number, name=title["name"], multi=bool(title["multi"]), last_line=number)
            return
        if self.section is None:
            self._preamble(line)
            return
        if line.startswith("#") and not _HEADER_START.match(line):
            self._comment(self.section, number, line)
        else:
            self._table_line(self.section, number, line)

    def close(self) -> None:
        self._close_section()

    def _preamble(self, line: str) -> None:
        if _CALLING_SEQUENCE.match(line):
            self._expect_calling_sequence = True
            return
        if self._expect_calling_sequence and line.startswith("#") and line.strip("# "):
            self.preamble["calling_sequence"] = line.lstrip("#").strip()
            self._expect_calling_sequence = False
            return
        match = _PREAMBLE.match(line)
        if match:
            self.preamble[benchmarks.slug(match["key"])] = match["value"]

    def _comment(self, section: _Section, number: int, line: str) -> None:
        if _FINALIZE.match(line):
            self._close_section()
            return
        processes = _PROCESSES.match(line)
        if processes:
            section.ranks = int(processes["n"])
        groups = _GROUPS.match(line)
        if groups:
            section.groups = int(groups["groups"])
            section.ranks = int(groups["n"])
        mode = _MODE.match(line)
        if mode:
            section.mode = mode["mode"].upper()

    def _table_line(self, section: _Section, number: int, line: str) -> None:
        tokens = line.split()
        if section.collector is None:
            self._header(section, number, line)
            return
        failure = _FAILURE.match(line)
        if failure:
            group = int(failure["group"]) if failure["group"] is not None else None
            section.notes.append((group, f"size {failure['size']} not measured: {failure['what'].strip()}"))
            section.last_line = number
            return
        if is_integer(tokens[0]):
            section.collector.add(tokens, number)
            section.last_line = number

    def _header(self, section: _Section, number: int, line: str) -> None:
        cells = split_header(line)
        try:
            layout = layout_of(cells)
        except UnknownColumn as error:
            if any(recognise(cell) is not None for cell in cells):
                raise ParseError(self.source, number, str(error)) from None
            return  # launcher noise between the section title and its table
        if not layout.groups or "repetitions" not in {c.metric for c in layout.columns}:
            return
        section.collector = SeriesCollector(layout, self.source, number)
        section.last_line = number

    def _close_section(self) -> None:
        section, self.section = self.section, None
        if section is None:
            return
        if section.collector is None:
            raise ParseError(
                self.source, section.line, f"IMB section '{section.name}' has no table (truncated output?)"
            )
        if section.collector.row_count == 0:
            raise ParseError(self.source, section.collector.header_line, "table header has no data rows")
        parameters: dict[str, Any] = {_PARAMETER_KEYS[k]: v for k, v in self.preamble.items() if k in _PARAMETER_KEYS}
        if section.multi:
            parameters["multi"] = True
        if section.groups is not None:
            parameters["groups"] = section.groups
        if section.mode is not None:
            parameters["mode"] = section.mode
        provenance = {k: v for k, v in self.preamble.items() if k not in _PARAMETER_KEYS}
        title = f"Benchmarking {'Multi-' if section.multi else ''}{section.name}"
        produced = []
        for series in section.collector.series():
            produced.append(
                ParsedRun(
                    benchmark=benchmarks.from_imb(section.name),
                    source_format="imb",
                    source=self.source,
                    line=section.line,
                    metrics=dict(series.metrics),
                    points=series.points,
                    tool=self.tool or "IMB",
                    tool_version=self.version,
                    title=title,
                    label=None if series.group is None else f"group {series.group}",
                    ranks=section.ranks,
                    parameters=dict(parameters),
                    provenance=dict(provenance),
                    notes=[note for group, note in section.notes if group in (None, series.group)],
                )
            )
        self.runs.extend(produced)
        self.claimed.update(range(section.line, section.last_line + 1))


def read_imb(lines: list[str], source: str) -> tuple[list[ParsedRun], set[int]]:
    """Read every ``# Benchmarking`` section in ``lines``: the runs and the
    line numbers they cover."""
    if not any(_BENCHMARKING.match(unwrap(line)) for line in lines):
        return [], set()  # no section, so nothing to return: spare other formats the full reading
    reader = ImbReader(source)
    for number, raw in enumerate(lines, start=1):
        reader.feed(number, raw)
    reader.close()
    return reader.runs, reader.claimed
