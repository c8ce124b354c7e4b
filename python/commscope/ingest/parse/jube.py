"""Reader for JUBE result tables of OSU benchmarks (`jube result`): the pretty style
(pipes, a dashed line under the header, the table's name above it), csv and aligned
(a separator, blanks around cells), and the same tables pasted into Markdown, such as
shared procurement rules print them:

    | nodes | taskspernode | osu_exe     | msg_size | runtime[sec] | size | result |
    |-------|--------------|-------------|----------|--------------|------|--------|
    |     2 |            1 | osu_latency |        0 |         1.94 |    0 |   2.43 |

A table is JUBE's when its header names the executable (osu_exe, or a column whose
every value is an osu_* program), the measured size (size, else msg_size) and the
result (result, or a reduction such as result_avg). Each row is one point: its size
and result (latency in us or bandwidth in MB/s, by benchmark), and the job's runtime.
Columns the run has a place for go there: the system, the job ids (job_id: one run may
span a job per size), nodes and tasks per node, and GPU buffers (buffer: cuda, target:
D D, as OMB's -d cuda D D). How each job ended (status, exit_code) and JUBE's own ids
are bookkeeping. Rows of the same executable with the same remaining parameters
(anything else but the size and runtime) are one run, a size sweep; a size seen again
in such a group starts a repeat run.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from commscope.ingest.parse.columns import FLOAT, SIZE, Column, clean_cell, read_cell
from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import ParsedRun, Point
from commscope.ingest.parse.table_blocks import TableBlock, find_tables
from commscope.ingest.parse.text import unwrap
from commscope.records.benchmarks import from_program, primary_metric, ranks_of

SOURCE_FORMAT = "jube"
_PROGRAM = re.compile(r"^(?:.*/)?osu_\w+$")
_SEPARATORS = (",", ";", "\t")
_TABLE_NAME = re.compile(r"^\s*(?P<name>[\w.-]+):\s*$")

# Header names, lower-cased without anything but letters and digits ("Tasks / Node" ->
# "tasksnode"), by the role of the column.
_EXE = {"osuexe", "exe", "executable", "program", "benchmark", "osubenchmark", "osuprogram"}
_NODES = {"nodes", "node", "numnodes", "nnodes", "nodecount"}
_PER_NODE = {
    "taskspernode",
    "tasksnode",
    "tasksnodes",
    "taskpernode",
    "ntaskspernode",
    "ppn",
    "rankspernode",
    "processespernode",
}
_TASKS = {"tasks", "ntasks", "np", "ranks", "nprocs", "numtasks"}
_SIZE = {"size", "sizelast", "sizefirst", "sizemax", "sizemin"}
_MSG_SIZE = {"msgsize", "messagesize", "msgsizes"}
_IDS = {"id", "jubebenchmarkid", "jubewpid", "jubewpiteration", "wpid", "workpackage", "jubebenchmarkname"}
_JOB_ID = {"jobid", "slurmjobid"}
# How each row's job ended: bookkeeping of the batch system, not a setting of the measurement.
_JOB_STATE = {"status", "state", "jobstate", "exitcode"}
_SYSTEM = {"system", "systemname", "machine", "cluster"}
_ACCELERATOR = {"buffer", "device"}  # OMB's -d cuda
_PLACEMENT = {"target", "buffers"}  # OMB's words after the flags: D D, H D


def _norm(header: str) -> str:
    return re.sub(r"[^a-z0-9]", "", header.lower())


@dataclass(frozen=True)
class _Columns:
    exe: int
    size: int
    result: int
    nodes: int | None = None
    per_node: int | None = None
    tasks: int | None = None
    msg_size: int | None = None
    runtime: int | None = None
    job_id: int | None = None
    system: int | None = None
    accelerator: int | None = None
    placement: int | None = None
    ids: frozenset[int] = frozenset()  # JUBE's own ids and the job's state: no run parameter

    @functools.cache
    def others(self, count: int) -> list[int]:
        """The columns of a row of `count` cells that have no role: the run's parameters."""
        return [index for index in range(count) if index not in self.roles()]

    def roles(self) -> set[int]:
        named = {self.exe, self.size, self.result, self.nodes, self.per_node, self.tasks, self.msg_size, self.runtime}
        named |= {self.job_id, self.system, self.accelerator, self.placement}
        return {index for index in named if index is not None} | self.ids


def _first(names: list[str], wanted: set[str]) -> int | None:
    return next((index for index, name in enumerate(names) if name in wanted), None)


def _columns(header: list[str], rows: list[list[str]]) -> _Columns | None:
    """The role of each column, or None when this is not a JUBE table of OSU results."""
    names = [_norm(cell) for cell in header]
    exe = _first(names, _EXE)
    if exe is None:
        exe = next(
            (
                index
                for index in range(len(header))
                if rows and all(index < len(row) and _PROGRAM.match(clean_cell(row[index])) for row in rows)
            ),
            None,
        )
    result = _first(names, {"result"})
    if result is None:
        result = next((index for index, name in enumerate(names) if name.startswith("result")), None)
    size = _first(names, _SIZE)
    msg_size = _first(names, _MSG_SIZE)
    if size is None:
        size, msg_size = msg_size, None
    if exe is None or result is None or size is None:
        return None
    runtime = next((index for index, name in enumerate(names) if name.startswith(("runtime", "walltime"))), None)
    return _Columns(
        exe=exe,
        size=size,
        result=result,
        nodes=_first(names, _NODES),
        per_node=_first(names, _PER_NODE),
        tasks=_first(names, _TASKS),
        msg_size=msg_size,
        runtime=runtime,
        job_id=_first(names, _JOB_ID),
        system=_first(names, _SYSTEM),
        accelerator=_first(names, _ACCELERATOR),
        placement=_first(names, _PLACEMENT),
        ids=frozenset(index for index, name in enumerate(names) if name in _IDS | _JOB_STATE),
    )


def _csv_block(lines: list[str], index: int, claimed: set[int]) -> TableBlock | None:
    """A csv or aligned `jube result` table whose header starts at lines[index]."""
    header_text = unwrap(lines[index])
    for separator in _SEPARATORS:
        header = [cell.strip() for cell in header_text.split(separator)]
        if len(header) < 3 or not all(header):
            continue
        rows = []
        number = index + 1
        while number < len(lines) and number + 1 not in claimed and unwrap(lines[number]):
            rows.append((number + 1, [cell.strip() for cell in unwrap(lines[number]).split(separator)]))
            number += 1
        return TableBlock("csv", header, index + 1, rows, index + 1, number)
    return None


def _blocks(lines: list[str], claimed: set[int]) -> list[TableBlock]:
    blocks = [block for block in find_tables(lines, claimed) if block.kind == "markdown"]
    in_tables = {line for block in blocks for line in range(block.first_line, block.last_line + 1)}
    index = 0
    while index < len(lines):
        if index + 1 in claimed or index + 1 in in_tables:
            index += 1
            continue
        block = _csv_block(lines, index, claimed | in_tables)
        if block is not None and _columns(block.header, [cells for _, cells in block.rows]) is not None:
            blocks.append(block)
            index = block.last_line
        else:
            index += 1
    return sorted(blocks, key=lambda block: block.first_line)


def _cell(text: str, column: Column, source: str, line: int) -> float | int:
    """A number of a row, checked as OMB tables' are (finite, never negative where the unit
    cannot be, sizes SQLite can store); JUBE prints thousands with commas."""
    try:
        value = read_cell(text.replace(",", "") if text.count(",") and "." in text else text, column)
    except ValueError as exc:
        raise ParseError(source, line, str(exc)) from None
    assert not isinstance(value, str)  # only STATUS columns give words
    return value


def _count(text: str, header: str, source: str, line: int) -> int:
    """Nodes, tasks: a whole number, written 2 or 2.0."""
    value = _cell(text, Column(header, "count", FLOAT), source, line)
    if not float(value).is_integer() or value < 0:
        raise ParseError(source, line, f"column {header!r}: {text!r} is not a whole number")
    return int(value)


_UNIT = re.compile(r"\[\s*(?P<unit>[a-z]+)\s*\]\s*$", re.IGNORECASE)
_SECONDS = {"s": 1.0, "sec": 1.0, "secs": 1.0, "seconds": 1.0, "ms": 1e-3, "us": 1e-6, "min": 60.0, "h": 3600.0}


def _seconds_per(header: str) -> float:
    """The runtime column's unit in seconds: runtime[sec], runtime[ms], ...; seconds without one."""
    match = _UNIT.search(header)
    return _SECONDS.get(match["unit"].lower(), 1.0) if match else 1.0


def _table_name(lines: list[str], block: TableBlock) -> str | None:
    above = block.first_line - 2  # 0-based index of the line above the header
    match = _TABLE_NAME.match(lines[above]) if above >= 0 else None
    return match["name"] if match else None


def _describe(nodes: int | None, per_node: int | None, tasks: int | None, parameters: dict[str, str]) -> str:
    words = []
    if nodes is not None:
        words.append(f"{nodes} node{'s' if nodes != 1 else ''}")
    if per_node is not None:
        words.append(f"{per_node} task{'s' if per_node != 1 else ''}/node")
    elif tasks is not None:
        words.append(f"{tasks} task{'s' if tasks != 1 else ''}")
    words += [f"{key}={value}" for key, value in parameters.items()]
    return ", ".join(words)


@dataclass
class _Row:
    """One row of a table, read and checked."""

    program: str
    benchmark: str
    metric: str
    size: int
    values: dict[str, float | int | str]
    nodes: int | None
    per_node: int | None
    tasks: int | None
    system: str | None
    job_id: str | None
    msg_size: str | None  # JUBE's parameter, beside the measured size
    settings: dict[str, str]  # GPU buffers
    parameters: dict[str, str]  # the other columns, which tell runs apart


def _read_row(cells: list[str], line: int, header: list[str], columns: _Columns, source: str) -> _Row:
    if len(cells) != len(header):
        raise ParseError(source, line, f"JUBE table row has {len(cells)} cells, its header {len(header)}")
    cells = [clean_cell(cell) for cell in cells]

    def text(index: int | None) -> str | None:
        return cells[index] or None if index is not None else None

    def count(index: int | None) -> int | None:
        return _count(cells[index], header[index], source, line) if index is not None and cells[index] else None

    program = cells[columns.exe]
    if not program:
        raise ParseError(source, line, f"column {header[columns.exe]!r} is empty: which benchmark ran?")
    benchmark = from_program(program)
    for role in (columns.size, columns.result):
        if not cells[role]:
            raise ParseError(
                source,
                line,
                f"column {header[role]!r} is empty: the job left no result "
                "(did it fail? `jube analyse` again once it finished)",
            )
    metric = primary_metric(benchmark)
    values: dict[str, float | int | str] = {
        metric: _cell(cells[columns.result], Column(header[columns.result], metric, FLOAT), source, line)
    }
    if columns.runtime is not None and cells[columns.runtime]:
        runtime = Column(header[columns.runtime], "runtime_s", FLOAT)
        values["runtime_s"] = _cell(cells[columns.runtime], runtime, source, line) * _seconds_per(runtime.header)
    return _Row(
        program=program,
        benchmark=benchmark,
        metric=metric,
        size=int(_cell(cells[columns.size], Column(header[columns.size], "size", SIZE), source, line)),
        values=values,
        nodes=count(columns.nodes),
        per_node=count(columns.per_node),
        tasks=count(columns.tasks),
        system=text(columns.system),
        job_id=text(columns.job_id),
        msg_size=cells[columns.msg_size] if columns.msg_size is not None else None,
        settings=_settings(text(columns.accelerator), text(columns.placement)),
        parameters={header[index]: cells[index] for index in columns.others(len(header))},
    )


@dataclass
class _Curve:
    """A run being read: its sizes so far, so that a size seen again starts a repeat at
    once (looking through the run's points for it made a long sweep quadratic)."""

    run: ParsedRun
    sizes: set[int] = field(default_factory=set)
    job_ids: list[str] = field(default_factory=list)


def _read_block(lines: list[str], block: TableBlock, columns: _Columns, source: str) -> list[ParsedRun]:
    """The runs of one table. A row that cannot be read (a job that failed and left empty
    cells) is left out and named on the first run; a table of such rows alone is refused."""
    header = block.header
    table = _table_name(lines, block)
    curves: dict[tuple, _Curve] = {}
    order: list[_Curve] = []
    rejected: list[ParseError] = []
    for line, cells in block.rows:
        if not any(cells):
            continue
        try:
            row = _read_row(cells, line, header, columns, source)
        except ParseError as exc:
            rejected.append(exc)
            continue
        key = (row.benchmark, row.nodes, row.per_node, row.tasks, row.system) + tuple(row.settings.items())
        key += tuple(row.parameters.items())
        curve = curves.get(key)
        if curve is None or row.size in curve.sizes:  # a size seen again: a repeat
            curve = curves[key] = _Curve(_new_run(row, line, table, header, columns, source))
            order.append(curve)
        elif columns.msg_size is not None:
            curve.run.parameters.pop(header[columns.msg_size], None)  # a sweep: the size says it per point
        curve.sizes.add(row.size)
        if row.job_id is not None and row.job_id not in curve.job_ids:
            curve.job_ids.append(row.job_id)
        curve.run.points.append(Point(row.size, row.values, line))
    if not order and rejected:
        raise rejected[0]
    for curve in order:
        run = curve.run
        run.points.sort(key=lambda point: point.size)
        run.job_id = ",".join(curve.job_ids) or None
        if run.metrics.get("runtime_s") and not any("runtime_s" in point.values for point in run.points):
            del run.metrics["runtime_s"]
    if order:
        order[0].run.rejected_rows = [(exc.line or block.header_line, exc.message) for exc in rejected]
    return [curve.run for curve in order]


def _new_run(row: _Row, line: int, table: str | None, header: list[str], columns: _Columns, source: str) -> ParsedRun:
    ranks = row.nodes * row.per_node if row.nodes is not None and row.per_node is not None else row.tasks
    parameters: dict[str, object] = {**row.parameters, **row.settings}
    if columns.msg_size is not None:
        parameters[header[columns.msg_size]] = row.msg_size
    if row.per_node is not None:
        parameters["tasks_per_node"] = row.per_node
    return ParsedRun(
        benchmark=row.benchmark,
        source_format=SOURCE_FORMAT,
        source=source,
        line=line,
        metrics={row.metric: "MB/s" if row.metric == "bandwidth_MBps" else "us", "runtime_s": "s"},
        points=[],
        title=f"JUBE {f'table {table}' if table else 'result'}: {row.program}",
        label=_describe(row.nodes, row.per_node, row.tasks, row.parameters) or None,
        ranks=ranks if ranks is not None else ranks_of(row.benchmark, {}),
        nodes=row.nodes,
        system=row.system,
        parameters=parameters,
        provenance={"harness": "JUBE", **({"jube_table": table} if table else {}), "program": row.program},
    )


def _settings(accelerator: str | None, placement: str | None) -> dict[str, str]:
    """GPU buffers as the OMB reader names them: `buffer: cuda` is OMB's -d cuda, `target:
    D D` the sender's and the receiver's buffer placement."""
    settings = {"accelerator": accelerator} if accelerator else {}
    words = placement.split() if placement else []
    if len(words) == 2:
        settings.update(send_buffer=words[0].upper(), recv_buffer=words[1].upper())
    elif placement:
        settings["buffers"] = placement
    return settings


def read_jube_tables(lines: list[str], claimed: set[int], source: str) -> tuple[list[ParsedRun], set[int]]:
    """Runs of every JUBE table of OSU results outside ``claimed`` lines, and the lines they took."""
    runs: list[ParsedRun] = []
    taken: set[int] = set()
    for block in _blocks(lines, claimed):
        columns = _columns(block.header, [cells for _, cells in block.rows])
        if columns is None:
            continue
        if not block.rows:
            raise ParseError(source, block.header_line, "JUBE table without any row (no workpackage finished?)")
        runs += _read_block(lines, block, columns, source)
        taken.update(range(block.first_line, block.last_line + 1))
    return runs, taken
