"""Run kinds: the registry of what a run is (a curve over message sizes, a link sweep, a locate
sweep, HPL/hpcc, fio, congestion) and the commands' dispatch by kind.

Each kind is one module beside this one, a kinds.base.RunKind saying how its runs are
grouped as repeats, shown, compared, checked, plotted, reported and published, and, where
they have it, followed over time (`Followed`) and modelled (`Modelled`). Which kind a run
is, the run says (records.run_kinds: worked out once, stored as a column); `kind_of` finds
the kind of that name, and refuses by name a run of no known kind. Commands ask
`kind_of(run)` or split a selection with `by_kind(runs)` and never test a benchmark's name
themselves. A new kind is one module, one line in KINDS and its name in records.run_kinds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from commscope.analysis.check import CheckResult
from commscope.errors import UsageError
from commscope.kinds.base import (
    COMPARE_OPTIONS,
    Compared,
    CompareRequest,
    Followed,
    HistoryRequest,
    Modelled,
    PlotRequest,
    RetestLoader,
    RunKind,
    against_reference,
)
from commscope.kinds.congestion import CONGESTION
from commscope.kinds.curve import CURVE
from commscope.kinds.fio import FIO
from commscope.kinds.hpl import HPL_KIND
from commscope.kinds.link_sweep import LINK_SWEEP
from commscope.kinds.locate import LOCATE_SWEEP
from commscope.records.run import Run
from commscope.records.run_kinds import kind_of_run

if TYPE_CHECKING:
    from commscope.analysis.check import CheckResult, Policy
    from commscope.analysis.history import History
    from commscope.analysis.model import Fit
    from commscope.analysis.monitoring import Sample

#: Every kind, in the order their sections come in a report.
KINDS: tuple[RunKind, ...] = (LOCATE_SWEEP, LINK_SWEEP, HPL_KIND, FIO, CONGESTION, CURVE)


def kind_of(run: Run, kinds: Sequence[RunKind] = KINDS) -> RunKind:
    """The kind `run` is: the one its stored kind names (a run not stored yet: the kind its
    benchmark and sweep mode make it, records.run_kinds). A run of no known kind, or one
    two kinds of the same name would claim, is refused by name."""
    name = kind_of_run(run)
    found = [kind for kind in kinds if kind.name == name]
    if len(found) == 1:
        return found[0]
    what = f"run {run.id} ({run.benchmark or 'no benchmark named'})"
    if not found:
        raise UsageError(f"{what} is of no known kind: its record names no benchmark commscope knows how to read")
    raise UsageError(f"{what} is claimed by several kinds ({', '.join(kind.name for kind in found)})")


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
        return against_reference([], "list")
    kind = one_kind(runs, "compare")
    stray = [name for name in request.given() if name not in kind.compare_options]
    if stray:
        raise UsageError(f"{COMPARE_OPTIONS[stray[0]]} does not apply to {kind.plural}")
    return kind.compare(runs, request)


def check(
    baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy: Policy, metric: str | None = None
) -> CheckResult:
    """Every new run judged by its kind against the baseline's runs; one CheckResult."""

    overlap = {run.id for run in base_runs} & {run.id for run in new_runs}
    if overlap:
        raise UsageError(f"run {', '.join(map(str, sorted(overlap)))} is part of baseline {baseline!r} itself")
    result = CheckResult(baseline, [], [])
    for kind, runs in by_kind(new_runs).items():
        part = kind.check(baseline, [run for run in base_runs if kind_of(run) is kind], runs, policy, metric)
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


def plot(runs: Sequence[Run], request: PlotRequest, retest_of: RetestLoader) -> dict:
    reference = [request.reference] if request.reference else []
    return one_kind([*runs, *reference], "plot").plot(runs, request, retest_of)


def history(runs: Sequence[Run], request: HistoryRequest) -> History:
    """The series of every kind that is followed over time; refused when the runs are too
    few or of kinds that are not (sweeps: `check` compares those pair by pair)."""
    from commscope.analysis.history import History, no_such_size, too_few

    too_few(runs)
    kinds = by_kind(runs)
    followed = {kind: found for kind, found in kinds.items() if isinstance(kind, Followed)}
    series = [found for kind, runs_of in followed.items() for found in kind.history(runs_of, request)]
    if not series and request.size is not None:
        raise no_such_size(request.size, runs)
    if not series:
        from commscope.analysis.host_history import is_sweep

        names = "; ".join(f"{kind.plural} ({', '.join(str(run.id) for run in found)})" for kind, found in kinds.items())
        hint = (
            "; a sweep's hosts are followed with --hosts, --host HOST or --link A,B" if any(map(is_sweep, runs)) else ""
        )
        raise UsageError(f"history follows a value over time, and these runs have none to follow: {names}{hint}")
    return History(series, request.policy)


def model(runs: Sequence[Run], each: bool) -> list[tuple[list[Run], Fit]]:
    """The Hockney fits of `runs`, each kind's runs by their kind; runs of a kind that is
    not modelled are refused by name."""
    kinds = by_kind(runs)
    for kind, found in kinds.items():
        if not isinstance(kind, Modelled):
            raise UsageError(
                f"model fits time over message size, which {kind.plural} do not measure "
                f"(run {', '.join(str(run.id) for run in found)}): select latency or bandwidth runs"
            )
    return [fitted for kind, found in kinds.items() for fitted in kind.model(found, each)]


def monitoring(runs: Sequence[Run], retest_of: RetestLoader) -> list[Sample]:
    """What monitoring keeps of `runs` (analysis.monitoring Samples), each run by its kind,
    one sample per series (the newest run's); `retest_of(run)` gives a sweep's serial
    retest run, or None."""
    from commscope.analysis.monitoring import newest

    return newest([sample for run in runs for sample in kind_of(run).monitoring(run, retest_of(run))])


__all__ = [
    "KINDS",
    "CompareRequest",
    "HistoryRequest",
    "PlotRequest",
    "by_kind",
    "monitoring",
    "check",
    "compare",
    "history",
    "kind_of",
    "model",
    "one_kind",
    "plot",
]
