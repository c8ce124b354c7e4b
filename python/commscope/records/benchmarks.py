"""Normalised benchmark names.

OMB names a benchmark in its title (``# OSU MPI Bi-Directional Bandwidth Test
v7.4``), IMB in ``# Benchmarking PingPong``, job scripts by program
(``osu_bibw``). All of them become the program name without its ``osu_``
prefix (``bibw``), which is also the name commscope itself uses; IMB names
get an ``imb_`` prefix (``imb_pingpong``) because IMB measures differently.
"""

from __future__ import annotations

import re

#: OMB's start-up benchmarks (osu_init, osu_hello): their output is one line, not a table.
INIT_BENCHMARK = "init"
HELLO_BENCHMARK = "hello"

# OMB title words for collective operations -> program name stem.
_COLLECTIVES = {
    "allgather": "allgather",
    "allgatherv": "allgatherv",
    "allreduce": "allreduce",
    "all-to-all": "alltoall",
    "alltoall": "alltoall",
    "all-to-allv": "alltoallv",
    "alltoallv": "alltoallv",
    "all-to-allw": "alltoallw",
    "alltoallw": "alltoallw",
    "barrier": "barrier",
    "broadcast": "bcast",
    "bcast": "bcast",
    "gather": "gather",
    "gatherv": "gatherv",
    "reduce": "reduce",
    "reduce_scatter": "reduce_scatter",
    "reduce-scatter": "reduce_scatter",
    "reduce_scatter_block": "reduce_scatter_block",
    "reduce-scatter-block": "reduce_scatter_block",
    "scatter": "scatter",
    "scatterv": "scatterv",
}

# One-sided operations as OMB titles spell them (``MPI_Put``) -> program stem.
_ONE_SIDED = {
    "put": "put",
    "get": "get",
    "accumulate": "acc",
    "get_accumulate": "get_acc",
    "fetch_and_op": "fop",
    "compare_and_swap": "cas",
}

# Point-to-point and other titles -> program name.
_POINT_TO_POINT = {
    "latency": "latency",
    "bandwidth": "bw",
    "bi-directional bandwidth": "bibw",
    "bidirectional bandwidth": "bibw",
    "multiple bandwidth / message rate": "mbw_mr",
    "multiple bandwidth/message rate": "mbw_mr",
    "multi latency": "multi_lat",
    "multi-threaded latency": "latency_mt",
    "multi-process latency": "latency_mp",
    "latency persistent": "latency_persistent",
    "persistent latency": "latency_persistent",
    "bandwidth persistent": "bw_persistent",
    "persistent bandwidth": "bw_persistent",
    "bi-directional bandwidth persistent": "bibw_persistent",
    "partitioned latency": "partitioned_latency",
    "init": INIT_BENCHMARK,
    "hello world": HELLO_BENCHMARK,
    "fan-in bandwidth": "bw_fan_in",
    "bandwidth fan-in": "bw_fan_in",
    "fan-out bandwidth": "bw_fan_out",
    "bandwidth fan-out": "bw_fan_out",
}


def slug(text: str) -> str:
    """Lower-case words joined by ``_``: the fallback name of anything unknown."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "unknown"


def from_omb_description(description: str, one_sided_op: str | None = None) -> tuple[str, bool]:
    """Normalised name from the middle of an OMB title, e.g. ``"Non-blocking
    Allreduce Latency"`` -> ``"iallreduce"``; ``one_sided_op`` is the ``Put``
    of ``MPI_Put``. Returns the name and whether it is a known benchmark
    (unknown titles still get a usable slug)."""
    words = " ".join(description.lower().split())
    if one_sided_op is not None:
        op = _ONE_SIDED.get(one_sided_op.lower())
        if op is None:
            return slug(f"{one_sided_op} {words}"), False
        if "bi-directional" in words or "bidirectional" in words:
            return f"{op}_bibw", True
        if re.search(r"\bmulti(?:ple|-pair)?\b", words):  # osu_get_mbw, osu_get_multi_lat
            return (f"{op}_mbw" if "bandwidth" in words else f"{op}_multi_lat"), True
        if "bandwidth" in words:
            return f"{op}_bw", True
        return f"{op}_latency", True

    if words in _POINT_TO_POINT:
        return _POINT_TO_POINT[words], True

    nonblocking = bool(re.search(r"\bnon-?blocking\b", words))
    neighbor = bool(re.search(r"\bneighbou?r(?:hood)?\b", words))
    persistent = "persistent" in words.split()
    for word in re.split(r"[\s]+", words):
        stem = _COLLECTIVES.get(word)
        if stem is None:
            continue
        name = ("neighbor_" if neighbor else "") + stem
        if nonblocking:
            name = "i" + name
        if persistent:
            name += "_persistent"
        return name, True
    return slug(words), False


def is_collective(benchmark: str) -> bool:
    """Whether a normalised name is a collective: blocking, non-blocking (``iallreduce``),
    neighbourhood or persistent."""
    match = re.fullmatch(r"i?(?:neighbor_)?(?P<operation>\w+?)(?:_persistent)?", benchmark)
    return match is not None and match["operation"] in _COLLECTIVES.values()


def from_program(program: str) -> str:
    """Normalised name of a program such as ``osu_bibw`` or ``/opt/omb/osu_bw``."""
    name = program.strip().strip("`").rsplit("/", 1)[-1].lower()
    return name[4:] if name.startswith("osu_") else slug(name)


def from_imb(name: str) -> str:
    """Normalised name of an IMB benchmark: ``PingPong`` -> ``imb_pingpong``."""
    return "imb_" + slug(name)


#: HPL's own benchmark (`commscope run hpl`, imported HPL.out and hpccoutf.txt).
HPL_BENCHMARK = "hpl"
#: hpcc's tests beside HPL, each stored as a benchmark of its own.
HPCC_DGEMM = "hpcc_dgemm"
HPCC_STREAM = "hpcc_stream"
HPCC_PTRANS = "hpcc_ptrans"
HPCC_RANDOMACCESS = "hpcc_randomaccess"
HPCC_FFT = "hpcc_fft"
HPCC_BEFF = "hpcc_beff"
#: The name fio storage sweeps are stored under (`commscope run storage`, imported fio).
STORAGE_BENCHMARK = "storage"
#: The core's benchmark that measures a schedule of rank pairs: the link sweep's runs.
PAIRS_BENCHMARK = "pairs"
#: The core's benchmark that starts MPI on every rank and measures nothing: a sweep's
#: start-up probe of hosts that may not start (sweep/survive.py).
HELLO_BENCHMARK = "hello"
#: The core's benchmark of canary tests alone and beside congestors: the congestion kind's runs.
CONGESTION_BENCHMARK = "congestion"
#: The time a launch of a benchmark takes unless --time-limit says otherwise (seconds; the
#: others keep OMB's counts): congestion's fixed counts took over 12 minutes on a shared
#: 200 Mbit/s fabric of 6 hosts, where 4 minutes give every canary test tens of iterations.
DEFAULT_TIME_LIMIT_S = {CONGESTION_BENCHMARK: 240.0}

#: Benchmarks of the cluster beside the network (HPL and hpcc's other tests, storage
#: sweeps) and the metric that speaks for each.
SYSTEM_BENCHMARKS = {
    HPL_BENCHMARK: "gflops",
    HPCC_DGEMM: "star_gflops",
    HPCC_STREAM: "star_triad_GBps",
    HPCC_PTRANS: "ptrans_GBps",
    HPCC_RANDOMACCESS: "mpi_gups",
    HPCC_FFT: "mpi_gflops",
    HPCC_BEFF: "avg_pingpong_latency_us",
    STORAGE_BENCHMARK: "seq_write_MBps",
}
COMPUTE_BENCHMARKS = tuple(name for name in SYSTEM_BENCHMARKS if name != STORAGE_BENCHMARK)


#: nccl-tests' programs (rccl-tests has the same) and the names their runs are stored
#: under: the core's NCCL benchmark of the same collective where there is one.
NCCL_TESTS_PROGRAMS = {
    "all_reduce_perf": "nccl_allreduce",
    "all_gather_perf": "nccl_allgather",
    "broadcast_perf": "nccl_broadcast",
    "reduce_perf": "nccl_reduce",
    "reduce_scatter_perf": "nccl_reduce_scatter",
    "alltoall_perf": "nccl_alltoall",
    "alltoallv_perf": "nccl_alltoallv",
    "sendrecv_perf": "nccl_sendrecv",
    "scatter_perf": "nccl_scatter",
    "gather_perf": "nccl_gather",
    "hypercube_perf": "nccl_hypercube",
}
#: NCCL collectives are judged by nccl-tests' bus bandwidth (its doc/PERFORMANCE.md): the
#: number that compares across rank counts and with the hardware's link speed.
NCCL_COLLECTIVE_METRIC = "busbw_GBps"


def from_nccl_tests(program: str) -> str:
    """Normalised name of an nccl-tests program: ``all_reduce_perf`` (or
    ``/opt/nccl-tests/build/all_reduce_perf_mpi``, built with a NAME_SUFFIX) -> ``nccl_allreduce``."""
    name = re.sub(r"_perf\w*$", "_perf", program.strip().rsplit("/", 1)[-1].lower())
    return NCCL_TESTS_PROGRAMS.get(name) or "nccl_" + slug(name.removesuffix("_perf"))


def primary_metric(benchmark: str) -> str:
    """The metric a single-number column of this benchmark holds (for tables
    whose columns say ``result`` or a cluster name instead of a unit)."""
    if benchmark in SYSTEM_BENCHMARKS:
        return SYSTEM_BENCHMARKS[benchmark]
    if benchmark in NCCL_TESTS_PROGRAMS.values():
        return NCCL_COLLECTIVE_METRIC
    if re.search(r"(?:^|_)(?:bw|bibw|mbw_mr)(?:_|$)", benchmark):
        return "bandwidth_MBps"
    if benchmark == INIT_BENCHMARK:
        return "init_avg_ms"
    return "latency_us"


def _two_rank_benchmarks() -> frozenset[str]:
    base = {"latency", "bw", "bibw", "latency_persistent", "bw_persistent", "bibw_persistent", "partitioned_latency"}
    base |= {"latency_mt", "latency_mp", "nccl_latency", "nccl_bw", "nccl_bibw"}  # the core's CS_CAP_TWO_RANKS too
    for op in _ONE_SIDED.values():
        base.update({f"{op}_latency", f"{op}_bw", f"{op}_bibw"})
    return frozenset(base)


#: Benchmarks that OMB only runs on exactly two ranks.
TWO_RANK_BENCHMARKS = _two_rank_benchmarks()


def ranks_of(benchmark: str, parameters: dict) -> int | None:
    """Number of ranks implied by the benchmark (``None`` when it is not):
    two for point-to-point, two per pair for osu_mbw_mr / osu_multi_lat."""
    if benchmark in TWO_RANK_BENCHMARKS:
        return 2
    pairs = parameters.get("pairs")
    if benchmark in ("mbw_mr", "multi_lat") and isinstance(pairs, int):
        return 2 * pairs
    return None


def bidirectional(benchmark: str) -> bool:
    """Whether a benchmark's bandwidth counts both directions at once (bibw, put_bibw,
    nccl_bibw): its theoretical peak is twice a link's one-way rate (analysis.peaks)."""
    return re.search(r"(?:^|_)bibw(?:_|$)", benchmark) is not None
