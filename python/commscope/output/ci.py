"""`commscope check` for CI systems: JUnit XML (GitLab, Jenkins and GitHub show each
benchmark x size as a test case) and JSON (for scripts).

A sweep (pairs run) is a <testsuite> of its own: a <testcase> per metric, failing with
the pairs that got worse, and one for the baseline's hosts it lacks.

JUnit: one <testsuite> per checked curve (benchmark, and the label or system of the new
runs when several are checked), one <testcase> per size, named like the verdict table's
rows. A size that fails the rule (or that the new runs lack) is a <failure> whose text is
the table row's evidence; a size that is worse but not significantly, or that only the
new runs have, passes and says so in <system-out>. The layout is the common JUnit one
(testsuites > testsuite > testcase > failure | skipped, system-out) that all three read.
"""

from __future__ import annotations

from typing import Any

from commscope.analysis.check import FAILING, CheckResult, CurveVerdict, SizeVerdict
from commscope.analysis.sweep_check import SweepCheck
from commscope.output.export.json import json_text
from commscope.output.export.junit import CASE_COLUMNS, FAILURE, PASSED, SKIPPED, case, junit_text
from commscope.output.export.table import Table
from commscope.output.verdicts import change_text, curve_summary, sweep_summary
from commscope.records.metrics import unit_of
from commscope.records.text import format_key, format_value


def _suite_name(curve: CurveVerdict) -> str:
    return f"{curve.benchmark}" + (f" ({curve.name})" if curve.name else "")


def _case_name(curve: CurveVerdict, size: SizeVerdict) -> str:
    return f"{curve.benchmark} {format_key(size.key)} B {curve.metric}"


def evidence_text(curve: CurveVerdict, size: SizeVerdict) -> str:
    """One line of evidence for a size, as a person reads it in a CI log."""
    unit = unit_of(curve.metric) or ""
    parts = [
        f"{curve.benchmark} at {format_key(size.key)} B: {size.status}",
        f"baseline {format_value(size.base)} {unit}".rstrip(),
        f"new {format_value(size.new)} {unit}".rstrip(),
    ]
    if size.change is not None:
        parts.append(f"change {100 * size.change:+.1f}%")
    if size.allowed is not None:
        parts.append(f"allowed {format_value(size.allowed)} {unit}".rstrip())
    if size.evidence is not None:
        parts.append(f"test {size.evidence.method}" + (f" {size.evidence.detail}" if size.evidence.detail else ""))
    if size.status == "missing":
        parts.append("the new runs have no value at this size (did the sweep stop early?)")
    return "; ".join(parts)


def junit_xml(result: CheckResult) -> str:
    suites = [_curve_suite(curve) for curve in result.curves] + [_sweep_suite(sweep) for sweep in result.sweeps]
    suites += [
        Table(
            CASE_COLUMNS,
            [
                case(
                    f"{run.benchmark} run {run.id}",
                    f"commscope.{run.benchmark}",
                    SKIPPED,
                    message=f"baseline {result.baseline!r} has no {run.benchmark} runs",
                )
            ],
            title=run.benchmark,
        )
        for run in result.unmatched
    ]
    return junit_text(f"commscope check against baseline {result.baseline}", suites)


def _curve_suite(curve: CurveVerdict) -> Table:
    """A curve's suite: a case per size, failing with its evidence where the size fails."""
    rows = []
    for size in curve.sizes:
        text = evidence_text(curve, size)
        name, classname = _case_name(curve, size), f"commscope.{curve.benchmark}"
        if size.status in FAILING:
            kind = "regression" if size.status == "FAIL" else "missing"
            rows.append(case(name, classname, FAILURE, kind=kind, message=text, text=text))
        else:
            rows.append(case(name, classname, PASSED, text=text))
    # --allow-failing may let a curve pass with failing sizes: say so where CI shows suites.
    return Table(CASE_COLUMNS, rows, title=_suite_name(curve), caption=curve_summary(curve))


def _sweep_suite(sweep: SweepCheck) -> Table:
    """A sweep's suite: a case per metric (failing with the pairs that got worse) and one
    for the hosts."""
    cases = [
        (f"pairs {metric}", [change_text(sweep, change) for change in sweep.changes if change.metric == metric])
        for metric in sweep.metrics
    ]
    missing = [f"hosts of the baseline missing: {', '.join(sweep.missing_hosts)}"] if sweep.missing_hosts else []
    cases.append(("pairs hosts", missing))
    if sweep.bad_nodes:
        cases.append(("pairs bad nodes", [f"bad nodes named: {', '.join(sweep.bad_nodes)}"]))
    rows = [
        case(name, "commscope.pairs", FAILURE, kind="regression", message=problems[0], text="\n".join(problems))
        if problems
        else case(name, "commscope.pairs", PASSED)
        for name, problems in cases
    ]
    return Table(CASE_COLUMNS, rows, title=f"pairs sweep run {sweep.run.id}", caption=sweep_summary(sweep))


def _sweep_dict(sweep: SweepCheck) -> dict[str, Any]:
    labels = sweep.matrix.labels
    return {
        "run": sweep.run.id,
        "baseline_run": sweep.base_run.id,
        "passed": sweep.passed,
        "hosts": labels,
        "metrics": sweep.metrics,
        "missing_hosts": sweep.missing_hosts,
        "bad_nodes": sweep.bad_nodes,
        "summary": sweep_summary(sweep),
        "worse": [
            {
                "pair": [labels[i] for i in change.pair],
                "metric": change.metric,
                "baseline": change.base,
                "new": change.new,
                "ratio": change.ratio,
                "margin": sweep.margin(change.metric),
                "evidence": change_text(sweep, change),
            }
            for change in sweep.changes
        ],
    }


def _size_dict(curve: CurveVerdict, size: SizeVerdict) -> dict[str, Any]:
    evidence = size.evidence
    return {
        "size": size.key[0],
        "window": size.key[1],
        "status": size.status,
        "failing": size.status in FAILING,
        "baseline": size.base,
        "new": size.new,
        "change": size.change,
        "allowed": size.allowed,
        "test": None
        if evidence is None
        else {"method": evidence.method, "significant": evidence.significant, "detail": evidence.detail},
        "evidence": evidence_text(curve, size),
    }


def check_json(result: CheckResult) -> str:
    """The verdict as JSON ("commscope-check", version 1)."""
    document = {
        "format": "commscope-check",
        "version": 1,
        "baseline": result.baseline,
        "passed": result.passed,
        "curves": [
            {
                "benchmark": curve.benchmark,
                "name": curve.name,
                "metric": curve.metric,
                "unit": unit_of(curve.metric),
                "passed": curve.passed,
                "failing": len(curve.failing),
                "allow_failing": curve.policy.allow_failing,
                "tolerance": curve.policy.tolerance,
                "geomean_ratio": curve.geomean_ratio,
                "baseline_runs": [run.id for run in curve.base_runs],
                "new_runs": [run.id for run in curve.new_runs],
                "summary": curve_summary(curve),
                "sizes": [_size_dict(curve, size) for size in curve.sizes],
            }
            for curve in result.curves
        ],
        "sweeps": [_sweep_dict(sweep) for sweep in result.sweeps],
        "unmatched_runs": [{"id": run.id, "benchmark": run.benchmark} for run in result.unmatched],
    }
    return json_text(document)
