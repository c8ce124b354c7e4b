"""Repeated launches (`commscope run --repeat K`): show, compare and report give the
per-size median across launches with its order-statistic interval (golden, hand-made runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commscope.analysis.repeats import median_interval, order_statistic_ranks
from fixtures.analysis.handmade import run_of, store_runs
from paths import FIXTURES

GOLDEN = FIXTURES / "analysis"


def test_order_statistic_ranks_are_exact():
    # n = 10: P(X(2) <= m <= X(9)) = 1 - 2 * 11/1024; X(3)..X(8) would cover only 89 %
    assert order_statistic_ranks(10) == (2, 9, pytest.approx(1 - 22 / 1024))
    # n = 5: no pair reaches 95 %; the range covers 1 - 2/32
    assert order_statistic_ranks(5) == (1, 5, pytest.approx(0.9375))
    cell = median_interval([3.0, 1.0, 2.0, 10.0, 2.5])
    assert (cell.median, cell.low, cell.high, cell.n) == (2.5, 1.0, 10.0, 5)


@pytest.fixture
def repeats(db, clean_env) -> Path:
    """Five launches of one latency run (one odd launch at 4 B) and one single run to compare with."""
    launches = [{1: 1.00, 4: 1.20}, {1: 1.02, 4: 1.22}, {1: 0.98, 4: 5.00}, {1: 1.01, 4: 1.19}, {1: 1.03, 4: 1.21}]
    runs = [run_of(values, label="vm") for values in launches]
    for index, run in enumerate(runs):
        run.repeat_index = index
    store_runs(db, runs)
    store_runs(db, [run_of({1: 2.0, 4: 2.4}, label="other")])
    return db


def test_compare_shows_the_median_of_repeats_with_its_interval(cli, repeats):
    result = cli("compare", "--db", repeats, "--format", "markdown", "--ratio")
    assert result.exit_code == 0, result.output
    assert result.stdout == (GOLDEN / "compare_repeats.md").read_text()
    document = json.loads(cli("compare", "--db", repeats, "--format", "json").stdout)
    assert document["runs"][0]["repeats"] == [1, 2, 3, 4, 5] and "repeats" not in document["runs"][1]
    # the odd launch (5.00) moves the median of 4 B not at all, only the interval's top
    assert document["rows"][1] == {
        "size": 4,
        "window": None,
        "values": [1.21, 2.4],
        "intervals": [[1.19, 5.0, 5], None],
    }
    csv = cli("compare", "--db", repeats, "--format", "csv").stdout
    assert csv.splitlines()[0] == "size,vm (median of 5),other,vm (median of 5) low,vm (median of 5) high"


def test_show_adds_the_median_across_repeats(cli, repeats):
    result = cli("show", "3", "--db", repeats)
    assert result.exit_code == 0, result.output
    tail = result.stdout[result.stdout.index("# median of") :]
    assert tail == (GOLDEN / "show_repeats.txt").read_text()
    assert "# median of" not in cli("show", "6", "--db", repeats).stdout  # a single launch


def test_report_table_uses_the_median(cli, repeats, tmp_path):
    out = tmp_path / "r.html"
    result = cli("report", "--all", "--db", repeats, "-o", out, "--markdown", tmp_path / "r.md")
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "r.md").read_text()
    assert "vm (median of 5)" in markdown and "1.21 [1.19, 5.00]" in markdown
