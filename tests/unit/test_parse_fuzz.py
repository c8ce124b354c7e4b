"""Property tests: for any input the readers give a valid result or a ParseError,
never another exception, and never an "internal reader error"."""

import json
import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from commscope.ingest.parse import SOURCE_FORMATS, ParsedRun, ParseError, is_known_metric, parse_bytes, parse_text
from commscope.ingest.parse.text import split_lines
from paths import FIXTURES as SUPPORT_FIXTURES

FIXTURES = SUPPORT_FIXTURES / "parse"
FIXTURE_TEXTS = sorted((p.name, p.read_text(encoding="utf-8")) for p in FIXTURES.iterdir() if p.is_file())

BOUNDED = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Fragments of the formats, so random documents get past the first checks
# and exercise the readers' deeper paths.
FRAGMENTS = [
    "# OSU MPI Latency Test v7.4",
    "# OSU MPI Bandwidth Test",
    "# OSU MPI-CUDA Bandwidth Test v7.4",
    "# OSU MPI Multiple Bandwidth / Message Rate Test v5.7.1",
    "# OSU MPI Barrier Latency Test v7.4",
    "# OSU MPI_Put Latency Test v7.4",
    "# OSU MPI Init Test v7.4",
    "# commscope MPI Latency Test v0.1.0",
    "# Datatype: MPI_CHAR.",
    "# [ pairs: 1 ] [ window size: 64 ]",
    "# [ pairs: 1 ] [ window size: varied ]",
    "# Window creation: MPI_Win_allocate",
    "# Uni-directional Bandwidth (MB/sec)",
    "# Message Rate Profile",
    "#        1        2        4",
    "# Size       Avg Latency(us)",
    "# Size      Bandwidth (MB/s)",
    "# Size                  MB/s        Messages/s",
    "# Avg Latency(us)   Min Latency(us)",
    "# Size   Latency (us)   Latency (us)",
    "   cluster-a     cluster-b",
    "# Size       Avg Latency(us)        Validation  P50 Tail Lat(us)",
    "nprocs: 2, min: 2 ms, max: 3 ms, avg: 2 ms",
    "DATA VALIDATION ERROR: x exited with status 1 on message size 16.",
    "#    Intel(R) MPI Benchmarks 2021.11, MPI-1 part",
    "# Benchmarking PingPong",
    "# Benchmarking Multi-Barrier",
    "# #processes = 2",
    "# ( 2 groups of 2 processes each running simultaneous )",
    "       #bytes #repetitions      t[usec]   Mbytes/sec",
    " #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]",
    "      Group       #bytes #repetitions      t[usec]   Mbytes/sec",
    "   0   4  out-of-mem.; needed X",
    "# All processes entering MPI_Finalize",
    "| Size | Latency (us) |",
    "|---|---|",
    "| 1 | 0.5 |",
    "| Size | a Latency (us) | b Latency (us) |",
    "| nodes | osu_exe | size | result |",
    "| 1 | `osu_bw` | 8 | 1.5 |",
    "+------+--------+",
    "+======+========+",
    "| Size | MB/s   |",
    "| 1    | 2.5    |",
    "Message size [B] to bandwidth [MB/s]\tA\t\tB\t",
    "\tx\ty\tx\ty",
    "1\t1,5\t2,5\t3,5\t4,5",
    "Latency [us]\t1,1\t2,2",
    "<pre>",
    "</pre>",
    "```",
    "",
    "osu_latency",
]
JUNK = ["abc", "nan", "", "-", "1e999", "1,5", "\x00", "Pass"]
NUMBERISH = st.one_of(
    st.integers(0, 1 << 24).map(str),
    st.floats(0, 1e6, allow_nan=False).map(lambda f: f"{f:.2f}"),
    st.sampled_from(["Pass", "Fail", "nan", "-", "1e999", "0x1f", "", "  "]),
)


@st.composite
def fragment_lines(draw):
    parts = []
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            parts.append(draw(st.sampled_from(FRAGMENTS)))
        elif kind == 1:
            parts.append("   ".join(draw(st.lists(NUMBERISH, min_size=1, max_size=6))))
        elif kind == 2:
            parts.append(draw(st.text(max_size=40)))
        else:
            parts.append("\t".join(draw(st.lists(NUMBERISH, min_size=1, max_size=5))))
    return "\n".join(parts)


@st.composite
def mutated_fixture(draw):
    _name, text = draw(st.sampled_from(FIXTURE_TEXTS))
    for _ in range(draw(st.integers(1, 3))):
        lines = text.split("\n")
        operation = draw(st.sampled_from(["truncate", "delete", "duplicate", "swap", "junk", "insert"]))
        if operation == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
            continue
        index = draw(st.integers(0, max(0, len(lines) - 1)))
        if operation == "delete" and lines:
            del lines[index]
        elif operation == "duplicate" and lines:
            lines.insert(index, lines[index])
        elif operation == "swap" and len(lines) > 1:
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        elif operation == "junk" and lines:
            numbers = list(re.finditer(r"\d+(?:\.\d+)?", lines[index]))
            if numbers:
                target = draw(st.sampled_from(numbers))
                junk = draw(st.one_of(st.sampled_from(JUNK), st.text(max_size=8)))
                lines[index] = lines[index][: target.start()] + junk + lines[index][target.end() :]
        elif operation == "insert":
            lines.insert(index, draw(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=30))))
        text = "\n".join(lines)
    return text


def check_outcome(read, argument):
    """``read(argument)`` must give valid runs or raise ParseError, nothing else."""
    try:
        runs = read(argument)
    except ParseError as error:
        assert "internal reader error" not in error.message, error.message
        assert isinstance(error.path, str) and error.message
        assert error.line is None or error.line >= 1
        return
    assert runs, "a successful read returns at least one run"
    for run in runs:
        check_run(run)


def check_run(run: ParsedRun):
    assert run.source_format in SOURCE_FORMATS
    assert isinstance(run.benchmark, str) and run.benchmark
    assert run.line >= 1
    for metric, unit in run.metrics.items():
        assert is_known_metric(metric), metric
        assert isinstance(unit, str)
    # a table's sizes grow; the core's records grow within each series of the other axes
    series: dict[tuple, list[int]] = {}
    for point in run.run.points if run.run is not None else run.points:
        if point.size is not None:
            axes = point.key[1:] if run.run is not None else ()
            series.setdefault(axes, []).append(point.size)
    for sizes in series.values():
        assert sizes == sorted(set(sizes)), "sizes strictly increase"
    assert all(p.size is None for p in run.points) or all(p.size is not None for p in run.points)
    for point in run.points:
        assert point.line >= 1
        for metric, value in point.values.items():
            assert metric in run.metrics
            if isinstance(value, float):
                assert math.isfinite(value)
            else:
                assert isinstance(value, (int, str))
    json.dumps(run.to_dict(), ensure_ascii=False)  # the model stays plain data


@BOUNDED
@given(st.text(max_size=3000))
def test_random_text(text):
    check_outcome(lambda t: parse_text(t, "random.txt"), text)


@BOUNDED
@given(st.binary(max_size=3000))
def test_random_bytes(data):
    check_outcome(lambda d: parse_bytes(d, "random.bin"), data)


@pytest.mark.slow
@BOUNDED
@given(fragment_lines())
def test_documents_made_of_format_fragments(text):
    check_outcome(lambda t: parse_text(t, "fragments.txt"), text)


@pytest.mark.slow
@BOUNDED
@given(mutated_fixture())
def test_mutated_fixtures(text):
    check_outcome(lambda t: parse_text(t, "mutated.txt"), text)


@pytest.mark.slow
@BOUNDED
@given(mutated_fixture())
def test_mutated_fixtures_as_bytes(text):
    check_outcome(lambda t: parse_bytes(t.encode("utf-8", errors="surrogatepass"), "mutated.bin"), text)


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(FIXTURE_TEXTS))
def test_every_fixture_reads_cleanly(named_text):
    name, text = named_text
    runs = parse_text(text, name)
    for run in runs:
        check_run(run)
        for point in run.points:
            assert point.line <= len(split_lines(text))
