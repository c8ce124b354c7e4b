"""Readers for HPL results: xhpl's output (HPL.out), hpcc's hpccoutf.txt, and HPL
tables pasted into documents (the standard-benchmarks page's "T/V | N_cores | MEM/node (GB) | N | NB | P |
Q | Time(secs) | Gflops" table).

An HPL run is one benchmark run of the ``hpl`` benchmark; each T/V line is a point
whose size is the matrix order N, with Gflops, time, NB, P and Q, and the scaled
residual of the check printed under it. A residual marked FAILED is a validation
error at that point, so the run is stored as failed. hpcc's other tests (STREAM,
PTRANS, RandomAccess, FFT, DGEMM, b_eff) come from its summary section, a run each
(``hpcc_stream``, ...), one point each.
"""

from __future__ import annotations

import re

from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import ParsedRun, Point
from commscope.ingest.parse.table_blocks import TableBlock, find_tables
from commscope.records.benchmarks import (
    HPCC_BEFF,
    HPCC_DGEMM,
    HPCC_FFT,
    HPCC_PTRANS,
    HPCC_RANDOMACCESS,
    HPCC_STREAM,
    HPL_BENCHMARK,
)

HPCC_BANNER = "This is the DARPA/DOE HPC Challenge Benchmark"
_HPL_BANNER = re.compile(r"^HPLinpack \d")
# T/V  N  NB  P  Q  Time  Gflops; HPL 2.x writes the rate as 1.138e+00
_TV_LINE = re.compile(
    r"^(?P<tv>W[RC]\w+)\s+(?P<n>\d+)\s+(?P<nb>\d+)\s+(?P<p>\d+)\s+(?P<q>\d+)\s+"
    r"(?P<time>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s+(?P<gflops>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*$"
)
_RESIDUAL = re.compile(r"^\|\|Ax-b\|\|.*=\s*(?P<value>[-+\d.eE]+)\s*\.+\s*(?P<verdict>PASSED|FAILED)\s*$")
_THRESHOLD = re.compile(r"scaled residuals are less than\s+(?P<value>[\d.eE+-]+)")
# How far below its T/V line HPL prints the residual (2.3 puts start/end times between).
_RESIDUAL_REACH = 8
_SUMMARY_LINE = re.compile(r"^(?P<key>\w+)=(?P<value>.*)$")


def looks_like_hpl(lines: list[str]) -> bool:
    return any(_HPL_BANNER.match(line) or line.startswith(HPCC_BANNER) for line in lines[:400])


def _number(text: str) -> float:
    return float(text)


def read_hpl_points(lines: list[str], start: int, end: int, source: str) -> tuple[list[Point], list[str]]:
    """The T/V lines of lines[start:end] (0-based indices) with their residual checks."""
    points, notes = [], []
    index = start
    while index < end:
        match = _TV_LINE.match(lines[index].strip())
        if match is None:
            index += 1
            continue
        values: dict[str, float | int | str] = {
            "gflops": _number(match["gflops"]),
            "time_s": _number(match["time"]),
            "block_size": int(match["nb"]),
            "grid_rows": int(match["p"]),
            "grid_cols": int(match["q"]),
            "hpl_variant": match["tv"],
        }
        for follow in range(index + 1, min(index + 1 + _RESIDUAL_REACH, end)):
            if _TV_LINE.match(lines[follow].strip()):
                break
            residual = _RESIDUAL.match(lines[follow].strip())
            if residual:
                values["hpl_residual"] = _number(residual["value"])
                values["validation_errors"] = 0 if residual["verdict"] == "PASSED" else 1
                if residual["verdict"] == "FAILED":
                    notes.append(
                        f"line {follow + 1}: residual check FAILED for N={match['n']} "
                        f"(scaled residual {residual['value']})"
                    )
                break
        points.append(Point(size=int(match["n"]), values=values, line=index + 1))
        index += 1
    return points, notes


def _hpl_run(
    points: list[Point],
    notes: list[str],
    source: str,
    line: int,
    tool: str,
    version: str | None,
    ranks: int | None,
    threshold: float | None,
) -> ParsedRun:
    parameters = {"residual_threshold": threshold} if threshold is not None else {}
    return ParsedRun(
        benchmark=HPL_BENCHMARK,
        source_format="hpl",
        source=source,
        line=line,
        metrics={"gflops": "Gflop/s", "time_s": "s"},
        points=points,
        tool=tool,
        tool_version=version,
        title="HPL: solve a dense linear system (Gflop/s)",
        ranks=ranks,
        parameters=parameters,
        notes=notes,
    )


def read_hpl_out(lines: list[str], source: str) -> list[ParsedRun]:
    """xhpl's output: one run with a point per T/V line."""
    version = None
    threshold = None
    for line in lines:
        banner = re.match(r"^HPLinpack (\S+)", line)
        if banner and version is None:
            version = banner.group(1)
        found = _THRESHOLD.search(line)
        if found and threshold is None:
            threshold = float(found["value"])
    points, notes = read_hpl_points(lines, 0, len(lines), source)
    if not points:
        raise ParseError(source, 1, "HPL output without any T/V result line (did the run finish?)")
    ranks = max(int(p.values["grid_rows"]) * int(p.values["grid_cols"]) for p in points)
    return [_hpl_run(points, notes, source, points[0].line, "HPL", version, ranks, threshold)]


# -- hpcc -----------------------------------------------------------------------------

#: hpcc summary keys -> (benchmark, metric); a value of -1 means the test did not run.
_HPCC_METRICS = {
    "StarDGEMM_Gflops": (HPCC_DGEMM, "star_gflops"),
    "SingleDGEMM_Gflops": (HPCC_DGEMM, "single_gflops"),
    "StarSTREAM_Copy": (HPCC_STREAM, "star_copy_GBps"),
    "StarSTREAM_Scale": (HPCC_STREAM, "star_scale_GBps"),
    "StarSTREAM_Add": (HPCC_STREAM, "star_add_GBps"),
    "StarSTREAM_Triad": (HPCC_STREAM, "star_triad_GBps"),
    "SingleSTREAM_Copy": (HPCC_STREAM, "single_copy_GBps"),
    "SingleSTREAM_Scale": (HPCC_STREAM, "single_scale_GBps"),
    "SingleSTREAM_Add": (HPCC_STREAM, "single_add_GBps"),
    "SingleSTREAM_Triad": (HPCC_STREAM, "single_triad_GBps"),
    "PTRANS_GBs": (HPCC_PTRANS, "ptrans_GBps"),
    "PTRANS_time": (HPCC_PTRANS, "time_s"),
    "MPIRandomAccess_GUPs": (HPCC_RANDOMACCESS, "mpi_gups"),
    "StarRandomAccess_GUPs": (HPCC_RANDOMACCESS, "star_gups"),
    "SingleRandomAccess_GUPs": (HPCC_RANDOMACCESS, "single_gups"),
    "MPIFFT_Gflops": (HPCC_FFT, "mpi_gflops"),
    "StarFFT_Gflops": (HPCC_FFT, "star_gflops"),
    "SingleFFT_Gflops": (HPCC_FFT, "single_gflops"),
    "MinPingPongLatency_usec": (HPCC_BEFF, "min_pingpong_latency_us"),
    "AvgPingPongLatency_usec": (HPCC_BEFF, "avg_pingpong_latency_us"),
    "MaxPingPongLatency_usec": (HPCC_BEFF, "max_pingpong_latency_us"),
    "MinPingPongBandwidth_GBytes": (HPCC_BEFF, "min_pingpong_bandwidth_GBps"),
    "AvgPingPongBandwidth_GBytes": (HPCC_BEFF, "avg_pingpong_bandwidth_GBps"),
    "MaxPingPongBandwidth_GBytes": (HPCC_BEFF, "max_pingpong_bandwidth_GBps"),
    "NaturallyOrderedRingLatency_usec": (HPCC_BEFF, "natural_ring_latency_us"),
    "RandomlyOrderedRingLatency_usec": (HPCC_BEFF, "random_ring_latency_us"),
    "NaturallyOrderedRingBandwidth_GBytes": (HPCC_BEFF, "natural_ring_bandwidth_GBps"),
    "RandomlyOrderedRingBandwidth_GBytes": (HPCC_BEFF, "random_ring_bandwidth_GBps"),
}
#: The summary key holding each test's problem size (the point's size).
_HPCC_SIZES = {
    HPCC_DGEMM: "DGEMM_N",
    HPCC_STREAM: "STREAM_VectorSize",
    HPCC_PTRANS: "PTRANS_n",
    HPCC_RANDOMACCESS: "MPIRandomAccess_N",
    HPCC_FFT: "FFT_N",
    HPCC_BEFF: None,
}
_HPCC_TITLES = {
    HPCC_DGEMM: "hpcc DGEMM: matrix multiply per process (Gflop/s)",
    HPCC_STREAM: "hpcc STREAM: memory bandwidth per process (GB/s)",
    HPCC_PTRANS: "hpcc PTRANS: parallel matrix transpose (GB/s)",
    HPCC_RANDOMACCESS: "hpcc RandomAccess: random memory updates (GUP/s)",
    HPCC_FFT: "hpcc FFT: complex 1-D FFT (Gflop/s)",
    HPCC_BEFF: "hpcc b_eff: ping-pong and ring latency and bandwidth",
}


def read_hpcc(lines: list[str], source: str) -> list[ParsedRun]:
    """hpccoutf.txt: hpcc appends every run to the file, so each banner starts a new set of runs."""
    starts = [index for index, line in enumerate(lines) if line.startswith(HPCC_BANNER)]
    runs: list[ParsedRun] = []
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(lines)
        runs += _read_hpcc_block(lines, start, end, source)
    return runs


def _section(lines: list[str], start: int, end: int, name: str) -> tuple[int, int] | None:
    begin = None
    for index in range(start, end):
        text = lines[index].strip()
        if text == f"Begin of {name} section.":
            begin = index
        elif text == f"End of {name} section." and begin is not None:
            return begin, index
    return None


def _read_hpcc_block(lines: list[str], start: int, end: int, source: str) -> list[ParsedRun]:
    version = re.search(r"version (\S+)", lines[start])
    version_text = version.group(1) if version else None
    summary_span = _section(lines, start, end, "Summary")
    if summary_span is None:
        raise ParseError(source, start + 1, "hpcc output without its summary section (did hpcc finish?)")
    summary: dict[str, str] = {}
    for index in range(*summary_span):
        match = _SUMMARY_LINE.match(lines[index].strip())
        if match:
            summary[match["key"]] = match["value"].strip()
    procs = int(summary["CommWorldProcs"]) if summary.get("CommWorldProcs", "").isdigit() else None
    host = None
    for index in range(start, min(start + 20, end)):
        found = re.match(r"^Hostname: '(.*)'", lines[index])
        if found:
            host = found.group(1)
    provenance = {"hpcc_success": summary.get("Success"), "hostname": host}
    runs: list[ParsedRun] = []

    hpl_span = _section(lines, start, end, "HPL")
    if hpl_span is not None:
        points, notes = read_hpl_points(lines, hpl_span[0], hpl_span[1], source)
        threshold = next(
            (float(m["value"]) for m in map(_THRESHOLD.search, lines[hpl_span[0] : hpl_span[1]]) if m), None
        )
        if points:
            run = _hpl_run(points, notes, source, points[0].line, "hpcc", version_text, procs, threshold)
            run.provenance = dict(provenance)
            runs.append(run)

    grouped: dict[str, dict[str, float]] = {}
    for key, (benchmark, metric) in _HPCC_METRICS.items():
        try:
            value = float(summary[key])
        except (KeyError, ValueError):
            continue
        if value < 0:  # hpcc writes -1 for tests it skipped (b_eff on one process)
            continue
        grouped.setdefault(benchmark, {})[metric] = value
    summary_line = summary_span[0] + 1
    for benchmark, values in grouped.items():
        size_key = _HPCC_SIZES[benchmark]
        size = int(float(summary[size_key])) if size_key and summary.get(size_key) else None
        runs.append(
            ParsedRun(
                benchmark=benchmark,
                source_format="hpcc",
                source=source,
                line=summary_line,
                metrics={name: "" for name in values},
                points=[Point(size, values, summary_line)],
                tool="hpcc",
                tool_version=version_text,
                title=_HPCC_TITLES[benchmark],
                ranks=procs,
                provenance=dict(provenance),
            )
        )
    if not runs:
        raise ParseError(source, start + 1, "hpcc output without HPL results or a summary of other tests")
    if summary.get("Success") == "0":
        for run in runs:
            run.notes.append("hpcc's summary says Success=0 (a test failed its check)")
    return runs


# -- HPL tables in documents ----------------------------------------------------------

_TABLE_COLUMNS = {
    "t/v": "tv",
    "n_cores": "cores",
    "ncores": "cores",
    "cores": "cores",
    "mem/node (gb)": "memory_GB",
    "n": "n",
    "nb": "nb",
    "p": "p",
    "q": "q",
    "time(secs)": "time",
    "time (s)": "time",
    "time": "time",
    "gflops": "gflops",
}
_NODES_IN_LABEL = re.compile(r"^(?P<nodes>\d+)-")


def _header_key(cell: str) -> str | None:
    text = re.sub(r"</?sub>", "_", cell.strip().lower()).strip("_").replace(" _", "_")
    text = re.sub(r"_+", "_", text).rstrip("_")
    return _TABLE_COLUMNS.get(text)


def hpl_table_columns(block: TableBlock) -> dict[str, int] | None:
    """Which column holds what, for a table with T/V, N, NB, P, Q and Gflops columns; None otherwise."""
    keys = {}
    for index, cell in enumerate(block.header):
        key = _header_key(cell)
        if key and key not in keys:
            keys[key] = index
    return keys if {"tv", "n", "nb", "p", "q", "gflops"} <= set(keys) else None


def _table_number(cell: str, source: str, line: int, column: str) -> float:
    text = cell.replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        raise ParseError(source, line, f"column {column!r}: {cell.strip()!r} is not a number") from None


def read_hpl_tables(lines: list[str], claimed: set[int], source: str) -> tuple[list[ParsedRun], set[int]]:
    """Markdown tables of HPL results: one run per row (a row is one machine configuration).
    "1,591" is read with its thousands separator; a label "4-stdmem-nodes:WC00C2R2" gives
    4 nodes and the variant WC00C2R2."""
    runs: list[ParsedRun] = []
    taken: set[int] = set()
    for block in find_tables(lines, claimed):
        columns = hpl_table_columns(block)
        if columns is None:
            continue
        taken.update(range(block.first_line, block.last_line + 1))
        for line, cells in block.rows:
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) < len(block.header) - 1:
                raise ParseError(source, line, f"HPL table row has {len(cells)} cells, the header {len(block.header)}")

            def cell(key: str) -> str:
                return cells[columns[key]] if columns[key] < len(cells) else ""

            label_text = cell("tv").strip()
            name, _, variant = label_text.rpartition(":") if ":" in label_text else (label_text, "", "")
            values: dict[str, float | int | str] = {
                "gflops": _table_number(cell("gflops"), source, line, "Gflops"),
                "block_size": int(_table_number(cell("nb"), source, line, "NB")),
                "grid_rows": int(_table_number(cell("p"), source, line, "P")),
                "grid_cols": int(_table_number(cell("q"), source, line, "Q")),
            }
            if "time" in columns:
                values["time_s"] = _table_number(cell("time"), source, line, "Time")
            if variant:
                values["hpl_variant"] = variant
            parameters: dict[str, float | int | str] = {}
            if "memory_GB" in columns and cell("memory_GB").strip():
                parameters["memory_per_node_GB"] = _table_number(cell("memory_GB"), source, line, "MEM/node")
            nodes = _NODES_IN_LABEL.match(name)
            cores = int(_table_number(cell("cores"), source, line, "N_cores")) if "cores" in columns else None
            n = int(_table_number(cell("n"), source, line, "N"))
            runs.append(
                ParsedRun(
                    benchmark=HPL_BENCHMARK,
                    source_format="table",
                    source=source,
                    line=line,
                    metrics={"gflops": "Gflop/s", "time_s": "s"},
                    points=[Point(n, values, line)],
                    tool="HPL",
                    title="HPL: solve a dense linear system (Gflop/s)",
                    label=name or None,
                    ranks=cores,
                    nodes=int(nodes["nodes"]) if nodes else None,
                    parameters=parameters,
                )
            )
    return runs, taken
