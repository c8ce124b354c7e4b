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

import re

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
}

# Percentile columns come in any number (OMB -z accepts a list), so their names
# are built: p50_us for a latency percentile, p99_9_MBps for a bandwidth one.
_PERCENTILE_NAME = re.compile(r"p(?P<whole>\d+)(?:_(?P<frac>\d+))?_(?P<unit>us|MBps)")
_PERCENTILE_UNITS = {"us": "us", "MBps": "MB/s"}


def percentile_metric(percentile: str | float, unit_suffix: str) -> str:
    """Name of a percentile metric: ``percentile_metric("99.9", "us") == "p99_9_us"``.

    ``unit_suffix`` is ``"us"`` for latencies and ``"MBps"`` for bandwidths.
    """
    if unit_suffix not in _PERCENTILE_UNITS:
        raise ValueError(f"unknown percentile unit suffix {unit_suffix!r}")
    text = f"{float(percentile):g}" if not isinstance(percentile, str) else percentile
    return f"p{text.replace('.', '_')}_{unit_suffix}"


def unit_of(metric: str) -> str:
    """Unit of a metric name from the vocabulary (``""`` if the name is not in it)."""
    if metric in METRIC_UNITS:
        return METRIC_UNITS[metric]
    match = _PERCENTILE_NAME.fullmatch(metric)
    if match:
        return _PERCENTILE_UNITS[match["unit"]]
    return ""


def is_known_metric(metric: str) -> bool:
    """Whether ``metric`` belongs to the vocabulary (fixed names or percentiles)."""
    return metric in METRIC_UNITS or _PERCENTILE_NAME.fullmatch(metric) is not None
