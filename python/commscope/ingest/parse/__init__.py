"""Readers of benchmark result files: the engine of ``commscope import``.

Formats read: OSU Micro-Benchmarks text output (5.x to 7.x, every table
layout, CUDA/ROCm variants), commscope's own text tables and JSON documents,
Intel MPI Benchmarks (IMB-MPI1 and alike) text output, and Markdown,
reStructuredText-grid and whitespace tables of OMB numbers pasted into
documents, including side-by-side comparisons of several systems.

    >>> from commscope.ingest.parse import parse_file
    >>> for run in parse_file("osu_latency.out"):
    ...     print(run.benchmark, run.label, run.series("latency_us")[:2])

Every reader raises :class:`ParseError` with the file and line for anything
it does not understand, and nothing else.
"""

from typing import TYPE_CHECKING

from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import SOURCE_FORMATS, ParsedRun, Point
from commscope.records.metrics import METRIC_UNITS, is_known_metric, percentile_metric, unit_of

if TYPE_CHECKING:
    from commscope.ingest.parse.detect import detect_format, parse_bytes, parse_file, parse_text

# The readers are imported when first asked for. Other parts of commscope import
# commscope.records.metrics, which runs this file first, and `commscope run` or
# `commscope show` should not pay for building every reader's regular expressions.
_READER_FUNCTIONS = ("detect_format", "parse_bytes", "parse_file", "parse_text")


def __getattr__(name: str):
    if name in _READER_FUNCTIONS:
        from commscope.ingest.parse import detect

        return getattr(detect, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "METRIC_UNITS",
    "SOURCE_FORMATS",
    "ParseError",
    "ParsedRun",
    "Point",
    "detect_format",
    "is_known_metric",
    "parse_bytes",
    "parse_file",
    "parse_text",
    "percentile_metric",
    "unit_of",
]
