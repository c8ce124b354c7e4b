"""`commscope check --junit FILE` and `--format json`: the verdict for CI systems."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
import xmlschema

from fixtures.analysis.handmade import SIZES, run_of, store_runs
from paths import FIXTURES as SUPPORT_FIXTURES

SCHEMA = xmlschema.XMLSchema(SUPPORT_FIXTURES / "ci" / "junit.xsd")
BASE = {size: 1.0 + size / 5000 for size in SIZES}
NOISE = [1.00, 1.02, 0.99, 0.98, 1.01]
SLOW = {64, 4096, 1 << 20}


def repeats(factor, label, noise=NOISE):
    return [
        run_of({size: value * factor(size) * wiggle for size, value in BASE.items()}, label=label) for wiggle in noise
    ]


@pytest.fixture
def stored(db, clean_env, cli):
    """Baseline 'ref' (runs 1-5); 'slow' is 20 % slower at SLOW; 'same' is noise only."""
    store_runs(db, repeats(lambda size: 1.0, "before"))
    store_runs(db, repeats(lambda size: 1.2 if size in SLOW else 1.0, "slow", NOISE[::-1]))
    store_runs(db, repeats(lambda size: 1.05, "same"))
    assert cli("baseline", "set", "ref", "before", "--db", db).exit_code == 0
    return db


def test_junit_has_a_case_per_size_and_the_failures_with_evidence(cli, stored, tmp_path):
    report = tmp_path / "check.xml"
    result = cli("check", "slow", "--baseline", "ref", "--junit", report, "--db", stored)
    assert result.exit_code == 1 and "FAIL against baseline 'ref'" in result.stdout  # the table is still printed
    SCHEMA.validate(str(report))  # raises with the offending element when the shape is wrong
    root = ET.parse(report).getroot()
    [suite] = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == len(SIZES) and suite.get("tests") == str(len(SIZES))
    assert root.get("failures") == suite.get("failures") == "3"
    failed = {case.get("name"): case.find("failure") for case in cases if case.find("failure") is not None}
    assert set(failed) == {f"latency {size} B latency_us" for size in SLOW}
    evidence = failed["latency 4096 B latency_us"].text
    assert "FAIL" in evidence and "change +2" in evidence and "mann-whitney p=" in evidence
    assert all(case.get("classname") == "commscope.latency" for case in cases)


def test_junit_of_a_passing_check_has_no_failures(cli, stored, tmp_path):
    report = tmp_path / "check.xml"
    assert cli("check", "same", "--baseline", "ref", "--junit", report, "--db", stored).exit_code == 0
    SCHEMA.validate(str(report))
    root = ET.parse(report).getroot()
    assert root.get("failures") == "0" and len(root.iter("testcase").__next__().attrib) >= 2
    assert not list(root.iter("failure"))


def test_json_verdict_names_every_size_and_exits_1_on_regression(cli, stored):
    result = cli("check", "slow", "--baseline", "ref", "--format", "json", "--db", stored)
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["format"] == "commscope-check" and document["passed"] is False
    [curve] = document["curves"]
    assert curve["benchmark"] == "latency" and curve["failing"] == 3 and curve["new_runs"] == [6, 7, 8, 9, 10]
    failing = {size["size"] for size in curve["sizes"] if size["failing"]}
    assert failing == SLOW and len(curve["sizes"]) == len(SIZES)
    assert all(
        size["status"] == "FAIL" and size["test"]["method"] == "mann-whitney"
        for size in curve["sizes"]
        if size["failing"]
    )
    passing = cli("check", "same", "--baseline", "ref", "--format", "json", "--db", stored)
    assert passing.exit_code == 0 and json.loads(passing.stdout)["passed"] is True


def test_a_junit_file_that_cannot_be_written_is_a_usage_error(cli, stored, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = cli("check", "slow", "--baseline", "ref", "--junit", blocker / "check.xml", "--db", stored)
    assert result.exit_code == 2 and "cannot write" in result.stderr
