"""The metric names every reader uses, with their units.

Names that also exist in commscope's own JSON records (``latency_us``,
``min_latency_us``, ``max_latency_us``, ``bandwidth_MBps``, ``message_rate``)
mean the same thing here, so an imported OMB table and a native commscope run
can be compared column for column. IMB keeps its own names (``t_avg_us``,
``mbytes_per_sec``, ...) because its numbers are computed differently (across
ranks, throughput from the slowest rank) and must not be silently mixed with
OMB's.
"""

from __future__ import annotations

import math
import re

#: Metrics commscope-bench writes (result.schema.json); each has its own column in
#: the store. Other metrics (percentiles, imported OMB/IMB columns) live in
#: Point.metrics too and are stored together as JSON.
CORE_METRICS = (
    "latency_us",
    "min_latency_us",
    "max_latency_us",
    "bandwidth_MBps",
    "min_bandwidth_MBps",
    "max_bandwidth_MBps",
    "message_rate",
)
#: Sample statistics of the core, all in microseconds per operation.
STATS = ("min", "max", "mean", "median", "p50", "p90", "p99", "stddev", "ci95_low", "ci95_high")
#: Their names as store columns and export fields.
TIME_COLUMNS = tuple(f"time_{key}_us" for key in STATS)

#: Fixed metric names and their units. MB/s is always 10^6 bytes per second.
METRIC_UNITS: dict[str, str] = {
    # OMB / commscope point-to-point and blocking collectives
    "latency_us": "us",
    "min_latency_us": "us",
    "max_latency_us": "us",
    "iterations": "count",
    "bandwidth_MBps": "MB/s",
    "min_bandwidth_MBps": "MB/s",
    "max_bandwidth_MBps": "MB/s",
    "message_rate": "messages/s",
    "validation": "Pass/Fail",
    "validation_errors": "count",
    "transmit_size": "bytes",
    # OMB non-blocking collectives (overlap of communication and computation)
    "overall_us": "us",
    "compute_us": "us",
    "coll_init_us": "us",
    "test_us": "us",
    "wait_us": "us",
    "pure_comm_us": "us",
    "min_comm_us": "us",
    "max_comm_us": "us",
    "overlap_pct": "%",
    # OMB osu_init (MPI_Init time over ranks)
    "init_min_ms": "ms",
    "init_max_ms": "ms",
    "init_avg_ms": "ms",
    # commscope JSON per-record bookkeeping
    "warmup": "count",
    "batch": "count",
    # --precision: the 95% interval's half-width reached and asked for, % of the mean
    "precision_achieved_pct": "% of mean",
    "precision_target_pct": "% of mean",
    "precision_rounds": "count",
    "precision_stop": "target/max_time/max_samples",
    # IMB
    "repetitions": "count",
    "t_us": "us",
    "t_min_us": "us",
    "t_max_us": "us",
    "t_avg_us": "us",
    "t_ovrl_us": "us",
    "t_pure_us": "us",
    "t_cpu_us": "us",
    "mbytes_per_sec": "MB/s",
    "msg_per_sec": "messages/s",
    "defects": "count",
    # tables written by other harnesses (e.g. JUBE result tables)
    "runtime_s": "s",
    # HPL (xhpl, or hpcc's HPL section): a point is one T/V line, its size the matrix order N
    "gflops": "Gflop/s",
    "time_s": "s",
    "hpl_residual": "1",  # ||Ax-b|| scaled as HPL prints it; the check passes below its threshold
    "block_size": "count",  # NB
    "grid_rows": "count",  # P
    "grid_cols": "count",  # Q
    # hpcc's other tests (its summary section); Star = every process at once, per process;
    # Single = one process alone; MPI = all processes on one problem
    "star_gflops": "Gflop/s",
    "single_gflops": "Gflop/s",
    "mpi_gflops": "Gflop/s",
    "star_copy_GBps": "GB/s",
    "star_scale_GBps": "GB/s",
    "star_add_GBps": "GB/s",
    "star_triad_GBps": "GB/s",
    "single_copy_GBps": "GB/s",
    "single_scale_GBps": "GB/s",
    "single_add_GBps": "GB/s",
    "single_triad_GBps": "GB/s",
    "ptrans_GBps": "GB/s",
    "mpi_gups": "GUP/s",
    "star_gups": "GUP/s",
    "single_gups": "GUP/s",
    "min_pingpong_latency_us": "us",
    "avg_pingpong_latency_us": "us",
    "max_pingpong_latency_us": "us",
    "min_pingpong_bandwidth_GBps": "GB/s",
    "avg_pingpong_bandwidth_GBps": "GB/s",
    "max_pingpong_bandwidth_GBps": "GB/s",
    "natural_ring_latency_us": "us",
    "random_ring_latency_us": "us",
    "natural_ring_bandwidth_GBps": "GB/s",
    "random_ring_bandwidth_GBps": "GB/s",
    # storage (fio, IOzone): a point is one client/process count; totals over all of
    # them, and the same names with _per_process for the average of one
    "seq_write_MBps": "MB/s",
    "seq_read_MBps": "MB/s",
    "rand_write_iops": "IOPS",
    "rand_read_iops": "IOPS",
    "seq_write_MBps_per_process": "MB/s",
    "seq_read_MBps_per_process": "MB/s",
    "rand_write_iops_per_process": "IOPS",
    "rand_read_iops_per_process": "IOPS",
    "rewrite_MBps": "MB/s",
    "reread_MBps": "MB/s",
    "rewrite_MBps_per_process": "MB/s",
    "reread_MBps_per_process": "MB/s",
    # congestion: canary tests alone (isolated) and beside congestors (congested); p99 is
    # the slow tail (the 1st percentile of a bandwidth); the impact factor is congested /
    # isolated for latency and isolated / congested for bandwidth, so above 1 is worse
    "isolated_avg_us": "us",
    "isolated_p99_us": "us",
    "congested_avg_us": "us",
    "congested_p99_us": "us",
    "isolated_avg_MBps": "MB/s",
    "isolated_p99_MBps": "MB/s",
    "congested_avg_MBps": "MB/s",
    "congested_p99_MBps": "MB/s",
    "impact_avg": "x",
    "impact_p99": "x",
    "congestor_ops": "count",
    # nccl-tests (and rccl-tests, and the core's --busbw): algorithm and bus bandwidth,
    # 10^9 B/s; the CPU time of -C; older versions' largest deviation from the expected
    # result instead of a count of wrong elements; -I's per-iteration summary (CUDA events)
    "algbw_GBps": "GB/s",
    "busbw_GBps": "GB/s",
    "cpu_time_us": "us",
    "elements": "count",
    "max_error": "1",
    "iteration_min_us": "us",
    "iteration_max_us": "us",
    "iteration_avg_us": "us",
    "iteration_p50_us": "us",
    "iteration_p95_us": "us",
    "iteration_p99_us": "us",
    "iteration_stdev_us": "us",
    "iteration_cv_pct": "%",
    "iterations_skipped": "count",
    # computed, not stored: a sweep pair's (or a host's) slowdown against the sweep's median
    # pair, for latency (value / median) and bandwidth (median / value) alike: 1 is the
    # median, more is slower (`history --hosts`)
    "latency_slowdown": "x",
    "bw_slowdown": "x",
    "bibw_slowdown": "x",
    # computed, not stored: message size over one-way ping-pong latency, the bandwidth
    # a student report gives per send mode (analysis.compare.DERIVED)
    "pingpong_MBps": "MB/s",
}

#: The four storage workloads of a sweep (the standard-benchmarks page's columns), in table order.
STORAGE_WORKLOADS = ("seq_write_MBps", "seq_read_MBps", "rand_write_iops", "rand_read_iops")
PER_PROCESS = "_per_process"

# Percentile columns come in any number (OMB -z accepts a list), so their names
# are built: p50_us for a latency percentile, p99_9_MBps for a bandwidth one.
_PERCENTILE_NAME = re.compile(r"p(?P<whole>\d+)(?:_(?P<frac>\d+))?_(?P<unit>us|MBps)")
_PERCENTILE_UNITS = {"us": "us", "MBps": "MB/s"}


#: What names a metric of an in-place run measured beside the out-of-place one (nccl-tests
#: prints both on each row): in_place_busbw_GBps is busbw_GBps, in place.
IN_PLACE = "in_place_"


def in_place_metric(metric: str) -> str:
    """The name of `metric` measured in place: ``in_place_metric("busbw_GBps")``."""
    return IN_PLACE + metric


def percentile_metric(percentile: str | float, unit_suffix: str) -> str:
    """Name of a percentile metric: ``percentile_metric("99.9", "us") == "p99_9_us"``.

    ``unit_suffix`` is ``"us"`` for latencies and ``"MBps"`` for bandwidths.
    """
    if unit_suffix not in _PERCENTILE_UNITS:
        raise ValueError(f"unknown percentile unit suffix {unit_suffix!r}")
    text = f"{float(percentile):g}" if not isinstance(percentile, str) else percentile
    return f"p{text.replace('.', '_')}_{unit_suffix}"


def percentile_of(metric: str) -> tuple[str, str] | None:
    """The percentile and unit suffix a percentile metric's name holds:
    ``percentile_of("p99_9_us") == ("99.9", "us")``; None for any other metric."""
    match = _PERCENTILE_NAME.fullmatch(metric)
    if not match:
        return None
    return match["whole"] + (f".{match['frac']}" if match["frac"] else ""), match["unit"]


def unit_of(metric: str) -> str:
    """Unit of a metric name from the vocabulary (``""`` if the name is not in it)."""
    metric = metric.removeprefix(IN_PLACE)
    if metric in METRIC_UNITS:
        return METRIC_UNITS[metric]
    percentile = percentile_of(metric)
    return _PERCENTILE_UNITS[percentile[1]] if percentile else ""


# Units of values that cannot be below zero: times, bandwidths, rates. (An overlap
# percentage can: OMB prints one when communication slowed down under computation.)
_NEVER_NEGATIVE = frozenset(("us", "ms", "s", "MB/s", "GB/s", "messages/s", "Gflop/s", "GUP/s", "IOPS"))


def value_problem(value: float, unit: str) -> str | None:
    """Why `value` cannot be a measured value in `unit` (words after the value), or None:
    NaN and infinities never are; a time, bandwidth or rate is never below zero."""
    if not math.isfinite(value):
        return "is not a finite number"
    if value < 0 and unit in _NEVER_NEGATIVE:
        return f"is negative, which a {unit} value cannot be"
    return None


def is_known_metric(metric: str) -> bool:
    """Whether ``metric`` belongs to the vocabulary (fixed names, percentiles, in place)."""
    metric = metric.removeprefix(IN_PLACE)
    return metric in METRIC_UNITS or _PERCENTILE_NAME.fullmatch(metric) is not None


# -- names on the command line, titles and directions ---------------------------------

#: Short metric names the command line accepts, beside the stored names themselves.
METRIC_ALIASES = {
    "latency": "latency_us",
    "lat": "latency_us",
    "bw": "bandwidth_MBps",
    "bandwidth": "bandwidth_MBps",
    "rate": "message_rate",
    "msgrate": "message_rate",
    "pingpong_bw": "pingpong_MBps",
    "min_latency": "min_latency_us",
    "max_latency": "max_latency_us",
    "busbw": "busbw_GBps",
    "algbw": "algbw_GBps",
}
#: Which metric speaks for a run when none is asked for, after the benchmark's own.
PREFERRED = (
    "latency_us",
    "bandwidth_MBps",
    "message_rate",
    "t_avg_us",
    "t_us",
    "mbytes_per_sec",
    "overall_us",
    "init_avg_ms",
)
_METRIC_TITLES = {
    "latency_us": "Latency",
    "bandwidth_MBps": "Bandwidth",
    "message_rate": "Message rate",
    "latency_slowdown": "Latency slowdown",
    "bw_slowdown": "Bandwidth slowdown",
    "bibw_slowdown": "Bidirectional bandwidth slowdown",
}


_TIME_UNITS = {"us", "ms", "s"}
_RATE_UNITS = {"MB/s", "messages/s", "GB/s", "Gflop/s", "GUP/s", "IOPS"}  # higher is better


def time_relation(metric: str) -> int:
    """+1 if `metric` grows with the time per operation (latency), -1 if it shrinks with
    it (bandwidth, message rate), 0 if it is not derived from it."""
    unit = unit_of(metric)
    if unit in _TIME_UNITS:
        return 1
    if unit in _RATE_UNITS:
        return -1
    return 0


def higher_is_worse(metric: str) -> bool | None:
    """Which direction is bad for `metric`: True for times, False for rates and
    percentages (overlap), None when the metric has no known direction."""
    relation = time_relation(metric)
    if relation:
        return relation > 0
    if unit_of(metric) == "x":  # slowdown factors (congestion's impact): 1 is none, more is worse
        return True
    return False if unit_of(metric) == "%" else None


def slowdown_metric(pair_metric: str) -> str:
    """The name of a pair metric's slowdown against its sweep's median: "bw_slowdown"."""
    return f"{pair_metric}_slowdown"


def resolve_metric(name: str) -> str:
    return METRIC_ALIASES.get(name.lower(), name)


def metric_title(metric: str) -> str:
    unit = unit_of(metric)
    title = _METRIC_TITLES.get(metric, metric)
    return f"{title} ({unit})" if unit else title


def direction_text(metric: str) -> str:
    worse = higher_is_worse(metric)
    return "" if worse is None else ("lower is better" if worse else "higher is better")
