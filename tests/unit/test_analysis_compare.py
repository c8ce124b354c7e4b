"""`commscope compare`: golden tables from hand-made runs, SJTU's OSU page reproduced, selectors, bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from commscope.records.run import Point
from commscope.records.text import format_size
from commscope.store.db import Store
from commscope.store.selection import Selection, parse_since, select_runs
from fixtures.analysis.handmade import run_of, store_runs
from paths import FIXTURES as SUPPORT_FIXTURES
from paths import REPO

GOLDEN = SUPPORT_FIXTURES / "analysis"
SJTU_FIXTURE = SUPPORT_FIXTURES / "parse" / "sjtu_cluster_comparison.rst"
REAL_SEEDS = REPO.parent / "shared" / "seeds"


@pytest.fixture
def three(db, clean_env) -> Path:
    """Three latency runs: b is twice a; c lacks size 2 and has a label that needs escaping."""
    store_runs(
        db,
        [
            run_of({1: 1.0, 2: 1.1, 4: 1.25, 1024: 3.5}, label="cluster-a"),
            run_of({1: 2.0, 2: 2.2, 4: 2.5, 1024: 7.0}, label="cluster-b"),
            run_of({1: 1.5, 4: 1.25, 1024: 3.15}, label="<c>|d"),
        ],
    )
    return db


def test_markdown_with_ratios_is_golden(cli, three):
    result = cli("compare", "--db", three, "--format", "markdown", "--ratio", "--pdiff")
    assert result.exit_code == 0, result.output
    assert result.stdout == (GOLDEN / "compare_ratio_pdiff.md").read_text()


def test_csv_keeps_stored_numbers_and_leaves_missing_cells_empty(cli, three):
    result = cli("compare", "--db", three, "--format", "csv", "--ratio")
    assert result.stdout == (GOLDEN / "compare_ratio.csv").read_text()
    assert "2,1.1,2.2,,2.0," in result.stdout.splitlines()


def test_json_and_terminal_table(cli, three):
    document = json.loads(cli("compare", "1", "2", "--db", three, "--format", "json", "--ratio").stdout)
    assert (document["metric"], document["unit"], document["better"]) == ("latency_us", "us", "lower")
    assert [run["name"] for run in document["runs"]] == ["cluster-a", "cluster-b"]
    assert document["rows"][0] == {"size": 1, "window": None, "values": [1.0, 2.0], "ratios": [2.0]}
    table = cli("compare", "--db", three).stdout
    assert "Latency (us), lower is better" in table and "<c>|d" in table
    assert re.search(r"1024\s+3\.50\s+7\.00\s+3\.15", table)


def test_output_file(cli, three, tmp_path):
    out = tmp_path / "deep" / "cmp.md"
    result = cli("compare", "--db", three, "--format", "markdown", "-o", out)
    assert result.exit_code == 0 and out.read_text().startswith("Latency (us)")


# -- SJTU's OSU page: the three-cluster latency table people make by hand --------------


def page_latency_rows(text: str) -> list[list[str]]:
    """The rows of the latency block as printed in the seed: size and three values."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("# Size") and "Latency (us)" in line)
    rows = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


def compare_page(cli, db, path: Path) -> str:
    assert cli("import", path, "--db", db).exit_code == 0
    result = cli("compare", "--benchmark", "latency", "--db", db, "--format", "markdown")
    assert result.exit_code == 0, result.output
    return result.stdout


def test_sjtu_latency_comparison_shows_the_pages_numbers(cli, db, clean_env):
    markdown = compare_page(cli, db, SJTU_FIXTURE)
    assert markdown == (GOLDEN / "sjtu_latency.md").read_text()
    assert "| Size (B) | 思源一号 v5.7.1 | π2.0 v5.7.1 | ARM v5.6.3 |" in markdown
    shown = [[cell.strip() for cell in line.strip("|").split("|")] for line in markdown.splitlines()[4:]]
    expected = page_latency_rows(SJTU_FIXTURE.read_text())
    assert len(expected) == 24 and shown == expected


@pytest.mark.skipif(not REAL_SEEDS.is_dir(), reason="the quoted pages (../shared/seeds) are not next to the repository")
def test_the_real_sjtu_page_gives_the_same_table(cli, db, clean_env):
    [seed] = REAL_SEEDS.glob("000_*.txt")
    assert compare_page(cli, db, seed) == (GOLDEN / "sjtu_latency.md").read_text()
    csv = cli("compare", "--benchmark", "latency", "--db", db, "--format", "csv").stdout
    assert csv == (GOLDEN / "sjtu_latency.csv").read_text()


# -- selectors ---------------------------------------------------------------------


def test_selectors_labels_systems_ids_and_time(cli, db, clean_env):
    ids = store_runs(
        db,
        [
            run_of({8: 1.0}, label="old", system="alpha"),
            run_of({8: 2.0}, label="new", system="beta"),
            run_of({8: 4.0}, label="new", system="beta", benchmark="bcast"),
        ],
    )
    with Store(db) as store:

        def pick(*selectors, **filters):
            return [run.id for run in select_runs(store, Selection(selectors=selectors, **filters))]

        assert pick() == ids
        assert pick("new") == ids[1:]  # a label
        assert pick("alpha") == ids[:1]  # else a system
        assert pick("system:beta", benchmark="latency") == [ids[1]]
        assert pick(str(ids[2]), str(ids[0])) == [ids[2], ids[0]]  # in the order given
        assert pick("last") == [ids[2]]
        assert pick(since=parse_since("1h")) == ids
        with pytest.raises(Exception, match="no stored run matches"):
            pick(since=parse_since("2999-01-01"))
    # Runs of different benchmarks compare where the metric matches (both latency_us).
    assert cli("compare", "new", "--db", db).exit_code == 0


def test_parse_since():
    assert parse_since("2026-01-31").isoformat() == "2026-01-31T00:00:00+00:00"
    with pytest.raises(ValueError, match="'yesterday'"):
        parse_since("yesterday")


def test_format_size():
    assert [format_size(s) for s in (0, 1, 1024, 1536, 4 << 20, None)] == [
        "0 B",
        "1 B",
        "1 KiB",
        "1536 B",
        "4 MiB",
        "-",
    ]


# -- bad input: one line naming the value, exit 2, nothing changes -------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["999"], "no run 999 in"),
        (["nobody"], "no run matches 'nobody'"),
        (["--since", "soon"], "'soon' is neither an age"),
        (["--metric", "p99_us"], "run 1 (latency) has no metric 'p99_us'"),
        (["--benchmark", "allreduce"], "no stored run matches --benchmark allreduce"),
    ],
)
def test_bad_selections(cli, three, args, message):
    before = three.read_bytes()
    result = cli("compare", *args, "--db", three)
    assert result.exit_code == 2 and message in result.stderr
    assert "Traceback" not in result.output
    assert len([line for line in result.stderr.splitlines() if line.lower().startswith("error")]) == 1
    assert three.read_bytes() == before


def test_mismatched_metrics_are_refused(cli, db, clean_env):
    store_runs(db, [run_of({8: 1.0}), run_of({8: 100.0}, metric="bandwidth_MBps", benchmark="bw")])
    result = cli("compare", "--db", db)
    assert result.exit_code == 2
    assert "different metrics (latency_us: runs 1; bandwidth_MBps: runs 2)" in result.stderr
    assert cli("compare", "--db", db, "--metric", "bw").exit_code == 2  # run 1 has no bandwidth


def test_missing_database_and_unwritable_output(cli, three, tmp_path):
    result = cli("compare", "--db", tmp_path / "absent.db")
    assert result.exit_code == 4 and "no result database" in result.stderr
    assert not (tmp_path / "absent.db").exists()
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = cli("compare", "--db", three, "--format", "csv", "-o", blocker / "out.csv")
    assert result.exit_code == 2 and f"cannot write {blocker / 'out.csv'}" in result.stderr


def test_a_runs_points_are_keyed_once_while_they_stay_the_same(monkeypatch):
    """Every analysis asks each run for its points by key: they are keyed once per run and
    set of axes; a caller changing its answer changes nobody else's; a run whose points
    grow or are replaced is keyed afresh."""
    from commscope.analysis import compare

    keyed = []
    real = compare._points_by_key
    monkeypatch.setattr(compare, "_points_by_key", lambda run, axes: keyed.append((run.id, axes)) or real(run, axes))
    first, second = run_of({1: 1.0, 2: 1.5}), run_of({1: 2.0, 4: 3.0})
    first.id, second.id = 1, 2
    answer = compare.points_by_key(first)
    answer.clear()
    assert [key.size for key in compare.points_by_key(first)] == [1, 2]
    assert compare.series(first, "latency_us") == compare.series(first, "latency_us", ())
    assert [key.size for key in compare.points_by_key(second)] == [1, 4]
    assert compare.numeric_metrics(first) == ["latency_us", "pingpong_MBps"]
    assert keyed == [(1, ()), (2, ())]
    first.points.append(Point(size=8, metrics={"latency_us": 4.0}))
    assert [key.size for key in compare.points_by_key(first)] == [1, 2, 8]
    assert compare.numeric_metrics(first) == ["latency_us", "pingpong_MBps"]
    assert keyed[-1] == (1, ())
    second.points = second.points[:1]
    assert [key.size for key in compare.points_by_key(second)] == [1] and keyed[-1] == (2, ())


def test_a_report_keys_each_runs_points_once(monkeypatch, tmp_path):
    from commscope.analysis import compare
    from commscope.kinds.report import build

    keyed = []
    real = compare._points_by_key
    monkeypatch.setattr(compare, "_points_by_key", lambda run, axes: keyed.append((run.id, axes)) or real(run, axes))
    runs = [run_of({1: 1.0 + index, 2: 1.5 + index, 4: 2.0 + index, 8: 2.5 + index}) for index in range(3)]
    for index, run in enumerate(runs, start=1):
        run.id = index
    report = build(runs, str(tmp_path / "runs.db"))
    assert report.sections and report.sections[0].fits
    assert sorted(keyed) == sorted(set(keyed))
    assert {run_id for run_id, _ in keyed} == {1, 2, 3}
