"""Test suites as JUnit XML, the common layout GitLab, Jenkins and GitHub all read
(testsuites > testsuite > testcase > failure | skipped, system-out): a table per
<testsuite>, titled with its name, its caption the suite's <system-out>, a row per
<testcase> in the columns of CASE_COLUMNS; the counts are the rows'."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from commscope.output.export.table import Cell, Column, Table

#: outcome is "failure" (of `type`, with `message` and `text`), "skipped" (with `message`)
#: or "passed" (with `text` as the case's <system-out>, where there is one).
CASE_COLUMNS = tuple(Column(name) for name in ("name", "classname", "outcome", "type", "message", "text"))
FAILURE, SKIPPED, PASSED = "failure", "skipped", "passed"


def case(
    name: str,
    classname: str,
    outcome: str,
    *,
    kind: str | None = None,
    message: str | None = None,
    text: str | None = None,
) -> list[Cell]:
    """A row of a suite's table."""
    return [Cell(value) for value in (name, classname, outcome, kind, message, text)]


def junit_text(name: str, suites: Sequence[Table]) -> str:
    root = ET.Element("testsuites", name=name)
    total = failed = 0
    for table in suites:
        suite = ET.SubElement(root, "testsuite", name=table.title)
        cases = table.records()
        for row in cases:
            element = ET.SubElement(suite, "testcase", name=row["name"], classname=row["classname"])
            if row["outcome"] == FAILURE:
                ET.SubElement(element, "failure", type=row["type"], message=row["message"]).text = row["text"]
            elif row["outcome"] == SKIPPED:
                ET.SubElement(element, "skipped", message=row["message"])
            elif row["text"]:
                ET.SubElement(element, "system-out").text = row["text"]
        failures = sum(row["outcome"] == FAILURE for row in cases)
        skipped = sum(row["outcome"] == SKIPPED for row in cases)
        for key, value in (("tests", len(cases)), ("failures", failures), ("errors", 0), ("skipped", skipped)):
            suite.set(key, str(value))
        if table.caption:
            ET.SubElement(suite, "system-out").text = table.caption
        total += len(cases)
        failed += failures
    for key, value in (("tests", total), ("failures", failed), ("errors", 0)):
        root.set(key, str(value))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
