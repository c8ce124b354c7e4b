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
Rows of the same executable with the same other parameters (nodes, tasks per node,
anything else but the size, runtime and JUBE's ids) are one run, a size sweep, with
its node and task counts; a size seen again in such a group starts a repeat run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from commscope.ingest.parse.columns import clean_cell
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


def _norm(header: str) -> str:
    return re.sub(r"[^a-z0-9]", "", header.lower())


@dataclass
class _Columns:
    exe: int
    size: int
    result: int
    nodes: int | None = None
    per_node: int | None = None
    tasks: int | None = None
    msg_size: int | None = None
    runtime: int | None = None
    ids: set[int] = field(default_factory=set)

    def roles(self) -> set[int]:
        named = {self.exe, self.size, self.result, self.nodes, self.per_node, self.tasks, self.msg_size, self.runtime}
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
        ids={index for index, name in enumerate(names) if name in _IDS},
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


def _number(text: str, source: str, line: int, header: str) -> float:
    try:
        return float(text.replace(",", "") if text.count(",") and "." in text else text)
    except ValueError:
        raise ParseError(source, line, f"column {header!r}: {text!r} is not a number") from None


def _integer(text: str, source: str, line: int, header: str) -> int:
    value = _number(text, source, line, header)
    if not value.is_integer() or value < 0:
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


def _read_block(lines: list[str], block: TableBlock, columns: _Columns, source: str) -> list[ParsedRun]:
    header = block.header
    extra = [index for index in range(len(header)) if index not in columns.roles()]
    table = _table_name(lines, block)
    runs: dict[tuple, list[ParsedRun]] = {}
    order: list[ParsedRun] = []
    for line, cells in block.rows:
        if not any(cells):
            continue
        if len(cells) != len(header):
            raise ParseError(source, line, f"JUBE table row has {len(cells)} cells, its header {len(header)}")
        cells = [clean_cell(cell) for cell in cells]

        def optional(index: int | None, kind=_integer) -> int | None:
            return kind(cells[index], source, line, header[index]) if index is not None and cells[index] else None

        program = cells[columns.exe]
        if not program:
            raise ParseError(source, line, f"column {header[columns.exe]!r} is empty: which benchmark ran?")
        benchmark = from_program(program)
        if not cells[columns.result]:
            raise ParseError(
                source,
                line,
                f"column {header[columns.result]!r} is empty: the job left no result "
                "(did it fail? `jube analyse` again once it finished)",
            )
        metric = primary_metric(benchmark)
        values: dict[str, float | int | str] = {
            metric: _number(cells[columns.result], source, line, header[columns.result])
        }
        runtime = optional(columns.runtime, _number)
        if runtime is not None:
            values["runtime_s"] = runtime * _seconds_per(header[columns.runtime])
        size = _integer(cells[columns.size], source, line, header[columns.size])
        nodes, per_node, tasks = optional(columns.nodes), optional(columns.per_node), optional(columns.tasks)
        parameters = {header[index]: cells[index] for index in extra}
        key = (benchmark, nodes, per_node, tasks, tuple(parameters.items()))
        group = runs.setdefault(key, [])
        if not group or size in group[-1].sizes:  # a size seen again: a repeat
            ranks = nodes * per_node if nodes is not None and per_node is not None else tasks
            run_parameters: dict[str, object] = dict(parameters)
            if columns.msg_size is not None:
                run_parameters[header[columns.msg_size]] = cells[columns.msg_size]
            group.append(
                ParsedRun(
                    benchmark=benchmark,
                    source_format=SOURCE_FORMAT,
                    source=source,
                    line=line,
                    metrics={metric: "MB/s" if metric == "bandwidth_MBps" else "us", "runtime_s": "s"},
                    points=[],
                    title=f"JUBE {f'table {table}' if table else 'result'}: {program}",
                    label=_describe(nodes, per_node, tasks, parameters) or None,
                    ranks=ranks if ranks is not None else ranks_of(benchmark, {}),
                    nodes=nodes,
                    parameters={**run_parameters, **({"tasks_per_node": per_node} if per_node is not None else {})},
                    provenance={"harness": "JUBE", **({"jube_table": table} if table else {}), "program": program},
                )
            )
            order.append(group[-1])
        elif columns.msg_size is not None:
            group[-1].parameters.pop(header[columns.msg_size], None)  # a sweep: the size says it per point
        group[-1].points.append(Point(size, values, line))
    for run in order:
        run.points.sort(key=lambda point: point.size)
        if run.metrics.get("runtime_s") and not any("runtime_s" in point.values for point in run.points):
            del run.metrics["runtime_s"]
    return order


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
