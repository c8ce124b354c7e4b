"""What a command loads: the help of every command loads none of the libraries that take
most of a second to import (scipy, ruptures, matplotlib, pydantic), and a report of curves
no sweep rules (pydantic). Each case runs in a fresh interpreter and lists the modules it ended with."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from commscope.records.invocation import invocation
from commscope.store.db import Store
from fixtures.analysis.handmade import SIZES, run_of

HEAVY = ("scipy", "ruptures", "matplotlib", "pydantic")

# runs the command group in this interpreter, then prints the heavy modules it loaded
_PROBE = """
import json, sys
from commscope.cli.main import main
try:
    main(sys.argv[1:], prog_name="commscope")
except SystemExit:
    pass
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules} & set(HEAVY))))
"""


def loaded(*argv: str) -> tuple[list[str], str]:
    """The heavy libraries `commscope ARGV...` loaded, and what it printed before the list."""
    done = subprocess.run(
        [sys.executable, "-c", f"HEAVY = {HEAVY!r}\n{_PROBE}", *argv],
        capture_output=True,
        text=True,
        check=True,
    )
    *output, last = done.stdout.splitlines()
    return json.loads(last), "\n".join(output)


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["--help"], ["history", "--help"], ["report", "--help"], ["import", "--help"]])
def test_help_loads_no_heavy_library(argv):
    heavy, output = loaded(*argv)
    assert "Usage: commscope" in output
    assert heavy == []


@pytest.mark.slow
def test_a_report_of_curves_loads_no_sweep_rules(db, clean_env, tmp_path):
    # asking every run for its sweep retest loaded the sweep rules' pydantic models: a
    # report without a sweep needs none of them
    with Store(db) as store:
        for night in range(3):
            run = run_of({size: 1.0 + size / 5000 for size in SIZES[:10]}, label="nightly", system="vm")
            run.started_at = f"2026-03-{night + 1:02d}T02:00:00Z"
            store.add_runs([run], store.add_invocation(invocation("run", ["commscope", "run"])))
    heavy, output = loaded("report", "--all", "-o", str(tmp_path / "report.html"), "--db", str(db))
    assert (tmp_path / "report.html").exists()
    assert "pydantic" not in heavy and "matplotlib" in heavy


@pytest.mark.slow
def test_a_report_of_curves_loads_no_statistics(db, clean_env, tmp_path):
    """scipy.stats (and ruptures, which imports it) take most of a second: a report whose
    timelines find no change to test needs neither."""
    with Store(db) as store:
        for night in range(6):
            run = run_of({size: 1.0 + size / 5000 for size in SIZES[:10]}, label="nightly", system="vm")
            run.started_at = f"2026-03-{night + 1:02d}T02:00:00Z"
            store.add_runs([run], store.add_invocation(invocation("run", ["commscope", "run"])))
    done = subprocess.run(
        [sys.executable, "-c", _STATISTICS_PROBE, "report", "--all", "-o", str(tmp_path / "r.html"), "--db", str(db)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "timeline" in (tmp_path / "r.html").read_text()
    assert json.loads(done.stdout.splitlines()[-1]) == []


_STATISTICS_PROBE = """
import json, sys
from commscope.cli.main import main
try:
    main(sys.argv[1:], prog_name="commscope")
except SystemExit:
    pass
print(json.dumps(sorted(name for name in sys.modules if name in ("scipy.stats", "ruptures"))))
"""
