"""`commscope check` on sweeps: a stored sweep against the baseline's sweep pair by pair,
pairs matched by host names, with the margins of the sweep's stored rules; in the table,
JSON and JUnit outputs. The sweeps are the planted ones of the report tests (the real
`commscope sweep` code over a simulated network)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from fixtures.analysis.sweep_runs import planted_sweep


def _baseline(cli, db, run_id):
    result = cli("baseline", "set", "healthy", str(run_id), "--db", str(db))
    assert result.exit_code == 0, result.output


def test_a_node_gone_bad_fails_with_its_pairs_named_by_host(cli, monkeypatch, tmp_path, clean_env):
    before = planted_sweep(monkeypatch, tmp_path, scenario="link")  # node01-node02 slow
    after = planted_sweep(monkeypatch, tmp_path, scenario="node")  # node03 slow, node01-node02 fine
    _baseline(cli, before.db, before.run_id)
    result = cli("check", str(after.run_id), "--baseline", "healthy", "--db", str(after.db))
    assert result.exit_code == 1, result.output
    worse = [line for line in result.output.splitlines() if line.startswith("  worse: ")]
    node03 = [line for line in worse if "node03" in line]
    assert len(node03) == 9  # its three pairs in latency, bw and bibw
    assert any(
        "node01 <-> node03 bw 545.4 MB/s (baseline 10908 MB/s, x0.05; fails below x0.90)" in line for line in worse
    )
    assert not any("node01 <-> node02" in line for line in worse)  # better than its baseline is no failure
    assert f"sweep run {after.run_id} (4 hosts) against sweep run {before.run_id}: FAIL" in result.output
    assert "not checked" not in result.stderr  # the retest run goes with its sweep


def test_the_same_network_again_passes(cli, monkeypatch, tmp_path, clean_env):
    before = planted_sweep(monkeypatch, tmp_path, scenario="link")
    after = planted_sweep(monkeypatch, tmp_path, scenario="link")
    _baseline(cli, before.db, before.run_id)
    result = cli("check", str(after.run_id), str(after.retest_run_id), "--baseline", "healthy", "--db", str(after.db))
    assert result.exit_code == 0, result.output
    assert "PASS against baseline 'healthy'" in result.output
    assert "0 pair values worse by the margin (latency, bw, bibw)" in result.output


def test_a_host_left_out_fails(cli, monkeypatch, tmp_path, clean_env):
    before = planted_sweep(monkeypatch, tmp_path, hosts=4, scenario="link")
    after = planted_sweep(monkeypatch, tmp_path, hosts=3, scenario="link")
    _baseline(cli, before.db, before.run_id)
    result = cli("check", str(after.run_id), "--baseline", "healthy", "--db", str(after.db))
    assert result.exit_code == 1, result.output
    assert "hosts missing: node04" in result.output


def test_json_and_junit_carry_the_sweep(cli, monkeypatch, tmp_path, clean_env):
    before = planted_sweep(monkeypatch, tmp_path, scenario="link")
    after = planted_sweep(monkeypatch, tmp_path, scenario="node")
    _baseline(cli, before.db, before.run_id)
    junit = tmp_path / "check.xml"
    result = cli(
        "check", str(after.run_id), "--baseline", "healthy", "--format", "json", "--junit", junit, "--db", after.db
    )
    assert result.exit_code == 1
    document = json.loads(result.output)
    assert document["passed"] is False and document["curves"] == []
    (sweep,) = document["sweeps"]
    assert sweep["run"] == after.run_id and sweep["baseline_run"] == before.run_id
    bad = {tuple(item["pair"]) for item in sweep["worse"] if item["metric"] == "bw"}
    assert {("node01", "node03"), ("node02", "node03"), ("node03", "node04")} <= bad
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("name") == f"pairs sweep run {after.run_id}"
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert set(cases) == {"pairs latency", "pairs bw", "pairs bibw", "pairs hosts"}
    assert "node03" in cases["pairs bw"].find("failure").text
    assert cases["pairs hosts"].find("failure") is None
