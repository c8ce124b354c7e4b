"""Run kinds: the registry of what a run is (a curve over message sizes, a link sweep, a locate
sweep, HPL/hpcc, fio, congestion) and the commands' dispatch by kind.

Each kind is one module beside this one saying how its runs are recognised, grouped as
repeats, shown, compared, checked, plotted and reported (kinds.base names the
operations; a curve's behaviour is the default). Commands ask `kind_of(run)` or
split a selection with `by_kind(runs)` and never test a benchmark's name themselves. A
new kind is one module and one line in KINDS.
"""

from __future__ import annotations

from collections.abc import Sequence

from commscope.errors import UsageError
from commscope.kinds.base import COMPARE_OPTIONS, Compared, CompareRequest, PlotRequest, RunKind
from commscope.kinds.congestion import CONGESTION
from commscope.kinds.curve import CURVE
from commscope.kinds.fio import FIO
from commscope.kinds.hpl import HPL_KIND
from commscope.kinds.link_sweep import LINK_SWEEP
from commscope.kinds.locate import LOCATE_SWEEP
from commscope.records.run import Run

#: Asked in this order: a locate sweep before the link sweeps it is a pairs run of; the
#: curve, which takes every run, last.
KINDS: tuple[RunKind, ...] = (LOCATE_SWEEP, LINK_SWEEP, HPL_KIND, FIO, CONGESTION, CURVE)


def kind_of(run: Run) -> RunKind:
    return next(kind for kind in KINDS if kind.recognises(run))


def by_kind(runs: Sequence[Run]) -> dict[RunKind, list[Run]]:
    """The runs split by kind, kinds and runs in order of first appearance."""
    found: dict[RunKind, list[Run]] = {}
    for run in runs:
        found.setdefault(kind_of(run), []).append(run)
    return found


def one_kind(runs: Sequence[Run], command: str) -> RunKind:
    """The kind of all `runs`, which `command` handles one kind at a time."""
    kinds = by_kind(runs)
    if len(kinds) > 1:
        names = "; ".join(f"{kind.plural} ({', '.join(str(run.id) for run in found)})" for kind, found in kinds.items())
        raise UsageError(f"{command} handles one kind of run at a time; these are {names}: select one kind")
    return next(iter(kinds), CURVE)


def compare(runs: Sequence[Run], request: CompareRequest) -> Compared:
    if request.reference == "list":
        from commscope.kinds.base import against_reference

        return against_reference([], "list")
    kind = one_kind(runs, "compare")
    stray = [name for name in request.given() if name not in kind.compare_options]
    if stray:
        raise UsageError(f"{COMPARE_OPTIONS[stray[0]]} does not apply to {kind.plural}")
    return kind.compare(runs, request)


def check(baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy, metric: str | None = None):
    """Every new run judged by its kind against the baseline's runs; one CheckResult."""
    from commscope.analysis.check import CheckResult

    overlap = {run.id for run in base_runs} & {run.id for run in new_runs}
    if overlap:
        raise UsageError(f"run {', '.join(map(str, sorted(overlap)))} is part of baseline {baseline!r} itself")
    result = CheckResult(baseline, [], [])
    for kind, runs in by_kind(new_runs).items():
        part = kind.check(baseline, [run for run in base_runs if kind.recognises(run)], runs, policy, metric)
        result.curves += part.curves
        result.sweeps += part.sweeps
        result.unmatched += part.unmatched
    if not result.curves and not result.sweeps:
        have = ", ".join(sorted({run.benchmark for run in base_runs})) or "no runs"
        raise UsageError(
            f"baseline {baseline!r} has none of the benchmarks checked "
            f"({', '.join(sorted({run.benchmark for run in new_runs}))}); it has: {have}"
        )
    return result


def plot(runs: Sequence[Run], request: PlotRequest, retest_of):
    reference = [request.reference] if request.reference else []
    return one_kind([*runs, *reference], "plot").plot(runs, request, retest_of)


def monitoring(runs: Sequence[Run], retest_for) -> list:
    """What monitoring keeps of `runs` (analysis.monitoring Samples), each run by its kind;
    `retest_for(run)` gives a sweep's serial retest run, or None."""
    return [sample for run in runs for sample in kind_of(run).monitoring(run, retest_for(run))]


__all__ = [
    "KINDS",
    "CompareRequest",
    "PlotRequest",
    "by_kind",
    "check",
    "compare",
    "kind_of",
    "monitoring",
    "one_kind",
    "plot",
]
