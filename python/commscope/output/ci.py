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

import json
import xml.etree.ElementTree as ET
from typing import Any

from commscope.analysis.check import FAILING, CheckResult, CurveVerdict, SizeVerdict
from commscope.analysis.sweep_check import SweepCheck
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
    root = ET.Element("testsuites", name=f"commscope check against baseline {result.baseline}")
    total = failed = 0
    for curve in result.curves:
        suite = ET.SubElement(root, "testsuite", name=_suite_name(curve))
        suite_failed = 0
        for size in curve.sizes:
            case = ET.SubElement(
                suite, "testcase", name=_case_name(curve, size), classname=f"commscope.{curve.benchmark}"
            )
            text = evidence_text(curve, size)
            if size.status in FAILING:
                suite_failed += 1
                failure = ET.SubElement(
                    case, "failure", type="regression" if size.status == "FAIL" else "missing", message=text
                )
                failure.text = text
            else:
                ET.SubElement(case, "system-out").text = text
        suite.set("tests", str(len(curve.sizes)))
        suite.set("failures", str(suite_failed))
        suite.set("errors", "0")
        suite.set("skipped", "0")
        # --allow-failing may let a curve pass with failing sizes: say so where CI shows suites.
        ET.SubElement(suite, "system-out").text = curve.summary()
        total += len(curve.sizes)
        failed += suite_failed
    for sweep in result.sweeps:
        tests, suite_failed = _sweep_suite(root, sweep)
        total += tests
        failed += suite_failed
    for run in result.unmatched:
        suite = ET.SubElement(root, "testsuite", name=run.benchmark, tests="1", failures="0", errors="0", skipped="1")
        case = ET.SubElement(
            suite, "testcase", name=f"{run.benchmark} run {run.id}", classname=f"commscope.{run.benchmark}"
        )
        ET.SubElement(case, "skipped", message=f"baseline {result.baseline!r} has no {run.benchmark} runs")
        total += 1
    root.set("tests", str(total))
    root.set("failures", str(failed))
    root.set("errors", "0")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _sweep_suite(root: ET.Element, sweep: SweepCheck) -> tuple[int, int]:
    """A sweep's suite: a case per metric (failing with the pairs that got worse) and one
    for the hosts; returns (tests, failures)."""
    suite = ET.SubElement(root, "testsuite", name=f"pairs sweep run {sweep.run.id}")
    cases = [
        (f"pairs {metric}", [sweep.change_text(change) for change in sweep.changes if change.metric == metric])
        for metric in sweep.metrics
    ]
    missing = [f"hosts of the baseline missing: {', '.join(sweep.missing_hosts)}"] if sweep.missing_hosts else []
    cases.append(("pairs hosts", missing))
    if sweep.bad_nodes:
        cases.append(("pairs bad nodes", [f"bad nodes named: {', '.join(sweep.bad_nodes)}"]))
    failed = 0
    for name, problems in cases:
        case = ET.SubElement(suite, "testcase", name=name, classname="commscope.pairs")
        if problems:
            failed += 1
            failure = ET.SubElement(case, "failure", type="regression", message=problems[0])
            failure.text = "\n".join(problems)
    for key, value in (("tests", len(cases)), ("failures", failed), ("errors", 0), ("skipped", 0)):
        suite.set(key, str(value))
    ET.SubElement(suite, "system-out").text = sweep.summary()
    return len(cases), failed


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
        "summary": sweep.summary(),
        "worse": [
            {
                "pair": [labels[i] for i in change.pair],
                "metric": change.metric,
                "baseline": change.base,
                "new": change.new,
                "ratio": change.ratio,
                "margin": sweep.margin(change.metric),
                "evidence": sweep.change_text(change),
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
                "summary": curve.summary(),
                "sizes": [_size_dict(curve, size) for size in curve.sizes],
            }
            for curve in result.curves
        ],
        "sweeps": [_sweep_dict(sweep) for sweep in result.sweeps],
        "unmatched_runs": [{"id": run.id, "benchmark": run.benchmark} for run in result.unmatched],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
