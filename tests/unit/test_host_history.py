"""`commscope history --host/--hosts` over stored `sweep locate --oracle` runs: twelve nights
of 240 hosts under six leaves, one host 12 % slower from the seventh night. One sweep at a
time names it once in six slow nights; its history names it, alone, with the night its drift
began. And what the command refuses: a host it does not know, one never swept, a selection
without sweeps."""

from __future__ import annotations

import json
import shlex
import sys

import pytest
from click.testing import CliRunner

from commscope.records.invocation import invocation
from commscope.records.run import Point, Run
from commscope.store.db import Store

#: twelve locate sweeps, each a dozen launches of the simulator: most of a minute. The tests
#: only read them, so they share one worker (make pytest's --dist loadgroup), which builds
#: them once, where each worker given some of them would build them again.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("host-history")]

HOSTS = [f"cn{i:03d}" for i in range(240)]
LEAVES = {f"leaf{j}": HOSTS[40 * j : 40 * (j + 1)] for j in range(6)}
SLOW, FROM_NIGHT, NIGHTS = "cn117", 7, 12
SIMULATE = f"{shlex.quote(sys.executable)} -m commscope.sweep.simulate"
CLEAN = {"COMMSCOPE_DB": None, "COMMSCOPE_SYSTEM": None, "COMMSCOPE_LAUNCHER": None, "SLURM_JOB_ID": None}


def invoke(*args):
    from commscope.cli.main import main

    return CliRunner().invoke(main, [str(arg) for arg in args], catch_exceptions=False, env=CLEAN)


@pytest.fixture(scope="module")
def nights(tmp_path_factory):
    """The database of twelve nightly locate runs (label nightly) and one ping-pong run
    between two login hosts (label pingpong)."""
    folder = tmp_path_factory.mktemp("nights")
    db = folder / "nights.db"
    (folder / "topology.conf").write_text(
        "SwitchName=spine Switches=leaf[0-5]\n"
        + "".join(f"SwitchName={leaf} Nodes={','.join(hosts)}\n" for leaf, hosts in LEAVES.items())
    )
    (folder / "hosts").write_text("\n".join(HOSTS) + "\n")
    for night in range(1, NIGHTS + 1):
        network = {"seed": 100 + night, "leaves": LEAVES}
        if night >= FROM_NIGHT:
            network["slow_nodes"] = {SLOW: 0.88}
        path = folder / f"night{night}.json"
        path.write_text(json.dumps(network))
        result = invoke(
            "sweep", "locate", "--hostfile", folder / "hosts", "--topology", folder / "topology.conf",
            "--oracle", f"{SIMULATE} {shlex.quote(str(path))}", "--seed", night, "--label", "nightly", "--db", db,
        )  # fmt: skip
        assert result.exit_code in (0, 1), result.output
    with Store(db) as store:
        logins = [{"name": "login1", "ranks": [0]}, {"name": "login2", "ranks": [1]}]
        ping = Run("latency", label="pingpong", hosts=logins, points=[Point(8, {"latency_us": 1.5})])
        store.add_run(ping, store.add_invocation(invocation("run", ["commscope", "run", "latency"])))
    return db


def sweep_ids(db) -> list[int]:
    with Store(db) as store:
        return sorted(summary.id for summary in store.summaries() if summary.benchmark == "pairs")


def test_the_slow_host_regressed_between_the_sixth_and_the_seventh_night(nights):
    result = invoke("history", "nightly", "--host", SLOW, "--db", nights, "--format", "json")
    assert result.exit_code == 1, result.output
    document = json.loads(result.stdout)
    [series] = document["series"]
    ids = sweep_ids(nights)
    assert series["host"] == SLOW and len(series["runs"]) == NIGHTS and series["regressed"]
    [change] = series["changes"]
    assert (change["before_run"], change["after_run"]) == (ids[FROM_NIGHT - 2], ids[FROM_NIGHT - 1])
    assert change["worse"] and 1.06 < change["ratio"] < 1.2
    shown = invoke("history", "nightly", "--host", SLOW, "--db", nights)
    assert shown.exit_code == 1
    assert f"change at run {ids[FROM_NIGHT - 1]} " in shown.stdout and "REGRESSION: host cn117: bw" in shown.stdout


def test_every_host_tested_names_the_slow_one_alone(nights):
    result = invoke("history", "nightly", "--hosts", "--db", nights, "--format", "json")
    assert result.exit_code == 1, result.output
    document = json.loads(result.stdout)
    assert [series["host"] for series in document["series"]] == [SLOW]
    [named] = document["series"]
    assert named["began_run"] == sweep_ids(nights)[FROM_NIGHT - 1] and named["drift_ratio"] > 1.06
    assert len(document["tested"]) == len(HOSTS) and document["false_discovery_rate"] == 0.05
    assert "Benjamini-Hochberg" in document["method"]
    table = invoke("history", "nightly", "--hosts", "--db", nights)
    assert "240 hosts over 12 sweep(s)" in table.stdout and "1 named as drifting" in table.stdout
    assert f"host {SLOW}: +" in table.stdout


@pytest.mark.parametrize("host", ["cn005", "cn118", "cn239"])
def test_a_healthy_host_has_no_regression(nights, host):
    result = invoke("history", "nightly", "--host", host, "--db", nights)
    assert result.exit_code == 0, result.output
    assert f"host {host}: bw" in result.stdout and "REGRESSION" not in result.stdout


def test_the_drift_as_markdown_and_as_metrics(nights):
    markdown = invoke("history", "nightly", "--hosts", "--db", nights, "--format", "markdown")
    assert "| cn117 | 12 |" in markdown.stdout and "Benjamini-Hochberg" in markdown.stdout
    metrics = invoke("history", "nightly", "--hosts", "--db", nights, "--format", "openmetrics").stdout
    assert 'commscope_drifting{metric="bw",name="cn117",system="' in metrics
    lines = [line for line in metrics.splitlines() if line.startswith("commscope_drifting{")]
    assert len(lines) == len(HOSTS)
    assert [line for line in lines if line.endswith(" 1.0")] == [line for line in lines if 'name="cn117"' in line]
    ratio = next(line for line in metrics.splitlines() if line.startswith("commscope_drift_ratio{") and "cn117" in line)
    assert float(ratio.split()[-1]) > 1.06


def test_an_unknown_host_is_refused_by_name_with_the_names_it_resembles(nights):
    result = invoke("history", "nightly", "--host", "cn117x", "--db", nights)
    assert result.exit_code == 2
    assert "no host cn117x in the runs selected ('nightly')" in result.stderr
    assert "(did you mean cn117" in result.stderr and "measured 240 host(s)" in result.stderr


def test_a_host_never_swept_is_refused_as_such(nights):
    result = invoke("history", "--host", "login1", "--db", nights)
    assert result.exit_code == 2
    assert "know login1, but none of the 12 sweep(s)" in result.stderr and "measured a bw pair of it" in result.stderr


def test_a_link_never_measured_or_of_an_unknown_host_is_refused(nights):
    unknown = invoke("history", "nightly", "--link", "cn001,cn999", "--db", nights)
    assert unknown.exit_code == 2 and "--link cn001,cn999: no host cn999 in the runs selected" in unknown.stderr
    never = invoke("history", "nightly", "--link", "cn000,cn239", "--db", nights)
    assert never.exit_code == 2, never.output  # two hosts of leaves apart that no night paired
    assert "know cn000 and cn239, but none of the 12 sweep(s) (runs 1 .. 12) measured this pair" in never.stderr


def test_history_of_sweeps_without_hosts_asked_says_how(nights):
    result = invoke("history", "nightly", "--db", nights)
    assert result.exit_code == 2 and "a sweep's hosts are followed with --hosts, --host HOST" in result.stderr


def test_a_selection_without_sweeps_is_refused_naming_it(nights):
    result = invoke("history", "pingpong", "--hosts", "--db", nights)
    assert result.exit_code == 2
    assert "the runs selected ('pingpong') hold no sweep" in result.stderr and "latency" in result.stderr
    one = invoke("history", "last", "--hosts", "--db", nights)
    assert one.exit_code == 2 and "hold no sweep" in one.stderr
    metric = invoke("history", "nightly", "--hosts", "--metric", "latency", "--db", nights)
    assert metric.exit_code == 2 and "--metric latency: the 12 sweep(s) (runs 1 .. 12) measured bw" in metric.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--host", "cn001", "--hosts"], "--host and --hosts do not go together"),
        (["--hosts", "--size", "8"], "--hosts follows sweeps, which have no message sizes"),
        (["--link", "cn001"], "--link 'cn001': give two different hosts, A,B"),
        (["--link", "cn001,cn001"], "give two different hosts"),
        (["--hosts", "--metric", "bandwidth_MBps"], "--metric bandwidth_MBps: a host's or link's history follows"),
    ],
)
def test_options_that_do_not_go_together_are_refused(nights, args, message):
    result = invoke("history", "nightly", *args, "--db", nights)
    assert result.exit_code == 2 and message in result.stderr, result.output


def test_the_report_shows_the_hosts_over_time_beside_the_named_ones(nights, tmp_path):
    from commscope.output.report.hosts import CHANGES_GID

    result = invoke("report", "nightly", "--db", nights, "-o", tmp_path / "r.html", "--markdown", tmp_path / "r.md")
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "r.md").read_text()
    section = markdown.split("## Hosts over time", 1)[1].split("## Provenance")[0]
    assert "240 hosts over 12 sweep(s)" in section and "| cn117 | 12 |" in section
    assert "the 60 of 240 hosts with the lowest p-values, the named first" in section
    svg = (tmp_path / "r-figures" / "hosts-over-time.svg").read_text()
    assert f'id="{CHANGES_GID}"' in svg
    labels = [text.split("<")[0] for text in svg.split(">cn")[1:]]
    assert labels[0] == "117" and len(labels) == 60  # the named host first, 60 rows
    html = (tmp_path / "r.html").read_text()
    assert 'id="hosts-over-time"' in html and '<span class="verdict failed">DRIFT</span>' in html
    one = invoke("report", "1", "--db", nights, "-o", tmp_path / "one.html", "--markdown", tmp_path / "one.md")
    assert one.exit_code == 0 and "Hosts over time" not in (tmp_path / "one.md").read_text()
