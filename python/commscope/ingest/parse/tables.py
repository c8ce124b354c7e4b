"""Reader for tables of OMB numbers that people paste into documents.

Four shapes are found, in wikis, procurement documents, reports and mailing lists:

* Markdown pipe tables (``| Size | Latency (us) |`` then ``|---|---|``),
* reStructuredText grid tables (``+------+`` borders, ``+====+`` under the header),
* tab-separated tables copied out of spreadsheets, with group names spanning
  merged cells and, in some locales, decimal commas,
* whitespace tables: an OMB-style header (``# Size  Latency (us)  Latency (us)``)
  without an OMB title, often comparing several systems side by side with
  their names on the line above.

A table is read only if it has a message-size column and at least one column
of known numbers; other tables (prose, HPL results, file-system throughput)
are left alone. Once a table is taken, its rows must be well-formed, or the
file is rejected with the line of the bad row.

The benchmark is named by a ``osu_*`` program column (as in JUBE result
tables), or else by the nearest OMB title or ``osu_*`` command above the
table. Columns that name a system instead of a unit (``| Size | cluster-a |
cluster-b |``) hold that benchmark's main metric, one run per column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from commscope.ingest.parse.columns import (
    SIZE,
    Column,
    clean_cell,
    column_for,
    is_number,
    read_cell,
    recognise,
    recognise_labelled,
)
from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import ParsedRun, Point
from commscope.ingest.parse.series import append_point, group_series
from commscope.ingest.parse.table_blocks import TableBlock, find_tables
from commscope.ingest.parse.text import unwrap, version_in
from commscope.records import benchmarks
from commscope.records.metrics import unit_of

_PROGRAM = re.compile(r"\bosu_([a-z][a-z0-9_]*)\b", re.IGNORECASE)
_LOOSE_TITLE = re.compile(
    r"\b(?P<tool>OSU|commscope)\s+MPI(?:_(?P<op>[A-Za-z_]+?))?(?:-[A-Z]+(?: MANAGED)?)?\s+(?P<desc>.+?)"
    r"(?:\s+Test)?(?:\s+v(?P<version>\d[\w.\-]*))?\s*$",
    re.IGNORECASE,
)
_GENERIC_VALUE = {"result", "results", "value", "values"}
_CONTEXT_LINES = 15


@dataclass
class Context:
    """What the text around a table says about it."""

    benchmark: str | None = None
    tool: str | None = None
    version: str | None = None
    title: str | None = None


@dataclass
class _SeriesColumn:
    index: int
    metric: str | None  # None: the benchmark's main metric, decided per row
    label: str | None


@dataclass
class _Plan:
    """How the columns of a table are used."""

    size: int
    program: int | None
    labels: list[int]
    series: list[list[_SeriesColumn]] = field(default_factory=list)


def context_above(lines: list[str], first_line: int, claimed: set[int]) -> Context:
    """The benchmark named by the nearest title or osu_* command above a table."""
    for number in range(first_line - 1, max(0, first_line - 1 - _CONTEXT_LINES), -1):
        if number in claimed:
            break
        text = re.sub(r"[*`#>]+", " ", unwrap(lines[number - 1])).strip()
        if not text:
            continue
        title = _LOOSE_TITLE.search(text)
        if title:
            description = re.sub(r"\(.*?\)", " ", title["desc"])
            name, known = benchmarks.from_omb_description(description, title["op"])
            if known:
                return Context(name, "OMB" if title["tool"].upper() == "OSU" else "commscope", title["version"], text)
        program = _PROGRAM.search(text)
        if program:
            return Context(benchmarks.from_program(program.group(0)), "OMB", None, text)
    return Context()


def _plan(block: TableBlock, context: Context) -> _Plan | None:
    """Decide what each column is, or ``None`` if the table holds no OMB numbers."""
    header = block.header
    known = [recognise(cell) for cell in header]
    sizes = [i for i, column in enumerate(known) if column is not None and column.kind == SIZE]
    if not sizes or not block.rows:
        return None
    plan = _Plan(size=sizes[0], program=_program_column(block), labels=[])
    series_columns: list[_SeriesColumn] = []
    undecided: list[int] = []
    for index, (cell, column) in enumerate(zip(header, known, strict=True)):
        if index in sizes or index == plan.program:
            continue
        if column is not None and not column.is_key:
            series_columns.append(_SeriesColumn(index, column.metric, None))
            continue
        labelled = recognise_labelled(cell)
        if labelled is not None:
            series_columns.append(_SeriesColumn(index, labelled[1].metric, labelled[0]))
        elif cell.lower() in _GENERIC_VALUE and (context.benchmark or plan.program is not None):
            series_columns.append(_SeriesColumn(index, None, None))
        else:
            undecided.append(index)
    if series_columns:
        plan.labels = undecided
    elif block.default_metric or context.benchmark is not None or plan.program is not None:
        # "| Size | cluster-a | cluster-b |": numeric columns named after systems.
        numeric = [i for i in undecided if _all_numeric(block, i)]
        plan.labels = [i for i in undecided if i not in numeric]
        series_columns = [_SeriesColumn(i, block.default_metric, header[i]) for i in numeric]
    if not series_columns:
        return None
    plan.series = _side_by_side(series_columns, block.super_header)
    return plan


def _side_by_side(columns: list[_SeriesColumn], names: list[str] | None) -> list[list[_SeriesColumn]]:
    """Group metric columns into series (a generic "result" column counts as
    the metric ``None``); names from the line above label them."""
    groups = [
        [columns[p] for p in group] for group in group_series([(column.metric, column.label) for column in columns])
    ]
    if names and len(names) == len(groups) and len(groups) > 1:
        for group, name in zip(groups, names, strict=True):
            for column in group:
                column.label = column.label or name
    return groups


def _program_column(block: TableBlock) -> int | None:
    for index in range(len(block.header)):
        values = [cells[index] for _, cells in block.rows if index < len(cells) and cells[index]]
        if values and all(_PROGRAM.fullmatch(v.strip("`").rsplit("/", 1)[-1]) for v in values):
            return index
    return None


def _all_numeric(block: TableBlock, index: int) -> bool:
    return all(index < len(cells) and is_number(clean_cell(cells[index])) for _, cells in block.rows)


def read_table(block: TableBlock, context: Context, source: str) -> list[ParsedRun]:
    """The runs of one table, or ``[]`` if it does not hold OMB numbers."""
    plan = _plan(block, context)
    if plan is None:
        return []
    guessed = None
    if plan.program is None and context.benchmark is None:
        guessed = _benchmark_for_metric(plan.series[0][0].metric or block.default_metric)
    size_column = Column(block.header[plan.size], SIZE, SIZE)
    runs: dict[tuple[str, tuple[str, ...], int], ParsedRun] = {}
    for line, cells in block.rows:
        _check_width(block, cells, line, source)
        size = _read(cells[plan.size], size_column, line, source)
        benchmark = (
            benchmarks.from_program(cells[plan.program])
            if plan.program is not None
            else context.benchmark or guessed or "unknown"
        )
        label_parts = tuple(f"{block.header[i]}={cells[i]}" for i in plan.labels if cells[i])
        for number, group in enumerate(plan.series):
            values = {}
            for column in group:
                metric = column.metric or benchmarks.primary_metric(benchmark)
                values[metric] = _read(
                    cells[column.index], column_for(metric, block.header[column.index]), line, source
                )
            key = (benchmark, label_parts, number)
            run = runs.get(key)
            if run is None:
                run = runs[key] = _new_run(block, context, source, benchmark, label_parts, group[0].label)
            run.metrics.update({metric: unit_of(metric) for metric in values})
            append_point(run.points, Point(size=size, values=values, line=line), source)
    result = list(runs.values())
    if guessed:
        for run in result:
            run.notes.append(f"no benchmark named near the table; '{guessed}' guessed from its columns")
    return result + _summary_runs(block, plan, context, source)


def _summary_runs(block: TableBlock, plan: _Plan, context: Context, source: str) -> list[ParsedRun]:
    """Size-less runs from rows such as "Latency [us]" under a bandwidth table."""
    runs = []
    for line, metric, cells in block.summaries:
        _check_width(block, cells, line, source)
        benchmark = _benchmark_for_metric(metric) or "unknown"
        for group in plan.series:
            column = group[0]
            value = _read(cells[column.index], column_for(metric, block.header[column.index]), line, source)
            run = _new_run(block, context, source, benchmark, (), column.label)
            run.line = line
            run.metrics[metric] = unit_of(metric)
            run.points.append(Point(size=None, values={metric: value}, line=line))
            runs.append(run)
    return runs


def _check_width(block: TableBlock, cells: list[str], line: int, source: str) -> None:
    if len(cells) != len(block.header):
        raise ParseError(source, line, f"row has {len(cells)} values but header has {len(block.header)} columns")


def _read(cell: str, column: Column, line: int, source: str) -> float | int | str:
    try:
        return read_cell(cell, column)
    except ValueError as error:
        raise ParseError(source, line, str(error)) from None


def _benchmark_for_metric(metric: str | None) -> str | None:
    """A benchmark guessed from what a table measures, for tables that do not say."""
    return {"latency_us": "latency", "bandwidth_MBps": "bw", "message_rate": "mbw_mr"}.get(metric or "")


def _new_run(
    block: TableBlock,
    context: Context,
    source: str,
    benchmark: str,
    label_parts: tuple[str, ...],
    series_label: str | None,
) -> ParsedRun:
    label = ", ".join(list(label_parts) + ([series_label] if series_label else [])) or None
    return ParsedRun(
        benchmark=benchmark,
        source_format="table",
        source=source,
        line=block.first_line,
        metrics={},
        points=[],
        tool=context.tool,
        tool_version=context.version or version_in(label),
        title=context.title,
        label=label,
        ranks=benchmarks.ranks_of(benchmark, {}),
        parameters={"table": block.kind},
    )


def read_tables(lines: list[str], claimed: set[int], source: str) -> list[ParsedRun]:
    """Runs from every table of OMB numbers outside the ``claimed`` lines."""
    runs: list[ParsedRun] = []
    for block in find_tables(lines, claimed):
        runs.extend(read_table(block, context_above(lines, block.first_line, claimed), source))
    return runs
