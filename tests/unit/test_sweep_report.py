"""A stored sweep in `commscope report` and `commscope plot`: shown as a sweep (flags first,
with their evidence, then the cleared pairs, the pair table and a heatmap per metric),
judged again from the store exactly as `commscope sweep` judged it. The sweeps are made
by the real sweep code over a planted network (fixtures/analysis/sweep_runs.py)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from commscope.analysis.sweep import DEFAULT_RULES, MetricRule, Policy
from commscope.analysis.sweep_verdicts import judge_stored
from commscope.output.sweep_view import CELLS_GID, FLAGGED_GID, flag_record
from commscope.records.run_kinds import SWEEP_KEY
from commscope.store.db import Store
from fixtures.analysis.sweep_runs import planted_sweep

SVG = "{http://www.w3.org/2000/svg}"


def stored_judgement(outcome):
    with Store(outcome.db) as store:
        run = store.run(outcome.run_id)
        retest = store.run(outcome.retest_run_id) if outcome.retest_run_id else None
    return judge_stored(run, retest)


def as_printed(judgement) -> list[dict]:
    """The judgement in the shape of the flags `commscope sweep --json` wrote."""
    return [flag_record(flag, judgement.matrix.labels) for flag in judgement.flags()]


def svg_counts(svg: bytes) -> tuple[int, int]:
    """(cells, outlined cells) of a heatmap SVG."""
    root = ET.fromstring(svg)
    groups = {element.get("id"): element for element in root.iter(f"{SVG}g")}
    cells = len(list(groups[CELLS_GID].iter(f"{SVG}path")))
    outlines = len(list(groups[FLAGGED_GID].iter(f"{SVG}path"))) if FLAGGED_GID in groups else 0
    return cells, outlines


def report(cli, outcome, tmp_path, *runs):
    html, md = tmp_path / "report.html", tmp_path / "report.md"
    selection = [str(run) for run in runs] or ["--all"]
    result = cli("report", *selection, "-o", html, "--markdown", md, "--db", outcome.db)
    assert result.exit_code == 0, result.output
    return html.read_text(), md.read_text()


# -- judged again from the store ---------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "hosts, scenario, options",
    [
        (4, "node", {}),
        (4, "link", {}),
        (80, "all", {}),
        (4, "node", {"retest": False}),
        (4, "link", {"mode": "intra"}),
        # bw's margin so low that the node's bandwidth passes: only the stored rules say so
        (4, "node", {"policy": Policy(rules={**DEFAULT_RULES, "bw": MetricRule(3.0, 0.04)}, max_retests=5)}),
    ],
)
def test_judged_from_the_store_as_the_sweep_printed(monkeypatch, clean_env, tmp_path, hosts, scenario, options):
    outcome = planted_sweep(monkeypatch, tmp_path, hosts, scenario, **options)
    assert outcome.exit_code == 1 and outcome.document["flags"]
    judgement = stored_judgement(outcome)
    assert as_printed(judgement) == outcome.document["flags"]
    assert judgement.retest_run_id == outcome.retest_run_id
    unretested = ["sweep run 1 was measured with --no-retest: suspects stand as found"]
    assert judgement.notes == (unretested if options.get("retest") is False else [])
    if "policy" in options:
        assert judgement.policy == options["policy"]
        assert not any(flag["metric"] == "bw" for flag in outcome.document["flags"])


def test_the_sweep_run_records_its_rules_and_retest(monkeypatch, clean_env, tmp_path):
    outcome = planted_sweep(monkeypatch, tmp_path, 4, "node")
    with Store(outcome.db) as store:
        sweep, retest = store.run(outcome.run_id), store.run(outcome.retest_run_id)
    record = sweep.provenance[SWEEP_KEY]
    assert record["mode"] == "all-pairs" and record["retest"] is True and record["retest_run"] == retest.id
    assert record["rules"]["bw"] == {"mad_k": 3.0, "margin": 0.9} and record["rules"]["max_retests"] == 64
    assert retest.provenance[SWEEP_KEY] == {"retest_of": sweep.id}


def test_a_bad_stored_rule_is_said_and_the_run_judged_with_the_default_rules(monkeypatch, clean_env, cli, tmp_path):
    outcome = planted_sweep(monkeypatch, tmp_path, 4, "node")
    with Store(outcome.db) as store:
        record = store.run(outcome.run_id).provenance[SWEEP_KEY]
        store.add_provenance(outcome.run_id, {SWEEP_KEY: {**record, "rules": {"bw": {"margn": 1}}}})
    result = cli("report", "1", "-o", tmp_path / "r.html", "--db", outcome.db)
    assert result.exit_code == 0, result.output
    html = (tmp_path / "r.html").read_text()
    said = "run 1: provenance sweep.rules: bw.margn: unknown key; allowed keys: mad_k, margin: judged here with the"
    assert said in html and "node03" in html


# -- the report ------------------------------------------------------------------


def test_report_shows_the_flags_first_with_their_evidence(monkeypatch, clean_env, cli, tmp_path):
    outcome = planted_sweep(monkeypatch, tmp_path, 4, "node")
    html, md = report(cli, outcome, tmp_path)
    section = html[html.index('id="sweep-1"') :]
    flagged, cleared, pairs = (
        section.index(mark) for mark in ('id="flagged-1"', "Cleared as contention", 'id="pairs-1"')
    )
    heatmap = section.index('<figure class="heatmap">')
    assert flagged < cleared < pairs < heatmap
    table = section[flagged:cleared]
    assert "<td>bad node</td><td>bw</td><td>node03</td><td>545.4 MB/s</td><td>4454 MB/s</td>" in table
    assert "bad with 3 of 3 partners; alone 545.4 MB/s" in table
    assert "<td>node01 &lt;-&gt; node04</td><td>bw</td><td>4454 MB/s</td><td>11136 MB/s</td>" in section
    assert section.count('<figure class="heatmap">') == 3  # latency, bw, bibw
    # the retest run belongs to the sweep: no section of its own, a line in the summary
    assert 'id="sweep-2"' not in html and "retest of sweep run 1" in html
    assert "sweep of 4 hosts: 3 flags (bad node node03)" in html
    assert md.index("### Flagged") < md.index("### Cleared as contention") < md.index("### Pairs")
    assert md.index("### Pairs") < md.index("![bw](report-figures/sweep-1-bw.svg)")
    assert svg_counts((tmp_path / "report-figures" / "sweep-1-bw.svg").read_bytes()) == (16, 3)


def test_report_names_the_bad_link(monkeypatch, clean_env, cli, tmp_path):
    outcome = planted_sweep(monkeypatch, tmp_path, 4, "link")
    html, _ = report(cli, outcome, tmp_path)
    table = html[html.index('id="flagged-1"') : html.index('id="pairs-1"')]
    assert "<td>bad link</td><td>bw</td><td>node01 &lt;-&gt; node02</td><td>1105 MB/s</td>" in table
    assert "bandwidth 1105 MB/s (pairs&#39; median 10906 MB/s); alone 1105 MB/s" in table
    assert "bad node" not in table


@pytest.mark.slow
def test_heatmaps_have_a_cell_per_pair_and_the_flags_outlined():
    from commscope.analysis.sweep import Flag, matrix_from_run
    from commscope.output.sweep_view import heatmap_svgs
    from fixtures.analysis.sweep_runs import PlantedNetwork

    network = PlantedNetwork([f"h{i}" for i in range(64)])
    matrix = matrix_from_run(network.run(["--schedule", "all-pairs", "--metric", "bw"]))
    flags = [Flag("node", "bw", (5,), 1.0, 2.0, None), Flag("link", "bw", (1, 2), 1.0, 2.0, None)]
    assert svg_counts(heatmap_svgs(matrix, flags)["bw"]) == (64 * 64, 63 + 2)


@pytest.mark.slow
def test_beyond_64_hosts_blocks_and_only_flagged_pairs(monkeypatch, clean_env, cli, tmp_path):
    outcome = planted_sweep(monkeypatch, tmp_path, 80, "all")
    html, md = report(cli, outcome, tmp_path, outcome.run_id)
    pairs = html[html.index('id="pairs-1"') : html.index('<figure class="heatmap">')]
    # the bad node's 79 pairs and the bad link, of 80 x 79 / 2
    assert "Flagged pairs only: 80 of the 3160 pairs measured (80 hosts, more than 64)" in pairs
    assert pairs.count("<tr>") == 1 + 80
    assert "<td>node02</td><td>node04</td>" not in pairs  # cleared as contention: not flagged
    # 80 hosts in blocks of 2: 40 x 40 cells; the node's block row (40) and the link's block (1)
    bw = (tmp_path / "report-figures" / "sweep-1-bw.svg").read_bytes()
    assert svg_counts(bw) == (40 * 40, 40 + 1)
    assert b"means of blocks of 2 hosts, 80 hosts" in bw
    assert "| bad node | bw | node51 |" in md and "| bad link | bw | node01 &lt;-&gt; node02 |" in md


def test_intra_sweep_groups_core_pairs_by_the_recorded_topology(monkeypatch, clean_env, cli, tmp_path):
    """The topology is the measured host's (two sockets here), not the reporting machine's."""
    outcome = planted_sweep(monkeypatch, tmp_path, 4, "link", mode="intra")
    html, _ = report(cli, outcome, tmp_path)
    assert "Run 1: intra sweep of 4 cores of node1" in html
    groups = html[html.index("Core pairs by relation") : html.index('<figure class="heatmap">')]
    assert "<td>across sockets</td><td>bw</td><td>4</td>" in groups
    assert "<td>same L3 (core complex)</td><td>bw</td><td>2</td><td>0 - 1</td><td>1126.75 MB/s</td>" in groups


@pytest.mark.slow
def test_a_missing_retest_run_or_record_is_said(monkeypatch, clean_env, cli, tmp_path):
    outcome = planted_sweep(monkeypatch, tmp_path, 4, "node")
    assert cli("delete", "2", "--db", outcome.db).exit_code == 0
    html, _ = report(cli, outcome, tmp_path)
    assert "retest run 2 of sweep run 1 is not in the store: suspects judged as found" in html
    with Store(outcome.db) as store:
        store.add_provenance(outcome.run_id, {SWEEP_KEY: None})
    html, _ = report(cli, outcome, tmp_path)
    assert "run 1 does not record the rules it was judged with" in html


def test_a_retest_run_alone_points_at_its_sweep(monkeypatch, clean_env, cli, tmp_path):
    outcome = planted_sweep(monkeypatch, tmp_path, 4, "node")
    html, _ = report(cli, outcome, tmp_path, 2)
    assert "Run 2 is the serial retest of sweep run 1: report on that run for the verdicts." in html
    assert 'id="flagged-2"' not in html


# -- plot ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("suffix", ["svg", "png"])
def test_plot_of_a_sweep_writes_a_heatmap_per_metric(monkeypatch, clean_env, cli, tmp_path, suffix):
    outcome = planted_sweep(monkeypatch, tmp_path, 4, "node")
    out = tmp_path / f"sweep.{suffix}"
    result = cli("plot", "1", "2", "-o", out, "--db", outcome.db)  # the sweep and its retest
    assert result.exit_code == 0, result.output
    written = sorted(path.name for path in tmp_path.glob(f"sweep-*.{suffix}"))
    assert written == [f"sweep-{metric}.{suffix}" for metric in ("bibw", "bw", "latency")]
    assert not out.exists()
    if suffix == "svg":
        assert svg_counts((tmp_path / "sweep-bw.svg").read_bytes()) == (16, 3)
    assert cli("plot", "1", "--metric", "bw", "-o", tmp_path / "one.svg", "--db", outcome.db).exit_code == 0
    assert [path.name for path in tmp_path.glob("one*")] == ["one-bw.svg"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["2", "-o", "x.svg"], "run 2 is the serial retest of sweep run 1: name run 1"),
        (["1", "--ratio-to", "1", "-o", "x.svg"], "a sweep is plotted alone, as heatmaps"),
        (["1", "--metric", "rate", "-o", "x.svg"], "--metric rate: the sweep measured latency, bw, bibw"),
    ],
)
def test_plot_of_a_sweep_usage_errors(monkeypatch, clean_env, cli, tmp_path, args, message):
    outcome = planted_sweep(monkeypatch, tmp_path, 4, "node")
    monkeypatch.chdir(tmp_path)
    result = cli("plot", *args, "--db", outcome.db)
    assert result.exit_code == 2 and message in result.output


def test_the_json_document_and_the_store_agree_on_the_retest(monkeypatch, clean_env, tmp_path):
    planted_sweep(monkeypatch, tmp_path, 4, "node")
    document = json.loads((tmp_path / "sweep.json").read_text())
    assert document["retest_run_id"] == 2 and [c["pair"] for c in document["cleared"]] == [["node01", "node04"]] * 2
