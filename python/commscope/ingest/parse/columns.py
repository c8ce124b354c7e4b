"""What a column header means, how to split a header line, how to read a cell.

This is the one place that knows the column names of OMB, commscope's text
tables and IMB, so every reader (and the generic table reader, which meets the
same names pasted into documents) agrees on them.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from commscope.records.metrics import percentile_metric, unit_of, value_problem
from commscope.records.run import LARGEST_INTEGER

#: Column kinds: how a cell is read.
SIZE = "size"  # message size in bytes, the key of a row
GROUP = "group"  # IMB -multi group number, also a key
FLOAT = "float"
INT = "int"
STATUS = "status"  # Pass / Fail


@dataclass(frozen=True)
class Column:
    """A recognised column: its printed header, the metric it holds and how to read it."""

    header: str
    metric: str
    kind: str

    @property
    def unit(self) -> str:
        if self.kind == SIZE:
            return "bytes"
        return unit_of(self.metric)

    @property
    def is_key(self) -> bool:
        return self.kind in (SIZE, GROUP)


# Pieces shared by several spellings. OMB writes "(us)", IMB "[usec]", people
# paste "[µs]"; all are microseconds.
_US = r"\s*[(\[]\s*(?:us|usec|µs|μs)\s*[)\]]"
_MBPS = r"\s*[(\[]\s*mb/s(?:ec)?\s*[)\]]"

_Rule = tuple["re.Pattern[str]", Callable[["re.Match[str]"], str], str]


# The kind of every fixed metric name, filled by _rule: lets readers that
# learn a metric from elsewhere (a "result" column) read its cells right.
_KINDS: dict[str, str] = {}


def _rule(pattern: str, metric: str | Callable[[re.Match[str]], str], kind: str) -> _Rule:
    if callable(metric):
        namer = metric
    else:
        _KINDS[metric] = kind
        namer = lambda _match, name=metric: name  # noqa: E731
    return re.compile(pattern, re.IGNORECASE), namer, kind


_RULES: list[_Rule] = [
    # keys
    _rule(
        r"size(?:\s*[(\[]\s*(?:b|bytes)\s*[)\]])?|#bytes|bytes|msg[_ ]?size"
        r"|message[_ ]size(?:\s*[(\[]\s*(?:b|bytes)\s*[)\]])?",
        SIZE,
        SIZE,
    ),
    _rule(r"group", GROUP, GROUP),
    # OMB / commscope latency columns (5.x "Latency (us)", 7.x "Avg Latency(us)")
    _rule(r"(?:avg\.?\s*|average\s*|mean\s*)?lat(?:ency)?" + _US, "latency_us", FLOAT),
    _rule(r"min\.?\s*lat(?:ency)?" + _US, "min_latency_us", FLOAT),
    _rule(r"max\.?\s*lat(?:ency)?" + _US, "max_latency_us", FLOAT),
    _rule(r"iterations|iters", "iterations", INT),
    # bandwidth and message rate ("Bandwidth (MB/s)" in bw/bibw, "MB/s" in mbw_mr)
    _rule(r"(?:avg\.?\s*)?(?:(?:bi|uni)-?directional\s+)?(?:bandwidth|bw)" + _MBPS + r"|mb/s", "bandwidth_MBps", FLOAT),
    _rule(r"messages?/s|message\s+rate(?:\s*[(\[]\s*(?:messages|msgs?)/s\s*[)\]])?", "message_rate", FLOAT),
    _rule(r"validation", "validation", STATUS),
    # -z percentiles: "P50 Tail Lat(us)", "P99 Tail BW(MB/s)"
    _rule(r"p(\d+(?:\.\d+)?)\s*tail\s*lat(?:ency)?" + _US, lambda m: percentile_metric(m.group(1), "us"), FLOAT),
    _rule(
        r"p(\d+(?:\.\d+)?)\s*tail\s*(?:bw|bandwidth)" + _MBPS, lambda m: percentile_metric(m.group(1), "MBps"), FLOAT
    ),
    # commscope's collectives with --busbw: nccl-tests' algorithm and bus bandwidth
    _rule(r"algbw\s*[(\[]\s*gb/s\s*[)\]]", "algbw_GBps", FLOAT),
    _rule(r"busbw\s*[(\[]\s*gb/s\s*[)\]]", "busbw_GBps", FLOAT),
    # non-blocking collectives
    _rule(r"overall" + _US, "overall_us", FLOAT),
    _rule(r"compute" + _US, "compute_us", FLOAT),
    _rule(r"coll\.?\s*init\.?" + _US, "coll_init_us", FLOAT),
    _rule(r"mpi_test" + _US, "test_us", FLOAT),
    _rule(r"mpi_wait" + _US, "wait_us", FLOAT),
    _rule(r"pure\s*comm\.?" + _US, "pure_comm_us", FLOAT),
    _rule(r"min\.?\s*comm\.?" + _US, "min_comm_us", FLOAT),
    _rule(r"max\.?\s*comm\.?" + _US, "max_comm_us", FLOAT),
    _rule(r"overlap\s*[(\[]\s*%\s*[)\]]", "overlap_pct", FLOAT),
    # -D derived datatypes
    _rule(r"transmit\s+size", "transmit_size", INT),
    # IMB
    _rule(r"#?repetitions", "repetitions", INT),
    _rule(r"t\[usec\]", "t_us", FLOAT),
    _rule(r"t_min\[usec\]", "t_min_us", FLOAT),
    _rule(r"t_max\[usec\]", "t_max_us", FLOAT),
    _rule(r"t_avg\[usec\]", "t_avg_us", FLOAT),
    _rule(r"t_ovrl\[usec\]", "t_ovrl_us", FLOAT),
    _rule(r"t_pure\[usec\]", "t_pure_us", FLOAT),
    _rule(r"t_cpu\[usec\]", "t_cpu_us", FLOAT),
    _rule(r"mbytes/sec", "mbytes_per_sec", FLOAT),
    _rule(r"msg/sec", "msg_per_sec", FLOAT),
    _rule(r"defects", "defects", FLOAT),
    # result tables of other harnesses
    _rule(r"runtime\s*[(\[]\s*(?:s|sec|secs|seconds)\s*[)\]]", "runtime_s", FLOAT),
]

# Markup people put around header cells in documents.
_MARKUP = "*_`"
_DECORATION = re.compile(f"^[{_MARKUP}]+|[{_MARKUP}]+$")
_SPACES = re.compile(r"\s+")


def clean_cell(text: str) -> str:
    """A cell without surrounding blanks, Markdown emphasis or backticks."""
    text = text.strip()
    # Nearly every cell is bare: bulk imports read millions, so skip the regex for them.
    if text and (text[0] in _MARKUP or text[-1] in _MARKUP):
        text = _DECORATION.sub("", text).strip()
    return text


def column_for(metric: str, header: str) -> Column:
    """A column known to hold ``metric`` whatever its header says."""
    return Column(header=header, metric=metric, kind=_KINDS.get(metric, FLOAT))


def split_on_wide_gaps(text: str) -> list[str]:
    """Pieces of a line separated by two or more blanks or by tabs: how
    fixed-width tables separate their cells and the names above them."""
    return [piece.strip() for piece in re.split(r"\s{2,}|\t+", text.strip()) if piece.strip()]


# Cached: every file of a bulk import repeats the same few headers, and each costs a
# regex per rule; a Column is immutable, so one can be shared.
@functools.lru_cache(maxsize=4096)
def recognise(header: str) -> Column | None:
    """The column a header cell names, or ``None`` if it is not a known name."""
    text = _SPACES.sub(" ", clean_cell(header))
    if not text or len(text) > 80:
        return None
    for pattern, namer, kind in _RULES:
        match = pattern.fullmatch(text)
        if match:
            return Column(header=text, metric=namer(match), kind=kind)
    return None


def recognise_labelled(header: str) -> tuple[str, Column] | None:
    """A header made of a label followed by a known name, such as
    ``"cluster-a Latency (us)"``: returns the label and the column.

    Side-by-side tables written by hand often put the system name into the
    column header instead of on a line of its own.
    """
    words = _SPACES.sub(" ", clean_cell(header)).split(" ")
    if len(words) > 24:
        return None
    for cut in range(1, len(words)):
        column = recognise(" ".join(words[cut:]))
        if column is not None and not column.is_key:
            return " ".join(words[:cut]), column
    return None


def split_header(text: str) -> list[str]:
    """Cells of a header line (without its leading ``#``).

    OMB pads names to fixed widths, so cells are normally separated by two
    or more blanks, while names themselves contain single blanks
    (``Avg Latency(us)``). Where a run of text holds several known names
    separated by single blanks (``Size Bandwidth (MB/s)``, IMB's
    ``#bytes #repetitions``), it is cut into those names.
    """
    cells: list[str] = []
    for chunk in split_on_wide_gaps(text):
        if recognise(chunk) is not None:
            cells.append(chunk)
            continue
        cells.extend(_segment(chunk) or [chunk])
    return cells


def _segment(chunk: str) -> list[str] | None:
    """Cut a run of single-blank-separated words into the fewest known column
    names, or ``None`` if it cannot be done."""
    words = chunk.split(" ")
    if len(words) > 24:  # not a header; keep the search cheap on garbage
        return None
    best: list[list[str] | None] = [None] * (len(words) + 1)
    best[0] = []
    for end in range(1, len(words) + 1):
        for start in range(max(0, end - 6), end):  # no known name has more than 6 words
            head = best[start]
            if head is None:
                continue
            piece = " ".join(words[start:end])
            if recognise(piece) is None:
                continue
            candidate = head + [piece]
            current = best[end]
            if current is None or len(candidate) < len(current):
                best[end] = candidate
    return best[len(words)]


# A decimal number as benchmarks print it; stricter than float(), which would
# also take "nan", "inf" and "1_000". "1." is not one either: it is how
# numbered lists start in the documents tables are pasted into.
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")
_INTEGER = re.compile(r"\+?\d+")


def is_number(token: str) -> bool:
    # "1234" and "1234.56" are told without the regex, as bulk imports test millions of
    # cells; str.isdecimal() accepts exactly the characters \d matches.
    whole, dot, fraction = token.partition(".")
    if whole.isdecimal() and (not dot or fraction.isdecimal()):
        return True
    return _NUMBER.fullmatch(token) is not None


def is_integer(token: str) -> bool:
    return token.isdecimal() or _INTEGER.fullmatch(token) is not None


def read_cell(token: str, column: Column) -> float | int | str:
    """The value of one cell; ``ValueError`` with a readable message if the
    cell does not hold what the column promises."""
    token = clean_cell(token)
    if column.kind in (SIZE, GROUP, INT):
        if not is_integer(token) or len(token) > 30:
            what = "a message size" if column.kind == SIZE else "a whole number"
            raise ValueError(f"column '{column.header}': {token!r} is not {what}")
        value = int(token)
        if value > LARGEST_INTEGER:
            raise ValueError(f"column '{column.header}': {token} is too large (at most {LARGEST_INTEGER})")
        return value
    if column.kind == STATUS:
        word = token.lower()
        if word in ("pass", "passed", "ok"):
            return "Pass"
        if word in ("fail", "failed"):
            return "Fail"
        raise ValueError(f"column '{column.header}': {token!r} is neither Pass nor Fail")
    if not is_number(token) or len(token) > 60:
        raise ValueError(f"column '{column.header}': {token!r} is not a number")
    value = float(token)
    problem = value_problem(value, column.unit)
    if problem:
        shown = repr(token) if not math.isfinite(value) else token
        raise ValueError(f"column '{column.header}': {shown} {problem}")
    return value
