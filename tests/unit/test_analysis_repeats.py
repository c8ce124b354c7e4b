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


# -- what is a repeat: one invocation, one benchmark, flags, label and system ------------------

PARSE = FIXTURES / "parse"


def test_two_imported_files_with_one_label_are_two_columns(cli, db, clean_env):
    for table in ("omb7_latency.txt", "omb5_latency.txt"):
        assert cli("import", PARSE / table, "--label", "clusterA", "--db", db).exit_code == 0
    result = cli("compare", "--db", db, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "size,clusterA (run 1),clusterA (run 2)"
    assert "median" not in cli("compare", "--db", db, "--format", "markdown").stdout


def test_imported_runs_picked_by_id_are_not_repeats_either(cli, db, clean_env):
    assert cli("import", PARSE / "omb7_bw.txt", "--db", db).exit_code == 0
    for table in ("omb7_latency.txt", "omb5_latency.txt"):
        assert cli("import", PARSE / table, "--label", "clusterA", "--db", db).exit_code == 0
    document = json.loads(cli("compare", "2", "3", "--db", db, "--format", "json").stdout)
    assert [(run["id"], run["name"]) for run in document["runs"]] == [(2, "clusterA (run 2)"), (3, "clusterA (run 3)")]
    assert all("intervals" not in row for row in document["rows"])


def test_launches_of_separate_invocations_are_not_repeats(cli, db, clean_env):
    store_runs(db, [run_of({1: 1.0}, label="vm")])
    store_runs(db, [run_of({1: 1.2}, label="vm")])
    assert cli("compare", "--db", db, "--format", "csv").stdout.splitlines()[0] == "size,vm (run 1),vm (run 2)"


def test_the_caption_states_the_coverage_of_two_launches(cli, db, clean_env):
    """Two launches: [min, max] holds the true median with probability 1 - 2 / 2**2 = 50 %."""
    runs = [run_of({1: 1.0}, label="vm"), run_of({1: 1.2}, label="vm")]
    for index, run in enumerate(runs):
        run.repeat_index = index
    store_runs(db, runs)
    caption = cli("compare", "--db", db, "--format", "markdown").stdout.splitlines()[0]
    assert "50.0% from 2 launches" in caption and "95%" not in caption
