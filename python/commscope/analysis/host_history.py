"""`commscope history --host/--hosts/--link/--links`: a host's or a link's value in each
stored sweep, its levels and change points, and which of many hosts or links drifted.

A sweep is a stored run of the pairs benchmark (locate, all-pairs, one-to-all, recheck's
and the nightly loop's sweeps alike), not a serial retest. In each sweep a pair's value
becomes its slowdown against the sweep's healthy pair, the median over its hosts of each
one's median pair (latency / healthy, healthy / bandwidth: 1 is as healthy, 1.12 is 12 %
slower), so a change of the whole fabric (a new MPI, a busy night) leaves every host at 1,
and a bad host that holds half the pairs of a small sweep does not move it. A host's value
in a sweep is the median slowdown of its pairs there; a link's, the median of its own
pair's.

One host or link (`--host`, `--link`) is followed as `history` follows a benchmark: its
levels and change points (analysis.history, analysis.changepoints), a regression when its
newest level is worse. Every host or link (`--hosts`, `--links`) is also tested against
the others of its sweeps (analysis.drift): only those whose change Benjamini-Hochberg keeps
across all of them, and whose newest level is a regression slower than the healthy pair by
more than the tolerance, are named.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from commscope.analysis.check import Policy
from commscope.analysis.drift import MIN_POPULATION, DriftTest, drift_test
from commscope.analysis.history import Sample, Series, Where, change_points
from commscope.analysis.provenance_diff import aspects
from commscope.analysis.sweep import HIGHER_IS_WORSE, PAIR_METRICS, VALUE_KEY
from commscope.analysis.sweep_verdicts import retest_of
from commscope.errors import UsageError
from commscope.records.benchmarks import PAIRS_BENCHMARK
from commscope.records.metrics import slowdown_metric
from commscope.records.run import NO_AXES, Run
from commscope.store.db import Store

#: The tolerance unless one is given: a host's level is a median over its pairs against the
#: sweep's median, so a few percent is a real drift (a benchmark's 10 % default would leave a
#: node 12 % slower named on half of its months only).
TOLERANCE = 0.05
#: The metric followed when none is asked for and the sweeps measured it.
DEFAULT_METRIC = "bw"
HOST, LINK = "host", "link"


@dataclass(frozen=True)
class SweepPairs:
    """One sweep's pairs of one metric between two different hosts: indices into `hosts`."""

    run: Run
    hosts: Sequence[str]
    a: np.ndarray
    b: np.ndarray
    values: np.ndarray


def is_sweep(run: Run) -> bool:
    """A run whose pairs a host history follows: a sweep, not a serial retest of one."""
    return run.benchmark == PAIRS_BENCHMARK and retest_of(run) is None


def sweep_pairs(run: Run, hosts: Sequence[str], src, dst, values) -> SweepPairs:
    """The pairs of ranks `src`, `dst` with their values, as hosts (`hosts` by rank); pairs
    within one host and values that are not positive numbers are left out."""
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    names = sorted(set(hosts))
    index = {name: number for number, name in enumerate(names)}
    of_rank = np.array([index[host] for host in hosts], dtype=np.int64)
    valid = (src >= 0) & (dst >= 0) & (src < len(hosts)) & (dst < len(hosts))
    src, dst, values = src[valid], dst[valid], values[valid]
    a, b = of_rank[src], of_rank[dst]
    keep = (a != b) & np.isfinite(values) & (values > 0)
    return SweepPairs(run, names, a[keep], b[keep], values[keep])


def rank_names(run: Run, ranks: int) -> list[str] | None:
    """The host of each rank 0..ranks-1 from the run's rank list; None where it lacks one."""
    names: list[str | None] = [None] * ranks
    for host in run.hosts or []:
        for rank in host.get("ranks", []):
            if isinstance(rank, int) and 0 <= rank < ranks:
                names[rank] = host.get("name")
    return None if any(name is None for name in names) else names  # type: ignore[return-value]


def of_run(run: Run, metric: str) -> SweepPairs:
    """A stored sweep's pairs of `metric`, from its points (a Run loaded whole: the report)."""
    points = [point for point in run.points if point.pair is not None and point.pair.metric == metric]
    value = VALUE_KEY[metric]
    hosts: dict[int, str] = {}
    for point in points:
        hosts[point.pair.src] = point.pair.src_host or str(point.pair.src)
        hosts[point.pair.dst] = point.pair.dst_host or str(point.pair.dst)
    ranks = 1 + max(hosts, default=-1)
    names = [hosts.get(rank, f"rank {rank}") for rank in range(ranks)]
    found = [
        (p.pair.src, p.pair.dst, p.metrics[value]) for p in points if isinstance(p.metrics.get(value), (int, float))
    ]
    src, dst, values = zip(*found) if found else ((), (), ())
    return sweep_pairs(run, names, src, dst, values)


def healthy_median(pairs: SweepPairs) -> float:
    """The sweep's healthy pair: the median over its hosts of each one's median pair. A bad
    host of four holds half the pairs of an all-pairs sweep, and their median would be half
    slow; of the hosts' own medians only its own is."""
    ends = np.concatenate([pairs.a, pairs.b])
    _, medians = _group_medians(ends, np.concatenate([pairs.values, pairs.values]))
    return float(np.median(medians))


def slowdowns(pairs: SweepPairs, metric: str) -> np.ndarray:
    """Each pair's slowdown against the sweep's healthy pair (1: as healthy; 1.25: a quarter
    slower, whatever the metric)."""
    if not len(pairs.values):
        return pairs.values
    ratio = pairs.values / healthy_median(pairs)
    return ratio if HIGHER_IS_WORSE[metric] else 1 / ratio


@dataclass
class Matrix:
    """Hosts (or links) by sweeps: each one's slowdown in each sweep, NaN where it was not
    measured. `runs` are the sweeps, oldest first."""

    what: str  # HOST or LINK
    metric: str
    names: list[str]
    runs: list[Run]
    values: np.ndarray

    def row(self, name: str) -> int:
        return self.names.index(name)


def _group_medians(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys and the median of the values of each."""
    order = np.argsort(values)
    order = order[np.argsort(keys[order], kind="stable")]  # by key, each key's values in order
    keys, values = keys[order], values[order]
    start = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    count = np.diff(np.concatenate([start, [len(keys)]]))
    return keys[start], (values[start + (count - 1) // 2] + values[start + count // 2]) / 2


def matrix(sweeps: Sequence[SweepPairs], metric: str, what: str) -> Matrix:
    """The hosts' (what=HOST) or links' (LINK) slowdowns in `sweeps`, oldest sweep first."""
    sweeps = sorted(sweeps, key=lambda one: (one.run.started_at or "", one.run.id or 0))
    names = sorted({host for one in sweeps for host in one.hosts})
    index = {name: number for number, name in enumerate(names)}
    columns = []
    for one in sweeps:
        glob = np.array([index[host] for host in one.hosts], dtype=np.int64)
        a, b, slow = glob[one.a], glob[one.b], slowdowns(one, metric)
        if what == HOST:
            keys, values = np.concatenate([a, b]), np.concatenate([slow, slow])
        else:
            keys, values = np.minimum(a, b) * len(names) + np.maximum(a, b), slow
        columns.append(_group_medians(keys, values))
    used = np.unique(np.concatenate([keys for keys, _ in columns])) if columns else np.zeros(0, np.int64)
    if what == LINK:
        labels = [f"{names[key // len(names)]},{names[key % len(names)]}" for key in used]
    else:
        labels = [names[key] for key in used]
    table = np.full((len(used), len(sweeps)), np.nan)
    for column, (keys, values) in enumerate(columns):
        table[np.searchsorted(used, keys), column] = values
    return Matrix(what, metric, labels, [one.run for one in sweeps], table)


def extended(found: Matrix, sweeps: Sequence[SweepPairs]) -> Matrix:
    """`found` with the columns of newer `sweeps` after its own (hosts or links new to them
    added as rows)."""
    if not sweeps:
        return found
    new = matrix(sweeps, found.metric, found.what)
    names = sorted(set(found.names) | set(new.names))
    row = {name: number for number, name in enumerate(names)}
    table = np.full((len(names), len(found.runs) + len(new.runs)), np.nan)
    table[[row[name] for name in found.names], : len(found.runs)] = found.values
    table[[row[name] for name in new.names], len(found.runs) :] = new.values
    return Matrix(found.what, found.metric, names, [*found.runs, *new.runs], table)


@dataclass
class SubjectSeries(Series):
    """A host's or link's series: a history Series of slowdowns named after its subject."""

    subject: str = ""
    what: str = HOST
    p: float | None = None  # its change test's p-value among many (None: followed alone)

    @property
    def name(self) -> str:
        return f"{self.what} {self.subject}: {self.metric.removesuffix('_slowdown')}"

    @property
    def drift(self) -> float:
        """The newest level over the level before its last change point (1 where it has none)."""
        levels = self.levels
        return levels[-1].median / levels[-2].median if len(levels) > 1 and levels[-2].median else 1.0


@dataclass
class SubjectHistory:
    """What `history --host/--hosts/--link/--links` found: the matrix, the series shown (the
    one asked for, or those named among many) and, among many, the change test of each."""

    matrix: Matrix
    policy: Policy
    series: list[SubjectSeries]
    test: DriftTest | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def regressed(self) -> list[SubjectSeries]:
        return [found for found in self.series if found.regressed]


def subject_series(found: Matrix, row: int, policy: Policy, described: dict[int, dict[str, str]]) -> SubjectSeries:
    """One row of the matrix as a series with its levels and change points."""
    metric = slowdown_metric(found.metric)
    samples, lacking = [], []
    for run, value in zip(found.runs, found.values[row]):
        if np.isnan(value):
            lacking.append(run)
        else:
            samples.append(Sample(run, float(value), None))
    series = SubjectSeries(
        PAIRS_BENCHMARK, metric, None, None, NO_AXES, Where((None,), ""), samples, lacking=lacking,
        subject=found.names[row], what=found.what,
    )  # fmt: skip
    series.changes = change_points(samples, metric, policy, described, sweeps=True)
    return series


def _described(runs: Sequence[Run]) -> dict[int, dict[str, str]]:
    """Each sweep's provenance aspects, but its hosts: sweeps of other hosts explain nothing
    about the host followed."""
    return {run.id: {key: value for key, value in aspects(run).items() if key != "hosts"} for run in runs}


def one(found: Matrix, subject: str, policy: Policy) -> SubjectHistory:
    """The history of one host or link (`subject` as the matrix names it)."""
    series = subject_series(found, found.row(subject), policy, _described(found.runs))
    return SubjectHistory(found, policy, [series])


def many(found: Matrix, policy: Policy) -> SubjectHistory:
    """Every host or link tested; named, largest drift first, are those Benjamini-Hochberg
    keeps whose newest level is a regression and slower than the sweeps' healthy pair by more
    than the tolerance: a host that was fast and is now at the median drifted, but nothing
    about it is slow (among 240 healthy hosts one such in ten months came through)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        test = drift_test(np.log(found.values))
    described = _described(found.runs)
    named = []
    for row in np.nonzero(test.kept)[0]:
        series = subject_series(found, int(row), policy, described)
        series.p = float(test.p[row])
        if series.regressed and series.levels[-1].median > 1 + policy.tolerance:
            named.append(series)
    named.sort(key=lambda series: (-series.drift, series.subject))
    notes = []
    if len(found.names) < MIN_POPULATION:
        notes.append(
            f"{len(found.names)} {found.what}s are too few for the test against their population to name any "
            f"(each is one of {len(found.names)} in every sweep); --{found.what} follows one alone"
        )
    return SubjectHistory(found, policy, named, test, notes)


def of_runs(runs: Sequence[Run], policy: Policy) -> SubjectHistory | None:
    """Every host of the sweeps among `runs` (loaded whole, as a report has them) tested as
    `history --hosts` tests them, on bw where they measured it; None with fewer than two
    sweeps of pairs between hosts."""
    sweeps = [run for run in runs if is_sweep(run)]
    measured = {point.pair.metric for run in sweeps for point in run.points if point.pair is not None}
    metric = DEFAULT_METRIC if DEFAULT_METRIC in measured else next((m for m in PAIR_METRICS if m in measured), None)
    if metric is None:
        return None
    found = [pairs for pairs in (of_run(run, metric) for run in sweeps) if len(pairs.values)]
    return many(matrix(found, metric, HOST), policy) if len(found) >= 2 else None


# -- what the command line names -----------------------------------------------------------


def link_name(text: str) -> tuple[str, str]:
    """ "cn001,cn002" as a link's two hosts, in the order the matrix names them."""
    ends = [part.strip() for part in text.split(",")]
    if len(ends) != 2 or not all(ends) or ends[0] == ends[1]:
        raise UsageError(f"--link {text!r}: give two different hosts, A,B")
    a, b = sorted(ends)
    return a, b


def check_subject(found: Matrix, subject: str, known: set[str], selection: str) -> None:
    """Refuse a host or link the sweeps never measured, saying which of the two it is."""
    if subject in found.names:
        return
    what, sweeps = found.what, _runs_text(found.runs)
    ends = [subject] if what == HOST else subject.split(",")
    strangers = [end for end in ends if end not in known]
    if strangers:
        close = difflib.get_close_matches(strangers[0], sorted(known), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise UsageError(
            f"--{what} {subject}: no host {strangers[0]} in the runs selected ({selection}){hint}; "
            f"the {len(found.runs)} sweep(s) {sweeps} measured {_count(found, HOST)} host(s)"
        )
    measured = f"a {found.metric} pair of it" if what == HOST else "this pair"
    raise UsageError(
        f"--{what} {subject}: the runs selected ({selection}) know {' and '.join(ends)}, but none of the "
        f"{len(found.runs)} sweep(s) {sweeps} measured {measured}"
    )


def _count(found: Matrix, what: str) -> int:
    if found.what == what:
        return len(found.names)
    return len({end for name in found.names for end in name.split(",")})


def _runs_text(runs: Sequence[Run]) -> str:
    ids = [str(run.id) for run in runs]
    return "(runs " + (", ".join(ids) if len(ids) <= 6 else f"{ids[0]} .. {ids[-1]}") + ")"


def _metric_pairs(store: Store, sweeps: Sequence[Run], asked: str | None) -> tuple[str, dict]:
    """The pair metric to follow and each sweep's pairs of it: the one asked; else bw where
    the sweeps measured it, else the first of PAIR_METRICS they did."""
    if asked is not None and asked not in PAIR_METRICS:
        raise UsageError(f"--metric {asked}: a host's or link's history follows one of {', '.join(PAIR_METRICS)}")
    ids = [run.id for run in sweeps]
    metric = asked or DEFAULT_METRIC
    found = store.pair_values(ids, metric, VALUE_KEY[metric])
    if found:
        return metric, found
    measured = store.pair_metrics(ids)
    others = [each for each in PAIR_METRICS if each in measured]
    if asked is None and others:
        return others[0], store.pair_values(ids, others[0], VALUE_KEY[others[0]])
    what = f"--metric {asked}: " if asked else ""
    raise UsageError(
        f"{what}the {len(sweeps)} sweep(s) {_runs_text(sweeps)} measured {', '.join(others) or 'no pairs'}"
    )


def load(
    store: Store, run_ids: Sequence[int], asked: str | None, what: str, flag: str, selection: str
) -> tuple[Matrix, set[str]]:
    """The hosts' or links' matrix of the sweeps among the runs selected (`selection` and the
    option `flag` say how, for messages), and every host those runs name (sweeps or not).
    Each sweep's pairs are read as columns, never as a Run of Points."""
    runs = store.runs_at_sizes(run_ids, [])  # the runs' rows alone
    sweeps = [run for run in runs if is_sweep(run)]
    if not sweeps:
        kinds = ", ".join(sorted({run.benchmark for run in runs}))
        raise UsageError(
            f"the runs selected ({selection}) hold no sweep: {flag} follows hosts over stored sweeps "
            f"(locate, all-pairs, one-to-all, recheck); {len(runs)} run(s) of {kinds}"
        )
    if len(sweeps) < 2:
        raise UsageError(
            f"{flag} needs two or more sweeps; the runs selected ({selection}) hold only run {sweeps[0].id}"
        )
    metric, columns = _metric_pairs(store, sweeps, asked)
    found = []
    for run in sweeps:
        pairs = columns.get(run.id)
        if pairs is None:
            continue
        src, dst = np.fromstring(pairs.src, sep=","), np.fromstring(pairs.dst, sep=",")
        values = np.fromstring(pairs.values, sep=",")
        if not (len(src) == len(dst) == len(values)):
            raise UsageError(f"run {run.id}: its pairs' ranks or values cannot be read from the store")
        ranks = int(1 + max(src.max(initial=-1), dst.max(initial=-1)))
        names = rank_names(run, ranks)
        if names is None:  # no rank list (an import): the pairs name their hosts
            named = store.rank_hosts(run.id)
            names = [named.get(rank, f"rank {rank}") for rank in range(ranks)]
        found.append(sweep_pairs(run, names, src, dst, values))
    known = {host["name"] for run in runs for host in run.hosts or [] if isinstance(host.get("name"), str)}
    return matrix(found, metric, what), known
