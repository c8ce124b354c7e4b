"""`commscope history`: a benchmark's value at a size over time, its change points, and
what changed in the environment at each.

A series is the runs of one benchmark with one system and label (a nightly check's runs),
in the order they started, one value each at the size looked at; a sweep axis that varies
(the datatypes of -T) gives each combination a series of its own. The headline sizes say
what people quote: point-to-point latency at 0-8 B (the median of the run's values
there), bandwidth and message rate at the largest size, a collective at 8 B (one double:
the global sum applications wait on, where a change of transport or stack shows first).
That value of one run is its headline value everywhere (run_headline: the report's summary
says it too).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from commscope.analysis.changepoints import Change, Level, Rule, find_changes, levels
from commscope.analysis.check import Policy
from commscope.analysis.compare import combinations, common_metric, points_by_key, series, varying_axes
from commscope.analysis.provenance_diff import Difference, aspects, changed_at, lasting_differences
from commscope.analysis.repeats import repeat_groups
from commscope.analysis.stats import Summary
from commscope.errors import UsageError
from commscope.records.benchmarks import is_collective
from commscope.records.metrics import higher_is_worse, time_relation
from commscope.records.run import Axes, Run
from commscope.records.text import format_size

#: Point-to-point latency's headline: the sizes up to this many bytes.
SMALL_MESSAGE_LIMIT = 8
#: A collective's headline size: one double.
COLLECTIVE_KEY_SIZE = 8


@dataclass(frozen=True)
class Where:
    """The sizes a series reads from each run (their median where several) and how the
    series is named by them: "0-8 B", "4 MiB"."""

    sizes: tuple[int | None, ...]
    text: str

    @classmethod
    def at(cls, size: int | None) -> Where:
        return cls((size,), format_size(size))


@dataclass(frozen=True)
class Sample:
    """One run's value in a series."""

    run: Run
    value: float
    summary: Summary | None  # the sample statistics at the size, for a one-size series


@dataclass(frozen=True)
class ChangePoint:
    change: Change
    before: Run  # the run just before the change
    after: Run  # the run just after it
    differences: list[Difference]


@dataclass
class Series:
    benchmark: str
    metric: str
    system: str | None
    label: str | None
    axes: Axes
    where: Where
    samples: list[Sample]
    changes: list[ChangePoint] = field(default_factory=list)
    lacking: list[Run] = field(default_factory=list)  # runs without a value at the size

    @property
    def name(self) -> str:
        """ "latency (vm, nightly) at 0-8 B" """
        who = ", ".join(part for part in (self.system, self.label) if part)
        return f"{self.benchmark}{self.axes.suffix()}" + (f" ({who})" if who else "") + f" at {self.where.text}"

    @property
    def levels(self) -> list[Level]:
        return levels([sample.value for sample in self.samples], [point.change for point in self.changes])

    @property
    def regressed(self) -> bool:
        """Whether the newest level is worse than the one before it."""
        return bool(self.changes) and self.changes[-1].change.worse


@dataclass
class History:
    series: list[Series]
    policy: Policy

    @property
    def regressed(self) -> list[Series]:
        return [found for found in self.series if found.regressed]


def _time_order(runs: Sequence[Run]) -> list[Run]:
    """Runs in the order they started; runs without a start time (some imports) first, by id."""
    return sorted(runs, key=lambda run: (run.started_at or "", run.id or 0))


def headline(benchmark: str, metric: str, sizes: set[int | None], newest: set[int | None]) -> Where:
    """The headline of one benchmark's series, given the sizes its runs have and those of its
    newest run."""
    known = sorted(size for size in sizes if size is not None)
    if not known:
        return Where.at(None)
    if time_relation(metric) < 0:  # bandwidth, message rate
        return Where.at(max(size for size in newest if size is not None) if newest - {None} else known[-1])
    if is_collective(benchmark):
        return Where.at(COLLECTIVE_KEY_SIZE if COLLECTIVE_KEY_SIZE in sizes else known[0])
    small = tuple(size for size in known if size <= SMALL_MESSAGE_LIMIT)
    if len(small) > 1:
        return Where(small, f"{small[0]}-{small[-1]} B")
    return Where.at(small[0] if small else known[0])


def run_headline(run: Run, metric: str) -> tuple[float, Where] | None:
    """A run's headline value of `metric`, the one definition the report's summary and
    `history` share: the value at headline()'s sizes for this run alone (the median of its
    values there where several: point-to-point latency over 0-8 B), at the first
    combination of its sweep axes; None where it has no value of `metric`."""
    values = series(run, metric)
    if not values:
        return None
    first = combinations(values)[0]
    at = {key.size: value for key, value in values.items() if key.axes == first}
    where = headline(run.benchmark, metric, set(at), set(at))
    value = value_at(at, where)
    return None if value is None else (value, where)


def value_at(values: dict[int | None, float], where: Where) -> float | None:
    """One run's value at `where`, from its values by size: the median where several."""
    found = [values[size] for size in where.sizes if size in values]
    return float(statistics.median(found)) if found else None


def _samples(runs: Sequence[Run], values_of: dict, metric: str, axes: Axes, names: tuple[str, ...], where: Where):
    """The runs' values at `where` (and axis combination), and the runs without one there;
    `values_of` holds each run's series of the metric, by run id."""
    samples, lacking = [], []
    per_size = len(where.sizes) == 1 and time_relation(metric) != 0
    for run in runs:
        values = {key.size: value for key, value in values_of[run.id].items() if key.axes == axes}
        value = value_at(values, where)
        if value is None:
            lacking.append(run)
            continue
        summary = None
        if per_size:
            points = {key.size: point for key, point in points_by_key(run, names).items() if key.axes == axes}
            summary = Summary.of(points[where.sizes[0]])
        samples.append(Sample(run, value, summary))
    return samples, lacking


def change_points(
    samples: Sequence[Sample],
    metric: str,
    policy: Policy,
    aspects_of: dict[int, dict[str, str]],
    sweeps: bool = False,
) -> list[ChangePoint]:
    """The series' change points; `aspects_of` holds each run's provenance aspects, by run id.
    With `sweeps` (a host's series, analysis.host_history) every run is a launch of its own,
    not a repeat of another, and a change point goes where the values step (find_changes'
    refine)."""
    runs = [sample.run for sample in samples]
    starts, index = [], 0
    for group in [] if sweeps else repeat_groups(runs)[:-1]:
        index += len(group)
        starts.append(index)
    summaries = [sample.summary for sample in samples]
    described = [aspects_of[run.id] for run in runs]
    changes = find_changes(
        [sample.value for sample in samples],
        Rule(bool(higher_is_worse(metric)), policy.tolerance, policy.floor_for(metric)),
        list(range(1, len(runs))) if sweeps else starts,
        summaries if all(summaries) else (),
        changed_at(described),
        refine=sweeps,
    )
    return [
        ChangePoint(change, runs[change.index - 1], runs[change.index], lasting_differences(described, change.index))
        for change in changes
    ]


def history(
    runs: Sequence[Run],
    policy: Policy = Policy(),
    metric: str | None = None,
    size: int | None = None,
    all_sizes: bool = False,
) -> History:
    """The series of `runs` with their change points: at `size`, at every size
    (`all_sizes`), or at each benchmark's headline size. Raises UsageError when there is
    nothing to follow over time."""
    too_few(runs)
    found = follow(runs, policy, metric, size, all_sizes)
    if not found:
        raise no_such_size(size, runs)
    return History(found, policy)


def too_few(runs: Sequence[Run]) -> None:
    """Refuses a selection of fewer than two runs: nothing to follow over time."""
    if len(runs) < 2:
        raise UsageError(
            f"history needs two or more runs; the selection has only run {runs[0].id}" if runs else "no runs selected"
        )


def follow(
    runs: Sequence[Run],
    policy: Policy = Policy(),
    metric: str | None = None,
    size: int | None = None,
    all_sizes: bool = False,
) -> list[Series]:
    """history()'s series, none where the runs have nothing at `size`."""
    groups: dict[tuple, list[Run]] = {}
    for run in runs:
        groups.setdefault((run.benchmark, run.system, run.label), []).append(run)
    found = []
    for (benchmark, system, label), members in groups.items():
        members = _time_order(members)
        chosen = common_metric(members, metric)
        if higher_is_worse(chosen) is None:
            raise UsageError(f"{chosen} has no known better direction: history cannot tell a regression")
        names = varying_axes(members)
        values_of = {run.id: series(run, chosen, names) for run in members}
        aspects_of = {run.id: aspects(run) for run in members}  # once, for every series of the group
        keys = {key for values in values_of.values() for key in values}
        newest = {key.size for key in values_of[members[-1].id]}
        for axes in combinations(sorted(keys, key=lambda key: (key.size is not None, key.size or 0))):
            sizes = {key.size for key in keys if key.axes == axes}
            if size is not None:
                wheres = [Where.at(size)] if size in sizes else []
            elif all_sizes:
                wheres = [Where.at(each) for each in sorted(sizes, key=lambda each: (each is not None, each or 0))]
            else:
                wheres = [headline(benchmark, chosen, sizes, newest)]
            for where in wheres:
                samples, lacking = _samples(members, values_of, chosen, axes, names, where)
                one = Series(benchmark, chosen, system, label, axes, where, samples, lacking=lacking)
                one.changes = change_points(samples, chosen, policy, aspects_of)
                found.append(one)
    return found


def no_such_size(size: int | None, runs: Sequence[Run]) -> UsageError:
    return _no_such_size(size, {key.size for run in runs for key in points_by_key(run)})


def _no_such_size(size: int | None, held: set[int | None]) -> UsageError:
    known = sorted(each for each in held if each is not None)
    return UsageError(f"no selected run has size {size} B; they have {', '.join(map(str, known)) or 'no sizes'}")


def sizes_to_load(sizes_by_run: dict[int, set[int | None]], size: int | None, all_sizes: bool) -> set | None:
    """The message sizes history() needs of runs holding `sizes_by_run` (None: all of
    them): `size`; or every headline candidate, so that headline() decides as it would with
    every point: the small sizes, a collective's key size, each run's smallest and largest.
    Raises UsageError for a size no run has."""
    held = set().union(*sizes_by_run.values())
    if size is not None:
        if size not in held:
            raise _no_such_size(size, held)
        return {size}
    if all_sizes:
        return None
    wanted = {each for each in held if each is None or each <= SMALL_MESSAGE_LIMIT} | {COLLECTIVE_KEY_SIZE}
    for sizes in sizes_by_run.values():
        known = [each for each in sizes if each is not None]
        wanted |= {min(known), max(known)} if known else set()
    return wanted
