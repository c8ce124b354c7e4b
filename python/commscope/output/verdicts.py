"""What `check` decided, in words and tables: a line per curve and per sweep, the verdict of
every size, the pairs a sweep found worse; for the terminal, the report and the CI formats."""

from __future__ import annotations

from commscope import ui
from commscope.analysis.check import CheckResult, CurveVerdict
from commscope.analysis.sweep import HIGHER_IS_WORSE, UNIT, number
from commscope.analysis.sweep_check import PairChange, SweepCheck
from commscope.output.views import rich_table
from commscope.records.text import format_key, format_value

VERDICT_HEADER = ("size (B)", "baseline", "new", "change", "allowed", "test", "status")


def curve_summary(curve: CurveVerdict) -> str:
    verdict = "PASS" if curve.passed else "FAIL"
    who = (f" {curve.name}" if curve.name else "") + curve.axes.suffix()
    text = (
        f"{curve.benchmark}{who} ({curve.metric}): {verdict}, {len(curve.failing)} of {len(curve.sizes)} sizes "
        f"fail (allowed {curve.policy.allow_failing})"
    )
    if curve.geomean_ratio is not None:
        text += f"; geometric mean of new/baseline {curve.geomean_ratio:.3f}"
    worst = curve.worst
    if worst is not None and worst.change is not None:
        text += f"; worst {format_key(worst.key)} B ({100 * worst.change:+.1f}%)"
    return text


def change_text(sweep: SweepCheck, change: PairChange) -> str:
    labels = sweep.matrix.labels
    a, b = change.pair
    unit = UNIT[change.metric]
    side = "above" if HIGHER_IS_WORSE[change.metric] else "below"
    rule = f"fails {side} x{sweep.margin(change.metric):.2f}"
    return (
        f"{labels[a]} <-> {labels[b]} {change.metric} {number(change.new)} {unit} "
        f"(baseline {number(change.base)} {unit}, x{change.ratio:.2f}; {rule})"
    )


def sweep_summary(sweep: SweepCheck) -> str:
    worse = len(sweep.changes)
    parts = [
        f"sweep run {sweep.run.id} ({sweep.matrix.n} hosts) against sweep run {sweep.base_run.id}: "
        f"{'PASS' if sweep.passed else 'FAIL'}",
        f"{worse} pair value{'s' if worse != 1 else ''} worse by the margin ({', '.join(sweep.metrics)})",
    ]
    if sweep.missing_hosts:
        parts.append(f"hosts missing: {', '.join(sweep.missing_hosts)}")
    if sweep.bad_nodes:
        parts.append(f"bad nodes named: {', '.join(sweep.bad_nodes)}")
    return ", ".join(parts)


def verdict_cells(curve: CurveVerdict) -> list[list[str]]:
    rows = []
    for size in curve.sizes:
        evidence = size.evidence
        test = "-" if evidence is None else (evidence.method if evidence.method != "none" else "none")
        if evidence is not None and evidence.method != "none":
            test += f" {evidence.detail}"
        rows.append(
            [
                format_key(size.key),
                format_value(size.base),
                format_value(size.new),
                "-" if size.change is None else f"{100 * size.change:+.1f}%",
                "-" if size.allowed is None else format_value(size.allowed),
                test,
                size.status,
            ]
        )
    return rows


def show_check(result: CheckResult) -> None:
    """The whole verdict on the terminal: each curve's table, each sweep's worse pairs, the
    runs the baseline cannot judge, and the one-line verdict last."""
    console = ui.table_console()
    for curve in result.curves:
        console.print(curve_summary(curve), markup=False, highlight=False)
        console.print(rich_table(VERDICT_HEADER, verdict_cells(curve)))
        console.print()
    for sweep in result.sweeps:
        console.print(sweep_summary(sweep), markup=False, highlight=False)
        for change in sweep.changes:
            console.print(f"  worse: {change_text(sweep, change)}", markup=False, highlight=False)
        console.print()
    for run in result.unmatched:
        ui.warn(f"run {run.id} ({run.benchmark}) not checked: baseline {result.baseline!r} has no {run.benchmark} runs")
    summaries = [*map(curve_summary, result.curves), *map(sweep_summary, result.sweeps)]
    console.print(
        f"{'PASS' if result.passed else 'FAIL'} against baseline {result.baseline!r}: " + "; ".join(summaries),
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
