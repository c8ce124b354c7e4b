"""`commscope sweep locate --oracle` end to end against the simulator: the verdict on the
terminal and in --json, the run stored with its rounds and known to show, report, check
and plot as a locate sweep; and bad input refused by name, with nothing stored."""

from __future__ import annotations

import json
import re
import shlex
import sys

import pytest

from commscope.kinds import LOCATE_SWEEP, kind_of
from commscope.store.db import Store

HOSTS = [f"cn{i:03d}" for i in range(120)]
SIMULATE = f"{shlex.quote(sys.executable)} -m commscope.sweep.simulate"


def network(tmp_path, **faults) -> str:
    path = tmp_path / "network.json"
    path.write_text(json.dumps({"seed": 7, **faults}))
    return f"{SIMULATE} {shlex.quote(str(path))}"


def oracle_script(tmp_path, body: str) -> str:
    """A Python oracle whose main part is `body` (`request` holds the round)."""
    path = tmp_path / "oracle.py"
    path.write_text("import json, sys, time\nrequest = json.load(sys.stdin)\n" + body)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def locate(cli, db, oracle: str, *args: str, hosts=HOSTS):
    return cli("sweep", "locate", "--hosts", ",".join(hosts), "--oracle", oracle, "--seed", "2", "--db", db, *args)


@pytest.mark.slow
def test_the_bad_nodes_are_named_stored_and_known_to_the_other_commands(cli, clean_env, db, tmp_path):
    oracle = network(tmp_path, slow_nodes={"cn017": 0.5, "cn090": 0.7})
    out = tmp_path / "verdict.json"
    result = locate(cli, db, oracle, "--json", out)
    assert result.exit_code == 1, result.output
    assert "bad node cn017: bandwidth" in result.stderr and "bad node cn090" in result.stderr
    # each named once its pairs with cleared partners measured alone were slow again
    assert re.search(r"bad node cn017: .*confirmed \d+% slower alone in round \d+: cn017 <-> ", result.stderr)
    assert re.search(r"slow with [3-9] different healthy partners", result.stderr)
    assert "(all-pairs: 119 rounds, 7,140 pairs)" in result.stderr
    document = json.loads(out.read_text())
    assert document["rounds"] <= 6 and document["stop"] == "certain"
    assert {node["host"] for node in document["bad_nodes"]} == {"cn017", "cn090"}
    assert document["cleared"] == 118 and document["undecided"] == []
    assert document["rules"] == {
        "bw": {"mad_k": 3.0, "margin": 0.9},
        "locate": {"confirm": 3, "max_rounds": 10, "detect": 0.2, "alpha": 0.001, "beta": 0.05},
    }
    node = document["bad_nodes"][0]
    assert len({partner["host"] for partner in node["partners"] if partner["slow"]}) >= 4
    confirmed = node["confirmed_by"]
    assert confirmed["alone"] and confirmed["reproduced"] and len(confirmed["pairs"]) == 3, confirmed
    assert all(pair["slow"] and node["host"] in pair["hosts"] for pair in confirmed["pairs"])
    assert len(confirmed["controls"]) >= 3 and confirmed["reference"] > 1.8 * max(
        p["value"] for p in confirmed["pairs"]
    )
    assert confirmed["round"] in document["alone_rounds"]
    with Store(db) as store:
        run = store.run(document["run_id"])
    assert kind_of(run) is LOCATE_SWEEP
    assert {point.pair.round for point in run.points} == set(range(document["rounds"]))
    assert len(run.points) == document["pairs_measured"]

    shown = cli("show", document["run_id"], "--db", db)
    assert "bad node cn017" in shown.stdout and "Pairs' median" in shown.stdout
    report = cli("report", document["run_id"], "--db", db, "-o", tmp_path / "r.html", "--markdown", tmp_path / "r.md")
    assert report.exit_code == 0, report.output
    markdown = (tmp_path / "r.md").read_text()
    assert f"## Run {document['run_id']}: locate sweep of 120 hosts in {document['rounds']} rounds" in markdown
    assert "| cn017 |" in markdown and "### Rounds" in markdown

    healthy = locate(cli, db, network(tmp_path), "--json", out)
    assert healthy.exit_code == 0, healthy.output
    healthy_id = json.loads(out.read_text())["run_id"]
    assert cli("baseline", "set", "healthy", healthy_id, "--db", db).exit_code == 0
    check = cli("check", document["run_id"], "--baseline", "healthy", "--db", db)
    assert check.exit_code == 1 and "bad nodes named: cn017, cn090" in check.stdout
    plot = cli("plot", document["run_id"], "-o", tmp_path / "p.svg", "--db", db)
    assert plot.exit_code == 0 and (tmp_path / "p-bw.svg").exists()


@pytest.mark.slow
def test_a_bad_link_is_a_suspect_pair_and_the_verdict_says_what_it_cannot_tell(cli, clean_env, db, tmp_path):
    links = [[HOSTS[a], HOSTS[b], 0.3] for a in range(0, 120, 2) for b in (a + 1,)]  # half the possible pairs
    out = tmp_path / "verdict.json"
    result = locate(cli, db, network(tmp_path, bad_links=links, contention=0), "--json", out)
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["bad_nodes"] == [] and document["suspect_pairs"]
    assert all(sorted(pair["hosts"]) in [sorted(link[:2]) for link in links] for pair in document["suspect_pairs"])
    assert "only `commscope sweep all-pairs` measures every pair" in result.stderr


def stored_runs(db) -> int:
    if not db.exists():
        return 0
    with Store(db) as store:
        return len(store.summaries())


@pytest.mark.parametrize(
    "body, message",
    [
        ("sys.exit(3)\n", "round 1: the oracle `{oracle}` failed (exit status 3)"),
        ("import os; os.kill(os.getpid(), 9)\n", "was killed by signal 9"),
        ("time.sleep(60)\n", "did not answer within 1 s (--timeout); stopped it"),
        ("print('hello')\n", "printed no JSON document"),
        ("print(json.dumps({'values': [[a, b, 1.0] for a, b in request['pairs'][1:]]}))\n", "left out 1 pair(s)"),
        ("print(json.dumps({'values': [['cn000', 'nowhere', 1.0]]}))\n", "cn000 <-> nowhere, which is not a pair"),
        ("print(json.dumps({'values': [[a, b, -1] for a, b in request['pairs']]}))\n", "the value -1: not a bw"),
    ],
)
def test_a_failing_oracle_stops_the_sweep_by_name_and_nothing_is_stored(cli, clean_env, db, tmp_path, body, message):
    oracle = oracle_script(tmp_path, body)
    result = locate(cli, db, oracle, "--timeout", "1")
    assert result.exit_code == 1, result.output
    assert message.format(oracle=oracle) in result.stderr
    assert "Traceback" not in result.output
    assert stored_runs(db) == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--hosts", "a,b,c,d,e,b,c"], "locate: b, c named more than once"),
        (["--hosts", "a"], "locate needs at least 6 hosts, got 1"),
        (["--hosts", "a,b,c,d,e,f", "--oracle", "/nonexistent/oracle"], "cannot run /nonexistent/oracle"),
        (["--hosts", "a,b,c,d,e,f", "--metric", "bw,bibw"], "locate judges one metric"),
        (["--hosts", "a,b,c,d,e,f", "--baseline", "1"], "--baseline does not apply to locate"),
    ],
)
def test_bad_input_is_a_usage_error(cli, clean_env, db, args, message):
    result = cli("sweep", "locate", *args, "--db", db)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert stored_runs(db) == 0


def test_oracle_and_seed_belong_to_locate(cli, clean_env, db):
    result = cli("sweep", "all-pairs", "--hosts", "a,b", "--oracle", "x", "--db", db)
    assert result.exit_code == 2 and "--oracle does not apply to all-pairs: it applies to locate only" in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seed", "-1"], "Invalid value for '--seed': -1 is not in the range x>=0"),
        (["--detect", "nan"], "Invalid value for '--detect': 'nan' is not a finite number"),
        (["--detect", "NaN"], "Invalid value for '--detect': 'NaN' is not a finite number"),
    ],
)
def test_a_seed_or_limit_that_cannot_be_used_is_a_usage_error(cli, clean_env, db, tmp_path, args, message):
    result = locate(cli, db, network(tmp_path), *args, hosts=HOSTS[:12])
    assert result.exit_code == 2 and message in result.stderr, result.output
    assert "Traceback" not in result.output and stored_runs(db) == 0


@pytest.mark.slow
def test_a_stored_run_whose_rules_cannot_be_read_is_still_shown(cli, clean_env, db, tmp_path):
    """A run an older commscope stored with a NaN --detect: judged with the default rules, said."""
    oracle = network(tmp_path, slow_nodes={"cn005": 0.5})
    assert locate(cli, db, oracle, hosts=HOSTS[:12]).exit_code == 1
    with Store(db) as store:
        store.conn.execute("UPDATE runs SET provenance = json_set(provenance, '$.sweep.rules.locate.detect', 'NaN')")
        store.conn.commit()
    shown = cli("show", "1", "--db", db)
    assert shown.exit_code == 0, shown.output
    assert "note: run 1: provenance sweep.rules: locate.detect:" in shown.stdout
    assert "judged here with the default rules" in shown.stdout and "bad node cn005" in shown.stdout
    for argv in (("report", "1", "-o", tmp_path / "r.html"), ("plot", "1", "-o", tmp_path / "p.png")):
        assert cli(*argv, "--db", db).exit_code == 0
    for form in ("json", "csv", "openmetrics"):
        assert cli("export", "1", "--format", form, "--db", db).exit_code == 0
