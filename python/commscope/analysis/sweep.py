"""Link sweeps: the matrix of a pairs run, suspect pairs, and the bad nodes and links.

A sweep measures every pair of a schedule (the core's `pairs` benchmark). This module
turns its points into one matrix per metric and judges it, in two steps:

1. Suspects. A host whose pairs are bad with most partners is a node candidate: its
   median over its pairs is far from the population of host medians (median and MAD,
   of the logs: rates and times vary by factors)
   *and* beyond an absolute margin. Then each pair is judged against the pairs that
   touch no candidate (so one bad node among four hosts, half the pairs, cannot drag
   the reference down): far from their median (k MADs) *and* beyond the margin
   (bandwidth below `margin` x the median; latency above `margin` x the minimum).
2. Verdicts, after the suspects were measured again one at a time (the harness runs
   `pairs --schedule FILE --serial`): a pair still bad alone is a fault, one that
   recovered was contention. A node is bad when its retested pairs stay bad; a bad
   pair between two healthy hosts is a bad link.

Everything is numpy on an n x n float32 matrix (NaN where unmeasured); statistics
over hosts use row blocks and over pairs one float32 copy of the upper triangle, so
10,000 hosts (50 million pairs) fit in well under 1 GiB (performance/sweep/run.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from commscope.records.run import Run

#: The metrics of a pair and where the core puts their value; latency is worse higher.
PAIR_METRICS = ("latency", "bw", "bibw")
VALUE_KEY = {"latency": "latency_us", "bw": "bandwidth_MBps", "bibw": "bandwidth_MBps"}
UNIT = {"latency": "us", "bw": "MB/s", "bibw": "MB/s"}
NAME = {"latency": "latency", "bw": "bandwidth", "bibw": "bidirectional bandwidth"}
HIGHER_IS_WORSE = {"latency": True, "bw": False, "bibw": False}
#: MAD of a normal distribution's sample, scaled to its standard deviation.
MAD_SCALE = 1.4826
ROW_BLOCK = 256


@dataclass(frozen=True)
class MetricRule:
    """When a value is suspect. far: more than `mad_k` scaled MADs worse than the median.
    margin: bandwidth below `margin` x the median (0.9), latency above `margin` x the
    smallest value of all pairs (2.0). Both must hold."""

    mad_k: float = 3.0
    margin: float = 0.9


DEFAULT_RULES: dict[str, MetricRule] = {
    "latency": MetricRule(3.0, 2.0),
    "bw": MetricRule(3.0, 0.9),
    "bibw": MetricRule(3.0, 0.9),
}


@dataclass(frozen=True)
class LocateRules:
    """When `sweep locate` (analysis.locate) names a part bad or clears it, and how long it
    may look."""

    confirm: int = 3  # pairs through a part in its confirmation round, alone with cleared partners
    max_rounds: int = 10
    detect: float = 0.20  # the slowdown every part is cleared of (0.2: 20 % slower) before the verdict is certain
    alpha: float = 0.001  # the chance that a sweep of a healthy fabric names anything, at most
    beta: float = 0.05  # the chance of clearing a part slow by `detect` or more, at most


@dataclass(frozen=True)
class Policy:
    """The rules of all metrics plus how much to retest."""

    rules: Mapping[str, MetricRule] = field(default_factory=lambda: dict(DEFAULT_RULES))
    retest_per_node: int = 3  # pairs of a node candidate measured again alone
    max_retests: int = 64  # suspect pairs measured again alone, at most
    locate: LocateRules = field(default_factory=LocateRules)

    def rule(self, metric: str) -> MetricRule:
        """The metric's rule; the default where a policy built by hand leaves it out."""
        return self.rules.get(metric, DEFAULT_RULES[metric])


@dataclass
class SweepMatrix:
    """One value per pair and metric. Index i is rank i of the run; `labels` name them
    (the host, or host:cpu when a host has several ranks; host:cpu/rRANK for ranks that
    shared a core, so no two ranks ever carry one label)."""

    labels: list[str]
    hosts: list[str]
    values: dict[str, np.ndarray]  # metric -> n x n float32, symmetric, NaN where unmeasured

    @property
    def n(self) -> int:
        return len(self.labels)


def matrix_from_points(points: Iterable, n: int | None = None) -> SweepMatrix:
    """The matrix of a pairs run's points (records.run.Point with .pair)."""
    pairs = [point for point in points if point.pair is not None]
    size = n if n is not None else 1 + max((max(p.pair.src, p.pair.dst) for p in pairs), default=-1)
    hosts = [""] * size
    cpus: list[int | None] = [None] * size
    values: dict[str, np.ndarray] = {}
    for point in pairs:
        pair = point.pair
        value = point.metrics.get(VALUE_KEY.get(pair.metric, ""))
        if not isinstance(value, (int, float)):
            continue
        matrix = values.setdefault(pair.metric, _empty(size))
        # beyond float32's range a value is infinite: said here, not by numpy's overflow warning
        cell = value if abs(value) <= FLOAT32_MAX else math.copysign(math.inf, value)
        matrix[pair.src, pair.dst] = matrix[pair.dst, pair.src] = cell
        hosts[pair.src], hosts[pair.dst] = pair.src_host or "", pair.dst_host or ""
        cpus[pair.src], cpus[pair.dst] = pair.src_cpu, pair.dst_cpu
    shared = len(set(hosts)) < len(hosts)
    labels = [
        f"{host or 'rank'}:{cpu if cpu is not None else rank}" if shared else host or str(rank)
        for rank, (host, cpu) in enumerate(zip(hosts, cpus))
    ]
    twice = {label for label in labels if labels.count(label) > 1}  # ranks sharing a core (unpinned)
    labels = [f"{label}/r{rank}" if label in twice else label for rank, label in enumerate(labels)]
    return SweepMatrix(labels=labels, hosts=hosts, values=values)


def matrix_from_run(run: Run) -> SweepMatrix:
    return matrix_from_points(run.points, n=run.ranks)


#: The largest value a float32 cell holds.
FLOAT32_MAX = float(np.finfo(np.float32).max)


def _empty(n: int) -> np.ndarray:
    return np.full((n, n), np.nan, dtype=np.float32)


# -- statistics -----------------------------------------------------------------

#: Above this many partners a host's median is taken over evenly spaced partners, about
#: this many: a bad node is bad with most of them, which a sample shows as well.
HOST_SAMPLE = 2048


def row_medians(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the median of its measured values (over HOST_SAMPLE evenly spaced columns
    at most) and how many values the whole row has. Row blocks are sorted (NaN sorts
    last), so the temporary copy is ROW_BLOCK rows and no per-row Python runs
    (np.nanmedian does, along an axis)."""
    n = matrix.shape[0]
    columns = slice(None) if n <= HOST_SAMPLE else slice(None, None, -(-n // HOST_SAMPLE))
    medians = np.full(n, np.nan, dtype=np.float64)
    counts = np.zeros(n, dtype=np.int64)
    for start in range(0, n, ROW_BLOCK):
        rows = matrix[start : start + ROW_BLOCK]
        counts[start : start + ROW_BLOCK] = np.count_nonzero(~np.isnan(rows), axis=1)
        block = np.sort(rows[:, columns], axis=1)
        count = np.count_nonzero(~np.isnan(block), axis=1)
        low = np.maximum((count - 1) // 2, 0)[:, None]
        high = np.maximum(count // 2, 0)[:, None]
        middle = (
            np.take_along_axis(block, low, axis=1).astype(np.float64) + np.take_along_axis(block, high, axis=1)
        ) / 2
        medians[start : start + ROW_BLOCK] = np.where(count > 0, middle[:, 0], np.nan)
    return medians, counts


#: Above this many pairs the pairs' median and MAD come from an evenly spaced sample of
#: hosts with all their partners (about this many values): the estimate's error is far
#: below any margin, and 50 million values need not be copied and partitioned.
POPULATION_SAMPLE = 4_000_000


def upper_values(matrix: np.ndarray, skip: np.ndarray | None = None) -> np.ndarray:
    """The measured values of the pairs as one float32 array, leaving out rows and columns
    where `skip` is true: each pair once (the upper triangle) up to POPULATION_SAMPLE pairs,
    beyond that the whole rows of evenly spaced hosts."""
    n = matrix.shape[0]
    keep = np.ones(n, dtype=bool) if skip is None else ~skip
    if n * (n - 1) // 2 > POPULATION_SAMPLE:
        rows = np.flatnonzero(keep)
        rows = rows[:: max(1, len(rows) * n // POPULATION_SAMPLE)]
        sample = matrix[rows][:, keep]
        return sample[~np.isnan(sample)]
    out = np.empty(n * (n - 1) // 2, dtype=np.float32)
    used = 0
    for i in range(n - 1):
        if not keep[i]:
            continue
        row = matrix[i, i + 1 :][keep[i + 1 :]]
        row = row[~np.isnan(row)]
        out[used : used + row.size] = row
        used += row.size
    return out[:used]


@dataclass(frozen=True)
class Population:
    """Where the values of a population lie, on the log scale: rates and times vary by
    factors (a busy round halves a bandwidth whether it is 20 or 20,000 MB/s), so the
    spread is measured in ratios and a four-host population is judged like a large one."""

    median: float  # exp of the median of the logs (the median, for an odd count)
    log_median: float
    log_mad: float  # median absolute deviation of the logs, scaled to a standard deviation
    minimum: float
    count: int


def population(values: np.ndarray) -> Population:
    """Median and scaled MAD of the logs, and the minimum; `values` is used as scratch
    space (logged and partitioned in place)."""
    if values.size == 0:
        return Population(float("nan"), float("nan"), float("nan"), float("nan"), 0)
    minimum = float(values.min())
    np.maximum(values, np.float32(1e-30), out=values)  # a zero bandwidth is the worst, not an error
    np.log(values, out=values)
    log_median = _median_in_place(values)
    np.subtract(values, np.float32(log_median), out=values)
    np.abs(values, out=values)
    log_mad = _median_in_place(values) * MAD_SCALE
    return Population(float(np.exp(log_median)), log_median, log_mad, minimum, int(values.size))


def _median_in_place(values: np.ndarray) -> float:
    n = values.size
    half = n // 2
    if n % 2:
        values.partition(half)
        return float(values[half])
    values.partition((half - 1, half))
    return float((np.float64(values[half - 1]) + np.float64(values[half])) / 2)


def worse(metric: str, value, reference: Population, rule: MetricRule):
    """Whether `value` (a number or an array) is suspect against `reference`: far from its
    median by more than mad_k MADs (of the logs) and beyond the absolute margin."""
    value = np.asarray(value)
    if value.dtype != np.float32:
        value = value.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        deviation = np.log(np.maximum(value, 1e-30)) - reference.log_median
    if HIGHER_IS_WORSE[metric]:
        far = deviation > rule.mad_k * reference.log_mad
        beyond = value > rule.margin * reference.minimum
    else:
        far = -deviation > rule.mad_k * reference.log_mad
        beyond = value < rule.margin * reference.median
    return far & beyond


# -- suspects -------------------------------------------------------------------


@dataclass
class Suspects:
    """What step 1 found for one metric."""

    metric: str
    host_median: np.ndarray  # per index: median over its pairs
    host_population: Population  # of those medians
    pair_population: Population  # of the pairs touching no node candidate
    nodes: list[int]  # node candidates
    pairs: list[tuple[int, int]]  # suspect pairs (i < j), node candidates' included
    values: dict[tuple[int, int], float]

    def node_pairs(self, node: int, matrix: np.ndarray) -> list[tuple[int, int]]:
        """A node candidate's pairs with partners that are no candidates, worst first."""
        candidates = set(self.nodes)
        row = matrix[node].astype(np.float64)
        partners = [j for j in np.flatnonzero(~np.isnan(row)).tolist() if j != node and j not in candidates]
        partners.sort(key=lambda j: -row[j] if HIGHER_IS_WORSE[self.metric] else row[j])
        return [(min(node, j), max(node, j)) for j in partners]

    def retest_pairs(self, policy: Policy, matrix: np.ndarray) -> list[tuple[int, int]]:
        """The pairs to measure again alone: a few of each node candidate's (with partners
        that are no candidates, the worst first), then the other suspects, worst first."""
        chosen: list[tuple[int, int]] = []
        candidates = set(self.nodes)
        sign = -1 if HIGHER_IS_WORSE[self.metric] else 1
        for node in self.nodes:
            chosen += self.node_pairs(node, matrix)[: policy.retest_per_node]
        ranked = sorted(self.pairs, key=lambda pair: sign * self.values[pair])
        chosen += [pair for pair in ranked if not set(pair) & candidates]
        return list(dict.fromkeys(chosen))[: policy.max_retests]


def find_suspects(matrix: np.ndarray, metric: str, rule: MetricRule) -> Suspects:
    host_median, partners = row_medians(matrix)
    measured = partners > 0
    host_pop = population(host_median[measured].astype(np.float32))
    # a node needs two partners or more: with one, node and link cannot be told apart
    candidate = (
        measured & (partners >= 2) & worse(metric, np.nan_to_num(host_median, nan=host_pop.median), host_pop, rule)
    )
    pair_pop = population(upper_values(matrix, skip=candidate))
    if pair_pop.count == 0:  # every host a candidate: judge against all pairs
        pair_pop = population(upper_values(matrix))
    pairs: list[tuple[int, int]] = []
    values: dict[tuple[int, int], float] = {}
    n = matrix.shape[0]
    for start in range(0, n, ROW_BLOCK):
        block = matrix[start : start + ROW_BLOCK]
        with np.errstate(invalid="ignore"):
            bad = worse(metric, block, pair_pop, rule) & ~np.isnan(block)
        rows, cols = np.nonzero(bad)
        for row, col in zip(rows.tolist(), cols.tolist()):
            i = start + row
            if i < col:
                pairs.append((i, col))
                values[(i, col)] = float(matrix[i, col])
    return Suspects(
        metric=metric,
        host_median=host_median,
        host_population=host_pop,
        pair_population=pair_pop,
        nodes=np.flatnonzero(candidate).tolist(),
        pairs=pairs,
        values=values,
    )


# -- verdicts -------------------------------------------------------------------


def number(value: float) -> str:
    """Four significant digits, without an exponent for the bandwidths of fast links
    (12345.6 MB/s is "12346", not "1.235e+04")."""
    return f"{value:.0f}" if abs(value) >= 1e4 else f"{value:.4g}"


@dataclass(frozen=True)
class Flag:
    """A bad node or link with its evidence."""

    kind: str  # "node" or "link"
    metric: str
    where: tuple[int, ...]  # the node's index, or the link's two
    value: float  # node: median over its pairs; link: the pair's value
    population_median: float  # hosts' medians (node) or the healthy pairs' median (link)
    retest: float | None  # measured again alone: median of the node's retested pairs, or the pair's
    partners_bad: int = 0  # node: suspect pairs / pairs with a value
    partners: int = 0

    def evidence(self, labels: Sequence[str]) -> str:
        unit = UNIT[self.metric]
        name = NAME[self.metric]
        retest = f"; alone {number(self.retest)} {unit}" if self.retest is not None else "; not retested"
        if self.kind == "node":
            return (
                f"{name} {number(self.value)} {unit} (median over its pairs; hosts' median "
                f"{number(self.population_median)} {unit}), bad with {self.partners_bad} of {self.partners} "
                f"partners{retest}"
            )
        value, median = number(self.value), number(self.population_median)
        return f"{name} {value} {unit} (pairs' median {median} {unit}){retest}"


@dataclass(frozen=True)
class Cleared:
    """A suspect pair that was fine alone: contention in the sweep, not a fault."""

    metric: str
    pair: tuple[int, int]
    value: float
    retest: float


@dataclass
class Verdict:
    flags: list[Flag]
    cleared: list[Cleared]

    def bad_nodes(self) -> set[int]:
        return {flag.where[0] for flag in self.flags if flag.kind == "node"}

    def bad_links(self) -> set[tuple[int, int]]:
        return {flag.where for flag in self.flags if flag.kind == "link"}


def judge(
    suspects: Suspects, rule: MetricRule, retest: Mapping[tuple[int, int], float] | None, matrix: np.ndarray
) -> Verdict:
    """Flags of one metric. `retest` maps retested pairs (i < j) to their value alone;
    without it (no retest) every suspect stands as found."""
    retest = retest or {}
    metric = suspects.metric

    def still_bad(pair: tuple[int, int]) -> bool:
        value = retest.get(pair)
        return True if value is None else bool(worse(metric, value, suspects.pair_population, rule))

    flags: list[Flag] = []
    cleared: list[Cleared] = []
    nodes: set[int] = set()
    suspect_set = set(suspects.pairs)
    host_pop = suspects.host_population
    for node in suspects.nodes:
        own = suspects.node_pairs(node, matrix)
        checked = [pair for pair in own if pair in retest]
        alone = [retest[pair] for pair in checked]
        # the node stays bad when its pairs measured alone are still bad as a host's median is judged
        if alone and not bool(worse(metric, float(np.median(alone)), host_pop, rule)):
            cleared += [Cleared(metric, pair, float(matrix[pair]), retest[pair]) for pair in checked]
            continue
        nodes.add(node)
        row = matrix[node]
        measured = int(np.count_nonzero(~np.isnan(row)))
        bad = int(np.count_nonzero(worse(metric, row[~np.isnan(row)], host_pop, rule)))
        flags.append(
            Flag(
                "node",
                metric,
                (node,),
                float(suspects.host_median[node]),
                host_pop.median,
                float(np.median(alone)) if alone else None,
                partners_bad=bad,
                partners=measured,
            )
        )
    done = {item.pair for item in cleared}
    for pair in sorted(suspect_set - done):
        if set(pair) & nodes:
            continue  # explained by its bad node
        if pair in retest and not still_bad(pair):
            cleared.append(Cleared(metric, pair, suspects.values[pair], retest[pair]))
            continue
        if pair not in retest and set(pair) & set(suspects.nodes):
            continue  # a cleared node candidate's pair that was not measured alone
        flags.append(
            Flag("link", metric, pair, suspects.values[pair], suspects.pair_population.median, retest.get(pair))
        )
    return Verdict(flags, cleared)
