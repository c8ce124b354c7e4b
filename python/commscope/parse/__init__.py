"""Readers of benchmark result files: the engine of ``commscope import``.

Formats read: OSU Micro-Benchmarks text output (5.x to 7.x, every table
layout, CUDA/ROCm variants), commscope's own text tables and JSON documents,
Intel MPI Benchmarks (IMB-MPI1 and alike) text output, and Markdown,
reStructuredText-grid and whitespace tables of OMB numbers pasted into
documents, including side-by-side comparisons of several systems.

    >>> from commscope.parse import parse_file
    >>> for run in parse_file("osu_latency.out"):
    ...     print(run.benchmark, run.label, run.series("latency_us")[:2])

Every reader raises :class:`ParseError` with the file and line for anything
it does not understand, and nothing else.
"""

from .detect import detect_format, parse_bytes, parse_file, parse_text
from .errors import ParseError
from .metrics import METRIC_UNITS, is_known_metric, percentile_metric, unit_of
from .model import SOURCE_FORMATS, ParsedRun, Point

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
