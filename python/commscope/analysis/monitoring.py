"""Stored runs and history series as the numbers monitoring keeps: a gauge per value, named
and labelled after Prometheus' conventions (base units in the name: seconds, bytes per
second; labels for system, benchmark, size and host). What they become on the way out
(OpenMetrics text, a node_exporter textfile, a Pushgateway) is output/openmetrics.py's.

Monitoring keeps one value per series, the newest: when several runs give the same
series (a metric with the same labels), the run that ended last speaks for it.
"""

from __future__ import annotations

import datetime
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from commscope.analysis.compare import points_by_key, primary, series
from commscope.analysis.peaks import percent_of_peak, run_peak
from commscope.records.metrics import unit_of
from commscope.records.run import Run

#: The prefix of every metric commscope writes.
PREFIX = "commscope"

#: A commscope unit as Prometheus' base unit: (the name's unit suffix, factor).
BASE_UNITS = {
    "us": ("seconds", 1e-6),
    "ms": ("seconds", 1e-3),
    "s": ("seconds", 1.0),
    "MB/s": ("bytes_per_second", 1e6),
    "GB/s": ("bytes_per_second", 1e9),
    "messages/s": ("messages_per_second", 1.0),
}
#: What a value in each base unit measures, for the metric's name.
QUANTITY = {"seconds": "latency", "bytes_per_second": "bandwidth", "messages_per_second": "message_rate"}


@dataclass(frozen=True)
class Family:
    """One metric: its full name, what it means, and the names of its labels; the first
    `identity` of them name a series (the rest describe its newest value: a run's id)."""

    name: str
    help: str
    labels: tuple[str, ...]
    identity: int | None = None  # None: every label


@dataclass(frozen=True)
class Sample:
    family: Family
    labels: tuple[str, ...]  # values, in the family's label order
    value: float
    ended_at: str  # when the run or series it comes from ended: the newest wins


RUN_LABELS = ("system", "benchmark", "label")
POINT_LABELS = (*RUN_LABELS, "metric", "size", "variant")


def _point_family(unit: str, what: str) -> Family:
    return Family(
        f"{PREFIX}_{QUANTITY[unit]}_{unit}",
        f"{what} of the newest stored run at each size, in {unit.replace('_', ' ')} "
        "(metric: the commscope metric it comes from)",
        POINT_LABELS,
    )


def _headline_family(unit: str) -> Family:
    return Family(
        f"{PREFIX}_headline_{QUANTITY[unit]}_{unit}",
        f"The headline value of the newest stored run, in {unit.replace('_', ' ')}: point-to-point latency "
        "at 0-8 B, bandwidth and message rate at the largest size, a collective at 8 B (size says which)",
        POINT_LABELS,
    )


POINT_FAMILIES = {unit: _point_family(unit, "The value") for unit in QUANTITY}
HEADLINE_FAMILIES = {unit: _headline_family(unit) for unit in QUANTITY}
PEAK_RATIO = Family(
    f"{PREFIX}_peak_ratio",
    "Bandwidth as a share of the theoretical peak of the path the run crossed (1 is the peak)",
    POINT_LABELS,
)
RUN_TIMESTAMP = Family(
    f"{PREFIX}_run_end_timestamp_seconds",
    "When the newest stored run of the series ended (Unix time)",
    RUN_LABELS,
)
RUN_COMPLETE = Family(
    f"{PREFIX}_run_complete",
    "1 if the newest stored run completed, 0 if it failed, timed out or was stopped",
    RUN_LABELS,
)
RUN_INFO = Family(
    f"{PREFIX}_run_info",
    "The newest stored run of the series: its id in the result store and MPI library (always 1)",
    (*RUN_LABELS, "run", "mpi_library"),
    identity=len(RUN_LABELS),
)
SWEEP_HOST_BAD = Family(
    f"{PREFIX}_sweep_host_bad",
    "1 if the newest sweep named the host a bad node, 0 if it cleared it (hosts left undecided are absent)",
    ("system", "label", "host", "metric"),
)
CONGESTION_IMPACT = Family(
    f"{PREFIX}_congestion_impact_ratio",
    "Congestion impact factor of the newest congestion run: congested / isolated for latency, "
    "isolated / congested for bandwidth; 1 is no impact",
    ("system", "label", "canary", "congestor", "statistic"),
)
HISTORY_REGRESSION = Family(
    f"{PREFIX}_history_regression",
    "1 if the series' newest level is a regression (its last change point is for the worse), else 0",
    ("system", "benchmark", "label", "metric", "size", "variant"),
)
HISTORY_CHANGE_RATIO = Family(
    f"{PREFIX}_history_level_change_ratio",
    "The series' newest level over the level before its last change point (1 where it has none)",
    HISTORY_REGRESSION.labels,
)
HISTORY_CHANGES = Family(
    f"{PREFIX}_history_change_points",
    "How many change points the series has over the runs selected",
    HISTORY_REGRESSION.labels,
)
DRIFT_LABELS = ("system", "what", "name", "metric")
DRIFT_RATIO = Family(
    f"{PREFIX}_drift_ratio",
    "A host's or link's newest level over its level before the last change point across the stored sweeps, "
    "as slowdowns against each sweep's healthy pair (1: none named; what: host or link; name: the host, or A,B)",
    DRIFT_LABELS,
)
DRIFTING = Family(
    f"{PREFIX}_drifting",
    "1 if the host or link drifted worse across the stored sweeps (history --hosts / --links: named with the "
    "false discoveries over them controlled, its newest level worse), else 0",
    DRIFT_LABELS,
)
CHECK_LABELS = ("system", "label", "baseline")
CHECK_FAILED = Family(
    f"{PREFIX}_check_failed",
    "1 if the newest scheduled check did not pass against its baseline (a regression, a run that "
    "failed, no baseline to judge by), 0 if it passed",
    CHECK_LABELS,
)
CHECK_END_TIMESTAMP = Family(
    f"{PREFIX}_check_end_timestamp_seconds",
    "When the newest scheduled check ended (Unix time): a check that stopped running leaves it behind",
    CHECK_LABELS,
)


def epoch(stamp: str | None) -> float | None:
    """An ISO 8601 time as Unix seconds (a time without a zone is taken as UTC)."""
    if not stamp:
        return None
    try:
        when = datetime.datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return when.timestamp()


def _text(value) -> str:
    return "" if value is None else str(value)


def _size_text(size: int | None) -> str:
    return "" if size is None else str(size)


def base_unit(metric: str) -> tuple[str, float] | None:
    return BASE_UNITS.get(unit_of(metric))


def in_base_unit(value: float, factor: float) -> float:
    """`value` times `factor`, to 12 significant digits: more than any measurement has, and
    0.38 us is written 3.8e-07 s, not 3.7999999999999996e-07."""
    return float(f"{value * factor:.12g}")


def _headline(run: Run, metric: str, values: dict) -> tuple[str, float] | None:
    """The run's headline (history's definition): where it is read, and its value."""
    from commscope.analysis.history import headline

    sizes = {key.size for key in values}
    where = headline(run.benchmark, metric, sizes, sizes)
    found = [value for key, value in values.items() if key.size in where.sizes]
    return (where.text, float(statistics.median(found))) if found else None


def run_info_samples(run: Run) -> list[Sample]:
    """Every run's: when it ended, whether it completed, and its id in the store."""
    stamp = run.ended_at or run.started_at or ""
    who = (_text(run.system), run.benchmark, _text(run.label))
    samples = [
        Sample(RUN_COMPLETE, who, 1.0 if run.status == "complete" else 0.0, stamp),
        Sample(RUN_INFO, (*who, _text(run.id), _text(run.mpi_library)), 1.0, stamp),
    ]
    ended = epoch(stamp)
    if ended is not None:
        samples.append(Sample(RUN_TIMESTAMP, who, ended, stamp))
    return samples


def run_samples(run: Run) -> list[Sample]:
    """What monitoring keeps of a run over sizes: its main metric at each size, its
    headline and its share of the path's peak, beside run_info_samples."""
    stamp = run.ended_at or run.started_at or ""
    who = (_text(run.system), run.benchmark, _text(run.label))
    samples = run_info_samples(run)
    metric = primary(run)
    unit = base_unit(metric) if metric else None
    if unit is None:
        return samples
    name, factor = unit
    values = series(run, metric)
    for key, value in values.items():
        labels = (*who, metric, _size_text(key.size), key.axes.label())
        samples.append(Sample(POINT_FAMILIES[name], labels, in_base_unit(value, factor), stamp))
    headline = _headline(run, metric, values)
    if headline:
        samples.append(
            Sample(HEADLINE_FAMILIES[name], (*who, metric, headline[0], ""), in_base_unit(headline[1], factor), stamp)
        )
    limit = run_peak(run).for_benchmark(run.benchmark)
    if limit:
        for key, point in points_by_key(run).items():
            share = percent_of_peak(point.metrics.get("bandwidth_MBps"), limit)
            if share is not None:
                labels = (*who, "bandwidth_MBps", _size_text(key.size), key.axes.label())
                samples.append(Sample(PEAK_RATIO, labels, share / 100.0, stamp))
    return samples


def host_samples(run: Run, bad: Iterable[str], cleared: Iterable[str], metric: str) -> list[Sample]:
    """A sweep's verdict per host: 1 for a host named bad, 0 for one cleared."""
    stamp = run.ended_at or run.started_at or ""
    who = (_text(run.system), _text(run.label))
    return [Sample(SWEEP_HOST_BAD, (*who, host, metric), 1.0, stamp) for host in bad] + [
        Sample(SWEEP_HOST_BAD, (*who, host, metric), 0.0, stamp) for host in cleared
    ]


def congestion_samples(run: Run) -> list[Sample]:
    """A congestion run's impact factors, per canary test beside each congestor."""
    from commscope.analysis.congestion import run_phases

    stamp = run.ended_at or run.started_at or ""
    samples = []
    for phases in run_phases(run):
        if phases.canary is None:
            continue  # the congestors alone: no canary to be slowed
        for statistic, value in (("avg", phases.impact_avg), ("p99", phases.impact_p99)):
            if value is not None:
                labels = (_text(run.system), _text(run.label), phases.canary, phases.congestor, statistic)
                samples.append(Sample(CONGESTION_IMPACT, labels, float(value), stamp))
    return samples


def check_samples(system: str | None, label: str, baseline: str, passed: bool, ended_at: str) -> list[Sample]:
    """A scheduled check's verdict: whether it failed, and when it ended."""
    labels = (_text(system), label, baseline)
    samples = [Sample(CHECK_FAILED, labels, 0.0 if passed else 1.0, ended_at)]
    ended = epoch(ended_at)
    if ended is not None:
        samples.append(Sample(CHECK_END_TIMESTAMP, labels, ended, ended_at))
    return samples


def history_samples(found) -> list[Sample]:
    """Each history series: whether its newest level is a regression, how far the newest
    level moved at its last change point, and how many change points it has."""
    samples = []
    for one in found.series:
        if not one.samples:
            continue
        stamp = max(sample.run.ended_at or sample.run.started_at or "" for sample in one.samples)
        labels = (_text(one.system), one.benchmark, _text(one.label), one.metric, one.where.text, one.axes.label())
        levels = one.levels
        ratio = levels[-1].median / levels[-2].median if len(levels) > 1 and levels[-2].median else 1.0
        samples += [
            Sample(HISTORY_REGRESSION, labels, 1.0 if one.regressed else 0.0, stamp),
            Sample(HISTORY_CHANGE_RATIO, labels, float(ratio), stamp),
            Sample(HISTORY_CHANGES, labels, float(len(one.changes)), stamp),
        ]
    return newest(samples)


def drift_samples(found) -> list[Sample]:
    """A host or link history (analysis.host_history.SubjectHistory): per host or link
    followed, its drift ratio and whether it drifted worse; those not named are at 1 and 0."""
    matrix = found.matrix
    runs = matrix.runs
    stamp = max((run.ended_at or run.started_at or "" for run in runs), default="")
    system = next((run.system for run in reversed(runs) if run.system), None)
    named = {series.subject: series for series in found.series}
    followed = matrix.names if found.test is not None else list(named)
    samples = []
    for name in followed:
        series = named.get(name)
        labels = (_text(system), matrix.what, name, matrix.metric)
        ratio, worse = (series.drift, series.regressed) if series is not None else (1.0, False)
        samples += [Sample(DRIFT_RATIO, labels, float(ratio), stamp), Sample(DRIFTING, labels, float(worse), stamp)]
    return samples


def newest(samples: Sequence[Sample]) -> list[Sample]:
    """One sample per series (a family and its label values): the newest's, in the order
    the series first appear."""
    kept: dict[tuple, Sample] = {}
    for sample in samples:
        key = (sample.family.name, sample.labels[: sample.family.identity])
        if key not in kept or sample.ended_at >= kept[key].ended_at:
            kept[key] = sample
    return list(kept.values())
