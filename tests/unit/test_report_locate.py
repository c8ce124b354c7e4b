"""The report of a locate sweep too large for a heatmap (kinds.locate.SUMMARY_HOSTS, made
small here): the hosts by verdict, the flagged hosts and the pairs they were measured in,
without a heatmap and without building the matrix of every pair; below the limit the
pair table and heatmap as before. The sweeps are measured by the real locate code against
the simulator."""

from __future__ import annotations

import json
import shlex
import sys

import pytest

import commscope.analysis.sweep
from commscope.kinds import locate

HOSTS = [f"cn{index:03d}" for index in range(40)]


@pytest.fixture
def located(cli, clean_env, db, tmp_path) -> int:
    network = tmp_path / "network.json"
    network.write_text(json.dumps({"seed": 5, "slow_nodes": {"cn007": 0.5}}))
    oracle = f"{shlex.quote(sys.executable)} -m commscope.sweep.simulate {shlex.quote(str(network))}"
    out = tmp_path / "verdict.json"
    result = cli(
        "sweep", "locate", "--hosts", ",".join(HOSTS), "--oracle", oracle, "--seed", "2", "--db", db, "--json", out
    )
    assert result.exit_code == 1, result.output  # cn007 named
    return json.loads(out.read_text())["run_id"]


def _report(cli, db, tmp_path, run_id: int) -> tuple[str, str]:
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    result = cli("report", run_id, "--db", db, "-o", html, "--markdown", md)
    assert result.exit_code == 0, result.output
    return html.read_text(), md.read_text()


@pytest.mark.slow
def test_beyond_the_limit_the_flagged_hosts_and_counts_without_a_matrix(cli, db, tmp_path, located, monkeypatch):
    monkeypatch.setattr(locate, "SUMMARY_HOSTS", 20)

    def no_matrix(run):
        raise AssertionError("the matrix of every pair was built")

    monkeypatch.setattr(commscope.analysis.sweep, "matrix_from_run", no_matrix)
    html, md = _report(cli, db, tmp_path, located)
    assert "40 hosts, more than 20: no heatmap and no table of every pair measured" in md
    assert "### Hosts by verdict" in md and "| 40 | 39 | 1 | 0 |" in md
    assert "| cn007 |" in md  # the bad node's row, with its evidence
    pairs = md[md.index("The pairs each bad node was measured in") :]
    rounds = json.loads((tmp_path / "verdict.json").read_text())["rounds"]
    assert pairs.count("bad node cn007") == rounds  # its pair of every round: one each
    assert "data:image/svg+xml" not in html and "-figures/" not in md
    assert "locate of 40 hosts" in html and "1 bad node(s) (cn007)" in html  # the summary's headline


@pytest.mark.slow
def test_within_the_limit_the_pairs_and_a_heatmap(cli, db, tmp_path, located):
    html, md = _report(cli, db, tmp_path, located)
    assert "Hosts by verdict" not in md and "no heatmap" not in md
    assert html.count("data:image/svg+xml") == 1  # the heatmap of the pairs measured
    assert "| cn007 |" in md
