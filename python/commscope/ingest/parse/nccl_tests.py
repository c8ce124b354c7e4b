"""Reader for nccl-tests' text output (``all_reduce_perf`` and its siblings), and
rccl-tests', which prints the same.

A test prints its settings, the devices its ranks use, a table and a footer::

    # nccl-tests version 2.18.3 nccl-headers=22809 nccl-library=22809
    # Collective test starting: all_gather_perf
    # nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 ...
    # Using devices
    #  Rank  0 Group  0 Pid  28307 on      gpu59 device  0 [0x16] NVIDIA GeForce RTX 4090
    #       size    count   type   redop    root     time   algbw   busbw #wrong     time ...
           8             2  float     sum      -1    42.56    0.00    0.00      0    40.01 ...
    # Out of bounds values : 0 OK
    # Avg bus bandwidth    : 0.153

Every row holds the out-of-place measurement, then the in-place one; the in-place
metrics are named by records.metrics.in_place_metric. The header says which key columns
there are (older versions print no root, or no redop) and what each side holds (#wrong,
or the largest error before 2.13; -I's per-iteration columns; -C's cputime). One run per
datatype, reduction and root (-d all, -o all, -r all print them in one table), and per
cycle (-N: a size below the one before starts the next). A table must end with nccl-tests'
footer: one that stops before it is a truncated output and is refused.
"""

from __future__ import annotations

import re
from typing import Any

from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import ParsedRun, Point
from commscope.ingest.parse.nccl_tests_runs import Layout, Test, add_point, build_runs, side_values, whole_number
from commscope.ingest.parse.text import unwrap
from commscope.records.metrics import in_place_metric

_PREAMBLE = re.compile(
    r"^nThread\s+(?P<threads>\d+)\s+nGpus\s+(?P<gpus>\d+)\s+minBytes\s+(?P<min>\d+)\s+maxBytes\s+(?P<max>\d+)"
    r"\s+step:\s*(?P<step>\d+)\((?P<kind>factor|bytes)\)(?P<rest>.*)$"
)
_SETTING = re.compile(r"(?P<key>[A-Za-z][\w ]*?):\s*(?P<value>-?\d+)")
_VERSION = re.compile(r"^(?P<tool>[nr]ccl-tests)(?: version|: Version)\s+(?P<version>\S+)(?P<rest>.*)$", re.I)
_LIBRARIES = re.compile(r"(?P<key>[nr]ccl-(?:headers|library))=(?P<value>\d+)")
_STARTING = re.compile(r"^Collective test starting:\s*(?P<program>\S+)")
_PROGRAM = re.compile(r"(?:^|[\s/])(?P<program>[a-z_]+_perf\w*)\b")
_DEVICE = re.compile(
    r"^Rank\s+(?P<rank>\d+)\s+(?:Group\s+(?P<group>\d+)\s+)?Pid\s+(?P<pid>\d+)\s+on\s+(?P<host>\S+)"
    r"\s+device\s+(?P<device>\d+)\s+\[(?P<pci>[^\]]*)\]\s*(?P<gpu>.*)$"
)
_OUT_OF_BOUNDS = re.compile(r"^Out of bounds values\s*:\s*(?P<count>\d+)\s*(?P<verdict>\w*)")
_AVERAGE = re.compile(r"^Avg bus bandwidth\s*:\s*(?P<value>\S+)\s*(?P<verdict>\w*)")
# mpirun --tag-output puts "[1,0]<stdout>:" before every line
_TAG = re.compile(r"^\[\d+,\d+\]<std(?:out|err)>:")
# NCCL_DEBUG lines that land between a table's rows ("host:pid:tid [0] NCCL INFO ...")
_DEBUG = re.compile(r"\bNCCL (?:INFO|WARN|TRACE)\b")

#: The key columns a header may start with.
_KEYS = ("size", "count", "type", "redop", "root")
#: Key columns whose cells are whole numbers, and the least each may be.
_WHOLE_KEYS = {"size": 0, "count": 0, "root": -1}
#: A row of a table starts with its size: a line inside a table that starts like a number
#: (or like nan or inf) is a row and is read as one, so that a size nccl-tests could not
#: have printed is refused rather than passed over as a stray line.
_ROW = re.compile(r"[-+]?(?:\d|\.\d|(?:nan|inf(?:inity)?)\b)", re.I)
#: What each cell of one side (out-of-place, in-place) holds: nccl-tests' header word -> metric.
SIDE_METRICS = {
    "time": "latency_us",
    "cputime": "cpu_time_us",
    "algbw": "algbw_GBps",
    "busbw": "busbw_GBps",
    "#wrong": "validation_errors",
    "error": "max_error",
    "i_min": "iteration_min_us",
    "i_max": "iteration_max_us",
    "i_p99": "iteration_p99_us",
    "i_cv%": "iteration_cv_pct",
}
#: Cells that are counts (nccl-tests prints them with %g: 1e+06 is a million).
_COUNTS = frozenset({"validation_errors"})
_NOT_MEASURED = "N/A"  # #wrong without validation (-c 0), or an in-place sendrecv
_TIMESTAMP = "timestamp"  # -S: "%Y-%m-%d %H:%M:%S", two cells after the in-place side
_FORMAT = "nccl-tests"


def looks_like_nccl_tests(lines: list[str]) -> bool:
    """Whether the text holds nccl-tests output: its settings line or its table header."""
    return any(_PREAMBLE.match(_clean(line)) or _header_cells(_clean(line)) for line in lines)


def _untagged(line: str) -> str:
    """A line without mpirun's tag and indentation."""
    return _TAG.sub("", unwrap(line)).strip()


def _clean(line: str) -> str:
    """A line without mpirun's tag, indentation and nccl-tests' leading '#'."""
    line = _untagged(line)
    return line[1:].strip() if line.startswith("#") else line


def _header_cells(line: str) -> list[str] | None:
    cells = line.split()
    if len(cells) > 5 and cells[:2] == ["size", "count"] and "algbw" in cells and "busbw" in cells:
        return cells
    return None


def layout_of(cells: list[str], source: str, line: int) -> Layout:
    keys = []
    while cells and cells[0] in _KEYS:
        keys.append(cells.pop(0))
    timestamp = bool(cells) and cells[-1] == _TIMESTAMP
    cells = cells[:-1] if timestamp else cells
    half = len(cells) // 2
    if len(cells) % 2 or cells[:half] != cells[half:] or any(cell not in SIDE_METRICS for cell in cells):
        raise ParseError(source, line, f"unknown nccl-tests table header: {' '.join(cells)}")
    return Layout(keys, [SIDE_METRICS[cell] for cell in cells[:half]], timestamp, line)


def _blank_redop(layout: Layout, cells: list[str]) -> bool:
    """Whether a row leaves its redop cell blank: the programs that do not reduce printed an
    empty name there before v2.13 (alltoall_perf under its "redop" header), hypercube_perf
    still does. The row is one cell short, and a number stands where the name would."""
    if len(cells) != layout.width - 1 or "redop" not in layout.keys:
        return False
    try:
        float(cells[layout.keys.index("redop")])
    except ValueError:
        return False
    return True


def side_value(metric: str, cell: str, source: str, line: int, in_place: bool = False) -> float | int | None:
    """A side's cell as a number (None for N/A); ParseError naming the column otherwise."""
    if cell == _NOT_MEASURED:
        return None
    name = in_place_metric(metric) if in_place else metric
    try:
        number = float(cell)
    except ValueError:
        raise ParseError(source, line, f"{name}: '{cell}' is not a number") from None
    if metric in _COUNTS:
        if not number.is_integer():
            raise ParseError(source, line, f"{name}: '{cell}' is not a whole number")
        return whole_number(name, number, source, line)
    return number


class NcclTestsReader:
    """Line-by-line reader of nccl-tests text. Use :func:`read_nccl_tests`."""

    def __init__(self, source: str, lines: list[str], given: str | None = None) -> None:
        self.source = source
        self.lines = lines
        self.given = given  # the program --benchmark names
        self.runs: list[ParsedRun] = []
        self.test: Test | None = None
        self.named_program: str | None = None  # the last *_perf program a command line named

    def feed(self, number: int, raw: str) -> None:
        line = _clean(raw)
        if not line:
            return
        test = self.test
        if test is not None and test.layout is not None:
            if self._table_line(test, number, line, commented=_untagged(raw).startswith("#")):
                return
        if version := _VERSION.match(line):
            # rccl-tests prints its version after the settings line, nccl-tests before it
            if self.test is None or self.test.layout is not None or self.test.version is not None:
                self._new_test(number)
            self.test.tool = version["tool"].lower()
            self.test.version = version["version"]
            self.test.libraries = {m["key"].replace("-", "_"): int(m["value"]) for m in _LIBRARIES.finditer(line)}
        elif starting := _STARTING.match(line):
            test = self._ensure_test(number)
            test.program, test.named_by = starting["program"], "output"
        elif preamble := _PREAMBLE.match(line):
            self._preamble(number, preamble)
        elif device := _DEVICE.match(line):
            self._ensure_test(number).devices.append(self._device(device))
        elif cells := _header_cells(line):
            test = self._ensure_test(number)
            if test.layout is not None:
                self._unfinished(test)
            test.layout = layout_of(cells, self.source, number)
            if test.program is None and self.named_program is not None:
                test.program, test.named_by = self.named_program, "command"
        elif not _untagged(raw).startswith("#") and (program := _PROGRAM.search(line)):
            self.named_program = program["program"]

    def close(self) -> None:
        if self.test is not None and self.test.layout is not None:
            self._unfinished(self.test)

    def _new_test(self, number: int) -> None:
        if self.test is not None and self.test.layout is not None:
            self._unfinished(self.test)
        self.test = Test(line=number)

    def _ensure_test(self, number: int) -> Test:
        if self.test is None or self.test.layout is not None:
            self._new_test(number)
        return self.test

    def _preamble(self, number: int, match: re.Match) -> None:
        test = self._ensure_test(number)
        if test.settings:  # a second settings line: the next program's (older versions print no version line)
            self._new_test(number)
            test = self.test
        settings = {
            m["key"].strip().lower().replace(" ", "_"): int(m["value"]) for m in _SETTING.finditer(match["rest"])
        }
        test.settings = {
            "threads": int(match["threads"]),
            "gpus_per_thread": int(match["gpus"]),
            "min_size": int(match["min"]),
            "max_size": int(match["max"]),
            ("step_factor" if match["kind"] == "factor" else "step_bytes"): int(match["step"]),
            **settings,
        }

    @staticmethod
    def _device(match: re.Match) -> dict[str, Any]:
        device = {
            "rank": int(match["rank"]),
            "host": match["host"],
            "device": int(match["device"]),
            "pci_bus_id": match["pci"],
            "name": match["gpu"].strip() or None,
            "pid": int(match["pid"]),
        }
        if match["group"] is not None:
            device["group"] = int(match["group"])
        return device

    def _table_line(self, test: Test, number: int, line: str, commented: bool) -> bool:
        """Read a line inside a table; False when it is not the table's (then it is read as any other)."""
        if oob := _OUT_OF_BOUNDS.match(line):
            test.summary["out_of_bounds"] = int(oob["count"])
            if int(oob["count"]):
                test.notes.append(f"nccl-tests: {oob['count']} out-of-bounds values {oob['verdict']}".rstrip())
            return True
        if average := _AVERAGE.match(line):
            try:
                test.summary["avg_busbw_GBps"] = float(average["value"])
            except ValueError:
                raise ParseError(self.source, number, f"average bus bandwidth '{average['value']}' is not a number")
            if average["verdict"] == "FAILED":
                test.notes.append("nccl-tests: average bus bandwidth below the -A check: FAILED")
            self._finish(test, number)
            return True
        if not commented and _ROW.match(line) and not _DEBUG.search(line):
            self._row(test, number, line)
            return True
        return not _VERSION.match(line) and not _PREAMBLE.match(line) and not _header_cells(line)

    def _row(self, test: Test, number: int, line: str) -> None:
        layout = test.layout
        cells = line.split()
        if _blank_redop(layout, cells):
            cells.insert(layout.keys.index("redop"), "")
        if len(cells) != layout.width:
            raise ParseError(
                self.source,
                number,
                f"row has {len(cells)} cells where the header on line {layout.line} has {layout.width} "
                "(truncated or garbled line?)",
            )
        keys: dict[str, Any] = {
            name: whole_number(name, cell, self.source, number, _WHOLE_KEYS[name]) if name in _WHOLE_KEYS else cell
            for name, cell in zip(layout.keys, cells)
        }
        if "size" not in keys:
            raise ParseError(self.source, layout.line, "nccl-tests table header has no size column")
        width = len(layout.side)
        start = len(layout.keys)
        values: dict[str, float | int] = {}
        for index, in_place in ((start, False), (start + width, True)):
            named = {
                metric: side_value(metric, cell, self.source, number, in_place)
                for metric, cell in zip(layout.side, cells[index : index + width])
            }
            values.update(side_values(named, in_place))
        values["elements"] = keys.get("count", 0)
        for setting, count in (("iters", "iterations"), ("warmup_iters", "warmup")):
            if setting in test.settings:
                values[count] = test.settings[setting]
        key = (keys.get("type"), keys.get("redop") or None, keys.get("root"))
        add_point(test, key, Point(size=keys["size"], values=values, line=number))
        test.last_row = number

    def _finish(self, test: Test, number: int) -> None:
        if not test.series:
            raise ParseError(self.source, test.layout.line, "nccl-tests table has no rows")
        text = "\n".join(self.lines[test.line - 1 : number]) + "\n"
        self.runs += build_runs(test, self.source, _FORMAT, text, self.given)
        self.test = None

    def _unfinished(self, test: Test) -> None:
        raise ParseError(
            self.source,
            test.last_row or test.layout.line,
            "nccl-tests table ends without its '# Avg bus bandwidth' line (truncated output?)",
        )


def read_nccl_tests(lines: list[str], source: str, given: str | None = None) -> list[ParsedRun]:
    """Every nccl-tests (or rccl-tests) test in ``lines``, a run per datatype, op, root and
    cycle; `given` names the program of the tests whose output does not."""
    reader = NcclTestsReader(source, lines, given)
    for number, raw in enumerate(lines, start=1):
        reader.feed(number, raw)
    reader.close()
    return reader.runs
