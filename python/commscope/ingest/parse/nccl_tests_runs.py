"""An nccl-tests test as it is read (its settings, devices, table layout and rows), and the
runs it becomes: what the text reader (nccl_tests.py) and the -J JSON reader share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import ParsedRun, Point
from commscope.ingest.parse.nccl_tests_programs import Inference, Row, choose_program, infer
from commscope.records import benchmarks
from commscope.records.metrics import in_place_metric, unit_of
from commscope.records.run import LARGEST_INTEGER


@dataclass
class Layout:
    """The columns of one table, from its header line."""

    keys: list[str]
    side: list[str]  # the metrics of one side, in order
    timestamp: bool
    line: int

    @property
    def width(self) -> int:
        return len(self.keys) + 2 * len(self.side) + (2 if self.timestamp else 0)


def whole_number(name: str, value: Any, source: str, line: int, least: int = 0) -> int:
    """A size, count or root as a record holds it: a whole number from `least` to
    LARGEST_INTEGER (nccl-tests' own are 64-bit); ParseError naming it otherwise."""
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    shown = shown if len(shown) <= 40 else f"{shown[:20]}...({len(shown)} digits)"
    if isinstance(value, str):
        if not re.fullmatch(r"[-+]?\d+", value.strip()):
            raise ParseError(source, line, f"{name}: '{value}' is not a whole number")
        value = int(value)
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParseError(source, line, f"{name}: {value!r} is not a whole number")
    if value < least:
        raise ParseError(source, line, f"{name}: {shown} is below {least}")
    if value > LARGEST_INTEGER:
        raise ParseError(source, line, f"{name}: {shown} is beyond 64 bits (at most {LARGEST_INTEGER})")
    return value


def side_values(named: dict[str, float | int | None], in_place: bool) -> dict[str, float | int]:
    """The metrics of one side of a row, named for its side; N/A cells left out."""
    return {(in_place_metric(k) if in_place else k): v for k, v in named.items() if v is not None}


@dataclass
class Test:
    """One program's output being read: what its preamble said, then its table."""

    line: int
    tool: str = "nccl-tests"
    version: str | None = None
    program: str | None = None
    named_by: str | None = None  # "output" (its own words) or "command" (a command line above it)
    settings: dict[str, Any] = field(default_factory=dict)
    libraries: dict[str, int] = field(default_factory=dict)
    devices: list[dict[str, Any]] = field(default_factory=list)
    layout: Layout | None = None
    series: dict[tuple, list[Point]] = field(default_factory=dict)
    rejected: list[tuple[int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    last_row: int = 0


def hosts_of(devices: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """Run.hosts from device lines: each host with its ranks, in order of first appearance."""
    hosts: dict[str, list[int]] = {}
    for device in devices:
        hosts.setdefault(device["host"], []).append(device["rank"])
    return [{"name": name, "ranks": ranks} for name, ranks in hosts.items()] or None


def _inference(test: Test) -> Inference:
    rows = [Row(*key[:3], point) for key, points in test.series.items() for point in points]
    keys = test.layout.keys if test.layout else ["size", "count", "type", "redop", "root"]
    checks_wrong = "validation_errors" in (test.layout.side if test.layout else ["validation_errors"])
    return infer(keys, rows, len(test.devices) or None, checks_wrong)


def build_runs(
    test: Test, source: str, source_format: str, text: str | None, given: str | None = None
) -> list[ParsedRun]:
    """The runs of a finished test: one per datatype, reduction, root and cycle. `given` is
    the program --benchmark names, for an output that does not name its own."""
    line = test.layout.line if test.layout else test.line
    test.program, how = choose_program(test.program, test.named_by, given, lambda: _inference(test), source, line)
    if how:
        test.notes.append(f"nccl-tests program {how}")
    hosts = hosts_of(test.devices)
    provenance: dict[str, Any] = {"program": test.program, **test.libraries, **test.summary}
    if how:
        provenance["program_inferred"] = how
    if test.devices:
        provenance["gpus"] = test.devices
    runs = []
    several = len(test.series) > 1
    for (datatype, redop, root, cycle), points in test.series.items():
        parameters: dict[str, Any] = {**test.settings}
        for name, value in (("datatype", datatype), ("reduction_op", redop), ("root", root)):
            if value is not None:
                parameters[name] = value
        label = " ".join(str(part) for part in (datatype, redop, root is not None and f"root {root}") if part)
        runs.append(
            ParsedRun(
                benchmark=benchmarks.from_nccl_tests(test.program),
                source_format=source_format,
                source=source,
                line=test.line,
                metrics={name: unit_of(name) for point in points for name in point.values},
                points=points,
                tool=test.tool,
                tool_version=test.version,
                title=test.program,
                label=(label + (f" cycle {cycle}" if cycle > 1 else "")) if several else None,
                ranks=len(test.devices) or None,
                nodes=len(hosts) if hosts else None,
                parameters=parameters,
                provenance=dict(provenance),
                notes=list(test.notes),
                text=None if several else text,
                hosts=hosts,
                rejected_rows=list(test.rejected) if not runs else [],
            )
        )
    return runs


def add_point(test: Test, key: tuple, point: Point) -> None:
    """Put a row in its series: a size below the last one starts the next cycle (-N); the
    same size again (nccl-tests rounds tiny sizes down to 0 bytes) is reported, not kept."""
    cycle = 1
    while (key + (cycle,)) in test.series:
        last = test.series[key + (cycle,)][-1]
        if point.size == last.size:
            test.rejected.append((point.line, f"size {point.size} again (line {last.line} has it): left out"))
            return
        if point.size > last.size:
            break
        cycle += 1
    test.series.setdefault(key + (cycle,), []).append(point)
