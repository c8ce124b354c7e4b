"""`commscope sweep all-pairs` with the fabric's topology: a bad uplink is named as its
switch (its hosts fine with each other, slow across it) and no host under it is a bad node;
a slow node under a topology is still a node; the topology goes into the run's provenance,
so report, show and plot judge the stored sweep the same way; the heatmap is ordered by
switch. The pairs' values come from the simulator (sweep/simulate.Network), measured by
the real sweep code with its retest (sweep/run.py: run_sweep), without MPI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commscope.analysis.sweep import Policy
from commscope.analysis.sweep_verdicts import judge_stored
from commscope.records.run_kinds import SWEEP_KEY
from commscope.records.topology import read_topology
from commscope.store.db import Store
from commscope.sweep.simulate import Network
from fixtures.analysis.sweep_runs import PlantedNetwork

#: Four leaf switches of six hosts under one spine.
LEAVES = {f"leaf{k + 1}": [f"cn{6 * k + h + 1:02d}" for h in range(6)] for k in range(4)}
HOSTS = [host for hosts in LEAVES.values() for host in hosts]


def topology_conf(leaves: dict[str, list[str]]) -> str:
    """Slurm's topology.conf of `leaves` under one spine."""
    lines = [f"SwitchName={leaf} Nodes=cn[{hosts[0][2:]}-{hosts[-1][2:]}]\n" for leaf, hosts in leaves.items()]
    return f"SwitchName=spine Switches={','.join(leaves)}\n" + "".join(lines)


def simulated(hosts: list[str], leaves=LEAVES, **faults) -> PlantedNetwork:
    """The planted network of the report tests with the simulator's values: each pair its
    own noise, the same in the sweep and alone (a fault, not contention)."""
    network = PlantedNetwork(hosts)
    sim = Network.of({"seed": 7, "noise": 0.03, "contention": 0.0, "leaves": leaves, **faults})
    n = len(hosts)

    def value(metric: str, i: int, j: int, alone: bool) -> float:
        a, b = min(i, j), max(i, j)
        return float(sim.measure(1 + a * n + b, metric, [(hosts[a], hosts[b])])[0])

    network.value = value
    return network


def swept(monkeypatch, folder: Path, network: PlantedNetwork, topology: bool = True, metrics=("bw",), leaves=LEAVES):
    """Run `commscope sweep all-pairs` (run_sweep) over `network`; the --json document and
    the exit status."""
    import commscope.sweep.run as sweep_run

    monkeypatch.setattr(sweep_run, "find_core", lambda: Path("commscope-bench"))
    monkeypatch.setattr(sweep_run, "core_mpi_flavour", lambda core: "openmpi")
    monkeypatch.setattr(sweep_run, "resolve_launcher", lambda choice, flavour, environ=None: None)
    monkeypatch.setattr(sweep_run.Sweeper, "launch", lambda self, flags, signals: network.run(flags))
    monkeypatch.setenv("COMMSCOPE_SWEEP_TMP", str(folder))
    conf = folder / "topology.conf"
    conf.write_text(topology_conf(leaves))
    from commscope.sweep.modes.all_pairs import ALL_PAIRS

    request = sweep_run.SweepRequest(
        mode=ALL_PAIRS,
        hosts=tuple(network.hosts),
        metrics=metrics,
        policy=Policy(),
        json_out=folder / "sweep.json",
        argv=["commscope", "sweep", "all-pairs"],
        topology=read_topology(conf) if topology else None,
    )
    code = sweep_run.run_sweep(request, folder / "sweep.db").finish()
    return json.loads((folder / "sweep.json").read_text()), code


def stored(folder: Path, document: dict):
    with Store(folder / "sweep.db") as store:
        run = store.run(document["run_id"])
        retest = store.run(document["retest_run_id"]) if document["retest_run_id"] else None
    return run, judge_stored(run, retest)


def bad_nodes(document: dict) -> set[str]:
    return {flag["where"][0] for flag in document["flags"] if flag["kind"] == "node"}


def test_a_slow_uplink_names_its_switch_and_no_host_under_it(monkeypatch, clean_env, tmp_path, capsys):
    document, code = swept(monkeypatch, tmp_path, simulated(HOSTS, bad_uplinks={"leaf3": 0.5}))
    assert code == 1
    (switch,) = document["bad_switches"]
    assert switch["switch"] == "leaf3" and switch["hosts"] == LEAVES["leaf3"] and switch["metric"] == "bw"
    assert document["flags"] == []  # no bad node, no bad link: the uplink explains every slow pair
    assert switch["across_pairs"] == 6 * 18 and switch["inside_pairs"] == 15
    assert switch["across"] < 0.6 * switch["inside"] and switch["retest"] is not None
    printed = capsys.readouterr()
    assert "warning: bad switch leaf3 uplink: bandwidth across its uplink" in printed.err
    rows = {tuple(cell.strip() for cell in line.split("|")[:2]): line for line in printed.out.splitlines()}
    assert rows[("cn01", "cn13")].endswith("| bad switch leaf3 uplink (bw)")  # a pair across it
    assert rows[("cn13", "cn14")].endswith("| ") and rows[("cn01", "cn02")].endswith("| ")  # inside a leaf


def test_plot_draws_the_stored_sweep_by_switch(cli, monkeypatch, clean_env, tmp_path):
    swept(monkeypatch, tmp_path, simulated(HOSTS[::-1], bad_uplinks={"leaf3": 0.5}))
    result = cli("plot", "1", "-o", tmp_path / "map.svg", "--db", tmp_path / "sweep.db")
    assert result.exit_code == 0, result.output
    svg = (tmp_path / "map-bw.svg").read_text()
    assert 'id="heatmap-leaves"' in svg and "by leaf switch" in svg


def test_without_the_topology_the_hosts_under_the_slow_uplink_are_named(monkeypatch, clean_env, tmp_path):
    document, _ = swept(monkeypatch, tmp_path, simulated(HOSTS, bad_uplinks={"leaf3": 0.5}), topology=False)
    assert bad_nodes(document) == set(LEAVES["leaf3"])  # what the topology spares an operator
    assert document["bad_switches"] == []


@pytest.mark.parametrize("topology", [True, False])
def test_a_slow_node_under_a_topology_is_a_node_and_no_switch(monkeypatch, clean_env, tmp_path, topology):
    document, code = swept(monkeypatch, tmp_path, simulated(HOSTS, slow_nodes={"cn14": 0.5}), topology=topology)
    assert code == 1
    assert bad_nodes(document) == {"cn14"} and document["bad_switches"] == []


def test_a_bad_node_under_a_bad_uplink_is_named_with_its_switch(monkeypatch, clean_env, tmp_path):
    faults = {"bad_uplinks": {"leaf2": 0.5}, "slow_nodes": {"cn08": 0.3}}
    document, _ = swept(monkeypatch, tmp_path, simulated(HOSTS, **faults))
    assert [switch["switch"] for switch in document["bad_switches"]] == ["leaf2"]
    assert bad_nodes(document) == {"cn08"}  # slow with its leaf-mates too


def test_two_leaves_cannot_be_told_apart_and_are_named_together(monkeypatch, clean_env, tmp_path):
    two = {"leaf1": LEAVES["leaf1"], "leaf2": LEAVES["leaf2"]}
    network = simulated(HOSTS[:12], leaves=two, bad_uplinks={"leaf2": 0.5})
    document, _ = swept(monkeypatch, tmp_path, network, leaves=two)
    (switch,) = document["bad_switches"]
    assert {switch["switch"], *switch["alike"]} == {"leaf1", "leaf2"} and document["flags"] == []


def test_the_stored_sweep_records_its_topology_and_is_judged_again_the_same(monkeypatch, clean_env, tmp_path):
    faults = {"bad_uplinks": {"leaf3": 0.5}, "slow_nodes": {"cn02": 0.4}}
    document, _ = swept(monkeypatch, tmp_path, simulated(HOSTS, **faults), metrics=("bw", "latency"))
    run, judgement = stored(tmp_path, document)
    recorded = run.provenance[SWEEP_KEY]["topology"]
    assert recorded["parents"] == {"spine": None, **dict.fromkeys(LEAVES, "spine")}
    assert recorded["leaves"] == LEAVES
    from commscope.output.sweep_view import flag_record, switch_record

    labels = judgement.matrix.labels
    assert [flag_record(flag, labels) for flag in judgement.flags()] == document["flags"]
    assert [switch_record(flag, labels) for flag in judgement.switches] == document["bad_switches"]
    assert {switch["switch"] for switch in document["bad_switches"]} == {"leaf3"}
    assert bad_nodes(document) == {"cn02"}


def test_report_and_show_name_the_switch(cli, monkeypatch, clean_env, tmp_path):
    document, _ = swept(monkeypatch, tmp_path, simulated(HOSTS, bad_uplinks={"leaf3": 0.5}))
    html, md = tmp_path / "report.html", tmp_path / "report.md"
    result = cli("report", "--all", "-o", html, "--markdown", md, "--db", tmp_path / "sweep.db")
    assert result.exit_code == 0, result.output
    text = md.read_text()
    assert "1 flag (bad switch leaf3 uplink)" in text  # the summary's headline
    assert "Bad switches: hosts fine with each other" in text and "bad node cn" not in text
    (row,) = [line for line in text.splitlines() if line.startswith("| leaf3 ")]
    assert ", ".join(LEAVES["leaf3"]) in row and "across its uplink" in row
    assert "bad switch leaf3 uplink" in html.read_text()


def test_show_repeats_the_verdict_judged_again(cli, monkeypatch, clean_env, tmp_path):
    document, _ = swept(monkeypatch, tmp_path, simulated(HOSTS, bad_uplinks={"leaf3": 0.5}))
    result = cli("show", "1", "--db", tmp_path / "sweep.db")
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.output.splitlines() if line.startswith("warning: ")]
    assert line == f"warning: bad switch leaf3 uplink: {document['bad_switches'][0]['evidence']}"
    shown = cli("show", "2", "--db", tmp_path / "sweep.db").output  # the retest: its sweep speaks for it
    assert "judged again from the store" not in shown and "warning: " not in shown


def test_the_heatmap_is_ordered_by_switch(monkeypatch, clean_env, tmp_path):
    """Hosts given out of leaf order are drawn leaf by leaf, in the topology's order of
    switches (within a leaf in rank order), a line between two leaves."""
    shuffled = [
        HOSTS[k] for k in (20, 3, 9, 0, 15, 21, 4, 10, 1, 16, 22, 5, 11, 2, 17, 23, 6, 12, 18, 7, 13, 19, 8, 14)
    ]
    document, _ = swept(monkeypatch, tmp_path, simulated(shuffled, bad_uplinks={"leaf3": 0.5}))
    from commscope.output.sweep_view import LEAVES_GID, heatmap

    _, judgement = stored(tmp_path, document)
    figure = heatmap(judgement.matrix, "bw", judgement.flags(), groups=judgement.fabric.leaf_groups())
    (axis, _colorbar) = figure.axes
    by_leaf = [host for hosts in LEAVES.values() for host in shuffled if host in hosts]
    assert [label.get_text() for label in axis.get_yticklabels()] == by_leaf
    assert [label.get_text() for label in axis.get_xticklabels()] == by_leaf
    (lines,) = [child for child in axis.get_children() if child.get_gid() == LEAVES_GID]
    assert sorted({segment[0][1] for segment in lines.get_segments() if segment[0][0] == 0}) == [6, 12, 18]
    plain = heatmap(judgement.matrix, "bw", judgement.flags())
    assert [label.get_text() for label in plain.axes[0].get_yticklabels()] == shuffled


def test_hosts_the_topology_does_not_name_are_stated_and_judged_as_hosts(monkeypatch, clean_env, tmp_path, capsys):
    three = {leaf: LEAVES[leaf] for leaf in ("leaf1", "leaf2", "leaf3")}  # leaf4's hosts swept, not named
    faults = {"bad_uplinks": {"leaf2": 0.5}, "slow_nodes": {"cn20": 0.4}}
    document, _ = swept(monkeypatch, tmp_path, simulated(HOSTS, **faults), leaves=three)
    assert [switch["switch"] for switch in document["bad_switches"]] == ["leaf2"]
    assert bad_nodes(document) == {"cn20"}
    err = capsys.readouterr().err
    assert "sweep: 6 host(s) the topology" in err and "cn19, cn20, cn21, cn22, cn23 and 1 more" in err
    _, judgement = stored(tmp_path, document)
    assert judgement.notes == [
        "6 host(s) under no switch of the sweep's topology (cn19, cn20, cn21, cn22, cn23 and 1 more): "
        "their slow pairs are blamed on hosts alone"
    ]


def test_a_fabric_slow_across_only_under_the_sweep_s_load_names_no_switch(monkeypatch, clean_env, tmp_path):
    """Every uplink oversubscribed: pairs across leaves at half speed while the whole round
    runs, at full speed alone. The retest clears the switches as contention."""
    network = simulated(HOSTS)
    measured = network.value
    leaf = {host: name for name, hosts in LEAVES.items() for host in hosts}

    def loaded(metric: str, i: int, j: int, alone: bool) -> float:
        across = leaf[HOSTS[i]] != leaf[HOSTS[j]] and not alone
        return measured(metric, i, j, alone) * (0.5 if across else 1.0)

    network.value = loaded
    document, code = swept(monkeypatch, tmp_path, network)
    assert document["bad_switches"] == [] and document["flags"] == [] and code == 0
    assert document["cleared"]  # the switches' pairs measured alone


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_healthy_fabric_under_noise_and_contention_accuses_no_switch(seed):
    """400 hosts under 10 leaves, 8 % noise and 5 % of the pairs slowed by contention; the
    judgement without a retest (every suspect stands as found)."""
    import numpy as np

    from commscope.analysis.fabric import Fabric
    from commscope.analysis.sweep import SweepMatrix
    from commscope.analysis.sweep_verdicts import judgement, plan_retest

    hosts = [f"cn{k:03d}" for k in range(400)]
    leaves = {f"leaf{k}": hosts[40 * k : 40 * (k + 1)] for k in range(10)}
    network = Network.of({"seed": seed, "noise": 0.08, "contention": 0.05, "leaves": leaves})
    upper = np.triu_indices(400, 1)
    values = network.measure(1, "bw", [(hosts[a], hosts[b]) for a, b in zip(*upper)])
    matrix = np.full((400, 400), np.nan, dtype=np.float32)
    matrix[upper] = matrix[upper[::-1]] = values
    sweep = SweepMatrix(hosts, hosts, {"bw": matrix})
    fabric = Fabric.of(
        hosts, {h: name for name, hs in leaves.items() for h in hs}, {"spine": None, **dict.fromkeys(leaves, "spine")}
    )
    judged = judgement(sweep, Policy(), plan_retest(sweep, Policy(), fabric), {}, fabric=fabric)
    assert judged.switches == [] and not any(flag.kind == "node" for flag in judged.flags())
