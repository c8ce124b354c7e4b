"""The report of a locate sweep too large for a heatmap (kinds.locate.SUMMARY_HOSTS, made
small here): the hosts by verdict, the flagged hosts and the pairs they were measured in,
the fabric map, without a heatmap of pairs and without building the matrix of every pair;
below the limit the pair table and heatmap as before, beside the fabric map. The fabric map
itself at 10,000 hosts under 250 leaves. The sweeps are measured by the real locate code
against the simulator."""

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
    assert "40 hosts, more than 20: the fabric map, no heatmap of pairs and no table of every pair measured" in md
    assert "### Hosts by verdict" in md and "| 40 | 39 | 1 | 0 |" in md
    assert "| cn007 |" in md  # the bad node's row, with its evidence
    pairs = md[md.index("The pairs each bad node was measured in") :]
    (node,) = json.loads((tmp_path / "verdict.json").read_text())["bad_nodes"]
    assert pairs.count("bad node cn007") == len(node["partners"])  # every pair it was measured in
    # one figure: the fabric map, every host, cn007 outlined; no heatmap of pairs
    assert html.count("data:image/svg+xml") == 1 and md.count("-figures/") == 1
    figure = (tmp_path / "r-figures" / f"sweep-{located}-fabric.svg").read_text()
    assert 'id="fabric-hosts"' in figure and 'id="named-hosts"' in figure
    assert "locate of 40 hosts" in html and "1 bad node(s) (cn007)" in html  # the summary's headline


@pytest.mark.slow
def test_within_the_limit_the_pairs_and_a_heatmap(cli, db, tmp_path, located):
    html, md = _report(cli, db, tmp_path, located)
    assert "Hosts by verdict" not in md and "no heatmap" not in md
    assert html.count("data:image/svg+xml") == 2  # the fabric map and the heatmap of the pairs measured
    assert "| cn007 |" in md


def test_the_fabric_map_of_ten_thousand_hosts_outlines_what_was_named_and_marks_what_was_not():
    """250 leaves of 40 hosts, a bad uplink and a bad node, 8 % noise and 5 % contention: the
    map is one raster of every host and a few outlines (not an element per host), the named
    node outlined, the named switch's hosts framed; a sweep stopped early marks its
    undecided hosts."""
    from commscope.analysis.fabric import Fabric
    from commscope.analysis.locate import Locator
    from commscope.analysis.sweep import LocateRules
    from commscope.output.fabric_map import fabric_map_svg, layout
    from commscope.sweep.simulate import Network

    hosts = [f"cn{i:05d}" for i in range(10000)]
    leaves = {f"leaf{k:03d}": hosts[start : start + 40] for k, start in enumerate(range(0, 10000, 40))}
    leaf_of = {host: leaf for leaf, members in leaves.items() for host in members}
    fabric = Fabric.of(hosts, leaf_of, {**dict.fromkeys(leaves, "spine"), "spine": None})
    faults = {"slow_nodes": {"cn05017": 0.5}, "bad_uplinks": {"leaf003": 0.5}}
    network = Network.of({"seed": 3, "noise": 0.08, "contention": 0.05, "leaves": leaves, **faults})
    for max_rounds, named in ((10, True), (1, False)):
        locator = Locator(10000, "bw", LocateRules(max_rounds=max_rounds), seed=3, fabric=fabric)
        while not locator.stop:
            pairs = locator.plan()
            if locator.stop:
                break
            measured = network.measure(len(locator.rounds) + 1, "bw", [(hosts[a], hosts[b]) for a, b in pairs])
            locator.record(pairs, measured)
        verdict = locator.verdict()
        where, spans = layout(verdict)
        assert len(spans) == 250 and where[5017].tolist() == [125, 17]
        svg = fabric_map_svg(verdict, hosts).decode()
        assert len(svg) < 400_000 and svg.count("<image") <= 3  # rasters: the map, its colour bar, the undecided
        if named:
            assert [hosts[node.host] for node in verdict.bad_nodes] == ["cn05017"]
            assert [switch.switch for switch in verdict.bad_switches] == ["leaf003"]
            assert 'id="named-hosts"' in svg and 'id="named-switches"' in svg
        else:
            assert verdict.undecided and 'id="undecided"' in svg
