"""Finding tables in text, before their columns are understood.

Each finder looks at one line and, if a table of its shape starts there,
returns a :class:`TableBlock` with the header cells and the data rows (and
their line numbers); :mod:`.tables` then decides what the columns mean.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from commscope.ingest.parse.columns import (
    SIZE,
    clean_cell,
    is_integer,
    is_number,
    recognise,
    recognise_labelled,
    split_header,
    split_on_wide_gaps,
)
from commscope.ingest.parse.text import unwrap

_MD_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?$")
_GRID_BORDER = re.compile(r"^\+(?:[-=]+\+)+$")


@dataclass
class TableBlock:
    """A table found in the text, before its columns are understood."""

    kind: str  # "markdown", "grid", "tab-separated" or "whitespace"
    header: list[str]
    header_line: int
    rows: list[tuple[int, list[str]]]
    first_line: int
    last_line: int
    super_header: list[str] | None = None  # names above the columns (side-by-side tables)
    # The metric of columns named after systems, when the table says it once
    # for all ("Message size [B] to bandwidth [MB/s]").
    default_metric: str | None = None
    # Rows after the sizes that hold one more number per column, such as a
    # "Latency [us]" line under a bandwidth table: (line, metric, cells).
    summaries: list[tuple[int, str, list[str]]] = field(default_factory=list)


def find_tables(lines: list[str], claimed: set[int]) -> list[TableBlock]:
    """Every Markdown, grid and whitespace table in ``lines`` outside ``claimed`` lines."""
    blocks: list[TableBlock] = []
    index = 0
    while index < len(lines):
        if index + 1 in claimed:
            index += 1
            continue
        block = (
            _markdown_at(lines, index, claimed)
            or _grid_at(lines, index, claimed)
            or _tab_separated_at(lines, index, claimed)
            or _whitespace_at(lines, index, claimed)
        )
        if block is None:
            index += 1
            continue
        blocks.append(block)
        index = block.last_line  # last_line is 1-based: continue after it
    return blocks


def _split_pipes(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    return [clean_cell(cell) for cell in re.split(r"(?<!\\)\|", text)]


def _markdown_at(lines: list[str], index: int, claimed: set[int]) -> TableBlock | None:
    header = unwrap(lines[index])
    if "|" not in header or index + 1 >= len(lines) or not _MD_SEPARATOR.match(unwrap(lines[index + 1])):
        return None
    rows = []
    number = index + 2
    while number < len(lines) and "|" in lines[number] and (number + 1) not in claimed:
        text = unwrap(lines[number])
        if not text:
            break
        rows.append((number + 1, _split_pipes(text)))
        number += 1
    return TableBlock("markdown", _split_pipes(header), index + 1, rows, index + 1, number)


def _grid_at(lines: list[str], index: int, claimed: set[int]) -> TableBlock | None:
    if not _GRID_BORDER.match(unwrap(lines[index])):
        return None
    width = unwrap(lines[index]).count("+") - 1
    segments: list[tuple[list[tuple[int, str]], str]] = []  # (text lines, border char after them)
    pending: list[tuple[int, str]] = []
    number = index + 1
    while number < len(lines) and (number + 1) not in claimed:
        text = unwrap(lines[number])
        if _GRID_BORDER.match(text):
            if pending:
                segments.append((pending, "=" if "=" in text else "-"))
            pending = []
        elif text.startswith("|"):
            pending.append((number + 1, text))
        else:
            break
        number += 1
    if not segments:
        return None
    header_end = next((i for i, (_, border) in enumerate(segments) if border == "="), 0)
    cells_of = [_grid_cells(seg, width) for seg, _ in segments]
    if any(cells is None for cells in cells_of):
        return None  # cells containing "|" cannot be told apart; not a table we can read
    header_rows = cells_of[: header_end + 1]
    header = [" ".join(filter(None, parts)) for parts in zip(*header_rows, strict=True)]
    rows = [(segments[i][0][0][0], cells_of[i]) for i in range(header_end + 1, len(segments))]
    return TableBlock("grid", header, segments[0][0][0][0], rows, index + 1, number)  # type: ignore[arg-type]


def _grid_cells(segment: list[tuple[int, str]], width: int) -> list[str] | None:
    """Cells of one grid row, whose text may span several lines."""
    columns: list[list[str]] = [[] for _ in range(width)]
    for _, text in segment:
        cells = text.strip().strip("|").split("|")
        if len(cells) != width:
            return None
        for column, cell in zip(columns, cells, strict=True):
            if cell.strip():
                column.append(cell.strip())
    return [clean_cell(" ".join(parts)) for parts in columns]


_SIZE_TO_METRIC = re.compile(r"(?P<size>.+?)\s+(?:to|vs\.?|versus|->|\u2192)\s+(?P<metric>.+)", re.IGNORECASE)
_DECIMAL_COMMA = re.compile(r"-?\d+,\d+")


def _tab_separated_at(lines: list[str], index: int, claimed: set[int]) -> TableBlock | None:
    """A table copied out of a spreadsheet: tab-separated cells, one or more
    header rows whose group names span the empty cells after them, maybe
    decimal commas."""
    if "\t" not in lines[index]:
        return None
    end = index
    while end < len(lines) and "\t" in lines[end] and (end + 1) not in claimed:
        end += 1
    block = [(n + 1, _tab_cells(lines[n])) for n in range(index, end)]
    first_row = next((i for i, (_, cells) in enumerate(block) if cells and is_integer(cells[0])), None)
    if first_row is None or not 1 <= first_row <= 3:
        return None
    rows: list[tuple[int, list[str]]] = []
    summaries: list[tuple[int, str, list[str]]] = []
    for number, cells in block[first_row:]:
        summary = recognise(cells[0]) if cells else None
        if cells and is_integer(cells[0]) and not summaries:
            rows.append((number, cells))
        elif summary is not None and not summary.is_key:
            summaries.append((number, summary.metric, cells))
        else:
            break
    width = len(rows[0][1])
    header_rows = [cells + [""] * (width - len(cells)) for _, cells in block[:first_row]]
    if any(len(cells) > width for cells in header_rows):
        return None
    size_header, default_metric = _size_and_metric(
        header_rows[0][0] or next((cells[0] for cells in header_rows if cells[0]), "")
    )
    if size_header is None:
        return None
    names = [
        " ".join(part for part in parts if part)
        for parts in zip(*[_spread(cells[1:]) for cells in header_rows], strict=True)
    ]
    if _uses_decimal_comma(rows + [(n, c) for n, _, c in summaries]):
        rows = [(n, [c.replace(",", ".") for c in cells]) for n, cells in rows]
        summaries = [(n, m, [c.replace(",", ".") for c in cells]) for n, m, cells in summaries]
    last = summaries[-1][0] if summaries else rows[-1][0]
    return TableBlock(
        "tab-separated",
        [size_header] + names,
        block[0][0],
        rows,
        block[0][0],
        last,
        default_metric=default_metric,
        summaries=summaries,
    )


def _tab_cells(line: str) -> list[str]:
    cells = [clean_cell(cell) for cell in line.split("\t")]
    while cells and not cells[-1]:
        cells.pop()
    return cells


def _spread(cells: list[str]) -> list[str]:
    """Group names of merged spreadsheet cells carried over the empty cells after them."""
    spread, current = [], ""
    for cell in cells:
        current = cell or current
        spread.append(current)
    return spread


def _size_and_metric(cell: str) -> tuple[str | None, str | None]:
    """The size column's header, and the metric if the cell names one for the
    whole table (``Message size [B] to bandwidth [MB/s]``)."""
    column = recognise(cell)
    if column is not None and column.kind == SIZE:
        return cell, None
    match = _SIZE_TO_METRIC.fullmatch(cell)
    if match:
        size, metric = recognise(match["size"]), recognise(match["metric"])
        if size is not None and size.kind == SIZE and metric is not None and not metric.is_key:
            return match["size"], metric.metric
    return None, None


def _uses_decimal_comma(rows: list[tuple[int, list[str]]]) -> bool:
    """Whether numbers are written 3,47481: some value has a comma that cannot
    be a thousands separator (not followed by exactly three digits)."""
    values = [cell for _, cells in rows for cell in cells[1:] if cell]
    with_comma = [cell for cell in values if _DECIMAL_COMMA.fullmatch(cell)]
    return bool(with_comma) and any(len(cell.split(",")[1]) != 3 for cell in with_comma)


def _whitespace_at(lines: list[str], index: int, claimed: set[int]) -> TableBlock | None:
    text = unwrap(lines[index])
    is_comment = text.startswith("#")
    text = text.lstrip("#").strip()
    if not text or is_number(text.split()[0]):
        return None
    cells = split_header(text)
    if len(cells) < 2:
        return None
    first = recognise(cells[0])
    if first is None or first.kind != SIZE:
        return None
    if not all(recognise(c) is not None or recognise_labelled(c) is not None for c in cells[1:]):
        return None
    rows = []
    number = index + 1
    while number < len(lines) and (number + 1) not in claimed:
        row = unwrap(lines[number])
        if not row:
            if rows:
                break
            number += 1
            continue
        tokens = row.split()
        if not is_integer(tokens[0]):
            break
        rows.append((number + 1, tokens))
        number += 1
    if not rows and not is_comment:
        return None  # a sentence that happens to start with "Size"
    return TableBlock(
        "whitespace",
        cells,
        index + 1,
        rows,
        index + 1,
        max(number, index + 1),
        super_header=_label_line_above(lines, index, claimed),
    )


def _label_line_above(lines: list[str], index: int, claimed: set[int]) -> list[str] | None:
    for number in range(index - 1, max(-1, index - 3), -1):
        if (number + 1) in claimed:
            return None
        text = unwrap(lines[number])
        if not text:
            continue
        if text.startswith("#") or is_number(text.split()[0]):
            return None
        return split_on_wide_gaps(text)
    return None
