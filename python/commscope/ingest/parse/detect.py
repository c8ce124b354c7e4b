"""Recognising what a file is and handing it to the right readers."""

from __future__ import annotations

import os

from commscope.ingest.parse.commscope_json import looks_like_commscope_json, read_commscope_json
from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.hpl import HPCC_BANNER, looks_like_hpl, read_hpcc, read_hpl_out, read_hpl_tables
from commscope.ingest.parse.imb import read_imb
from commscope.ingest.parse.jube import read_jube_tables
from commscope.ingest.parse.model import ParsedRun, check_values
from commscope.ingest.parse.nccl_tests import looks_like_nccl_tests, read_nccl_tests
from commscope.ingest.parse.nccl_tests_json import looks_like_nccl_tests_json, read_nccl_tests_json
from commscope.ingest.parse.omb import read_omb
from commscope.ingest.parse.storage import (
    looks_like_fio_json,
    looks_like_iozone,
    read_fio_json,
    read_iozone,
    read_storage_tables,
)
from commscope.ingest.parse.tables import read_tables
from commscope.ingest.parse.text import check_is_text, decode, split_lines

# A title with no table under it is still fine when a table another reader
# found follows within this many lines (a heading above a Markdown table).
_TITLE_REACH = 20


def parse_file(path: str | os.PathLike[str]) -> list[ParsedRun]:
    """Read every benchmark run in a result file, whatever its format.

    Raises :class:`ParseError` (and nothing else) if the file cannot be read
    or holds nothing commscope understands.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise ParseError(name, None, f"cannot read file: {error.strerror or error}") from None
    return parse_bytes(data, name)


def parse_bytes(data: bytes, source_name: str = "<bytes>", nccl_program: str | None = None) -> list[ParsedRun]:
    """Like :func:`parse_text` for raw file contents in any encoding we know."""
    return parse_text(decode(data), source_name, nccl_program)


def parse_text(text: str, source_name: str = "<text>", nccl_program: str | None = None) -> list[ParsedRun]:
    """Read every benchmark run in ``text``: OMB 5.x-7.x or commscope text
    output, IMB output, nccl-tests / rccl-tests output (text or -J JSON), a commscope
    JSON document, JUBE result tables, or Markdown /
    reStructuredText / whitespace tables of OMB numbers. ``source_name``
    names the text in errors and in :attr:`ParsedRun.source`; ``nccl_program`` the
    nccl-tests program (all_reduce_perf...) of an output that does not name its own.

    Runs come in the order they appear in the text. Raises
    :class:`ParseError` (and nothing else) on anything malformed or unknown.
    """
    try:
        return check_values(_parse(text, source_name, nccl_program))
    except ParseError:
        raise
    except Exception as error:  # the promise is "only ParseError", even for our own bugs
        raise ParseError(
            source_name, 1, f"internal reader error (please report): {type(error).__name__}: {error}"
        ) from error


def detect_format(text: str) -> str | None:
    """The source format of the first run in ``text`` (one of
    ``SOURCE_FORMATS``), or ``None`` if it cannot be read."""
    try:
        runs = parse_text(text, "<detect>")
    except ParseError:
        return None
    return runs[0].source_format if runs else None


def _parse(text: str, source: str, nccl_program: str | None = None) -> list[ParsedRun]:
    check_is_text(text, source)
    if looks_like_fio_json(text):
        return read_fio_json(text, source)
    if looks_like_nccl_tests_json(text):
        return read_nccl_tests_json(text, source, nccl_program)
    lines = split_lines(text)
    # nccl-tests and rccl-tests: the whole output is theirs (its rows look like no other
    # table); before the JSON check, as mpirun's "[1,0]<stdout>:" tags start it with "["
    if ("busbw" in text or "nThread" in text) and looks_like_nccl_tests(lines):
        return read_nccl_tests(lines, source, nccl_program)
    if looks_like_commscope_json(text):
        return read_commscope_json(text, source)
    # Whole outputs of other tools: HPL (xhpl or hpcc) and IOzone.
    if looks_like_hpl(lines):
        return (
            read_hpcc(lines, source)
            if any(line.startswith(HPCC_BANNER) for line in lines)
            else read_hpl_out(lines, source)
        )
    if looks_like_iozone(lines):
        return read_iozone(lines, source)
    imb_runs, imb_lines = read_imb(lines, source)
    omb_runs, omb_lines, dangling = read_omb(lines, source)
    claimed = imb_lines | omb_lines
    # JUBE result tables of OSU runs (the JUPITER procurement rules, jubench-osu): before the
    # generic tables, which would take their size and result columns for an OMB table without knowing the benchmark.
    jube_runs, jube_lines = read_jube_tables(lines, claimed, source)
    claimed |= jube_lines
    # Tables of the cluster beside the network (a standard-benchmarks page): HPL results, storage sweeps.
    hpl_runs, hpl_lines = read_hpl_tables(lines, claimed, source)
    storage_runs, storage_lines = read_storage_tables(lines, claimed | hpl_lines, source)
    claimed |= hpl_lines | storage_lines
    table_runs = read_tables(lines, claimed, source)
    runs = imb_runs + omb_runs + jube_runs + hpl_runs + storage_runs + table_runs
    for title in dangling:
        if not any(title.line < run.line <= title.line + _TITLE_REACH for run in table_runs):
            raise ParseError(source, title.line, f"'{title.title}' is not followed by a table (truncated output?)")
    if not runs:
        raise ParseError(
            source, 1, "unrecognised format: no OMB, IMB or commscope results and no table of message sizes found"
        )
    runs.sort(key=lambda run: run.line)  # stable: runs of one table keep their column order
    return runs
