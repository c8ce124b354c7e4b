"""`sweep locate --drain` and `all-pairs --drain` without a cluster: the reason an operator
reads, the safety valve's arithmetic, --dry-run's commands, and "nothing half done" against a
stand-in scontrol on PATH that logs what it is asked (the real slurmctld is in
tests/cluster/test_drain.py)."""

from __future__ import annotations

import json
import shlex
import sys

import pytest

from commscope.analysis.bad_nodes import NodeFinding, how_far
from commscope.cluster.drain import default_max_drain, drain_reason

HOSTS = [f"cn{i:03d}" for i in range(40)]
SIMULATE = f"{shlex.quote(sys.executable)} -m commscope.sweep.simulate"

#: scontrol as far as draining asks it: ping, show config, show node LIST, update; every
#: call logged; an update of a node in $FAKE_FAIL refused as slurmctld refuses it.
FAKE_SCONTROL = """#!/bin/sh
echo "$*" >> "$FAKE_LOG"
case "$*" in
  ping) echo "Slurmctld(primary) at ctl is UP" ;;
  "show config") echo "SlurmUser               = slurm(64030)" ;;
  "-o show node "*)
    for node in $(echo "$4" | tr , ' '); do
      echo "NodeName=$node Arch=x86_64 State=IDLE Reason=(null)"
    done ;;
  update*)
    case " $FAKE_FAIL " in *" ${2#NodeName=} "*)
      echo "slurm_update error: Invalid node state specified" >&2; exit 1 ;;
    esac ;;
esac
"""


@pytest.fixture
def scontrol(clean_env, tmp_path):
    folder = tmp_path / "bin"
    folder.mkdir()
    program = folder / "scontrol"
    program.write_text(FAKE_SCONTROL)
    program.chmod(0o755)
    log = tmp_path / "scontrol.log"
    clean_env.setenv("FAKE_LOG", str(log))
    clean_env.setenv("PATH", f"{folder}:/usr/bin:/bin")
    return log


def locate(cli, db, tmp_path, slow: dict[str, float], *args: str):
    network = tmp_path / "network.json"
    network.write_text(json.dumps({"seed": 7, "slow_nodes": slow}))
    oracle = f"{SIMULATE} {shlex.quote(str(network))}"
    return cli("sweep", "locate", "--hosts", ",".join(HOSTS), "--oracle", oracle, "--seed", "2", "--db", db, *args)


def updates(log) -> list[str]:
    return [line for line in log.read_text().splitlines() if line.startswith("update")] if log.exists() else []


def test_the_reason_says_what_how_much_and_which_run_in_characters_slurm_keeps():
    node = NodeFinding("cn017", f"{how_far('bw', 5_800, 12_000)} with 4 healthy partners")
    assert drain_reason(node.evidence, "run 17") == "commscope: bw 48% of median with 4 healthy partners, run 17"
    assert how_far("latency", 7.5, 1.5) == "latency 5.0x median"
    assert how_far("bibw", 2.4, 682.7) == "bibw 0.4% of median"
    assert drain_reason('bw "low"=\n\tx', None) == "commscope: bw _low____x"
    long = drain_reason("x" * 500, "run 12345")
    assert len(long) == 120 and long.endswith(", run 12345")


@pytest.mark.parametrize("hosts, allowed", [(1, 1), (6, 1), (39, 1), (40, 2), (100, 5), (1000, 50)])
def test_the_valve_allows_five_percent_of_the_hosts_swept_and_at_least_one(hosts, allowed):
    assert default_max_drain(hosts) == allowed


@pytest.mark.slow
def test_a_located_node_is_drained_with_its_reason(cli, db, tmp_path, scontrol):
    verdict = tmp_path / "verdict.json"
    result = locate(cli, db, tmp_path, {"cn017": 0.4}, "--drain", "--json", verdict)
    assert result.exit_code == 1, result.output  # a bad node named: as without --drain
    (update,) = updates(scontrol)
    assert update.startswith("update NodeName=cn017 State=DRAIN Reason=commscope: bw ")
    assert "% of median with " in update and update.endswith(", run 1")
    assert json.loads(verdict.read_text())["drained"] == ["cn017"]  # what --drain did, beside the verdict
    assert "drain: scontrol update NodeName=cn017 State=DRAIN" in result.stderr
    assert scontrol.read_text().splitlines()[0] == "ping"  # asked before measuring


@pytest.mark.slow
def test_dry_run_prints_the_commands_and_runs_none(cli, db, tmp_path, scontrol):
    result = locate(cli, db, tmp_path, {"cn017": 0.4}, "--drain", "--dry-run")
    assert result.exit_code == 1, result.output
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("scontrol")]
    assert line.startswith('scontrol update NodeName=cn017 State=DRAIN Reason="commscope: bw ')
    assert line.endswith(', run 1"')
    assert shlex.split(line)[-1].startswith("Reason=commscope: ")  # a shell line as printed
    assert not scontrol.exists() and "nothing was changed" in result.stderr


@pytest.mark.slow
def test_the_valve_refuses_to_drain_more_than_its_share_and_says_why(cli, db, tmp_path, scontrol):
    slow = {"cn003": 0.4, "cn011": 0.4, "cn027": 0.4}  # 3 of 40: more than 5 % (2)
    verdict = tmp_path / "verdict.json"
    result = locate(cli, db, tmp_path, slow, "--drain", "--json", verdict)
    assert result.exit_code == 1
    assert json.loads(verdict.read_text())["drained"] == []  # written though the drain was refused
    assert "3 bad nodes named (cn003, cn011, cn027), more than --max-drain 2: draining none" in result.stderr
    assert "more likely the network" in result.stderr and "Traceback" not in result.output
    assert updates(scontrol) == []
    allowed = locate(cli, db, tmp_path, slow, "--drain", "--max-drain", "3")
    assert [line.split()[1] for line in updates(scontrol)] == ["NodeName=cn003", "NodeName=cn011", "NodeName=cn027"]
    assert allowed.exit_code == 1


@pytest.mark.slow
def test_a_drain_that_fails_after_others_says_which_were_drained(cli, db, tmp_path, scontrol, clean_env):
    clean_env.setenv("FAKE_FAIL", "cn011")
    result = locate(cli, db, tmp_path, {"cn003": 0.4, "cn011": 0.4}, "--drain", "--max-drain", "5")
    assert result.exit_code == 1
    assert "Invalid node state specified" in result.stderr and "drained cn003 before it" in result.stderr
    clean_env.setenv("FAKE_FAIL", "cn003")
    first = locate(cli, db, tmp_path, {"cn003": 0.4, "cn011": 0.4}, "--drain", "--max-drain", "5")
    assert "nothing was drained" in first.stderr and "Traceback" not in first.output


def test_outside_slurm_drain_is_refused_before_measuring(cli, db, tmp_path, clean_env):
    clean_env.setenv("PATH", str(tmp_path))  # no scontrol
    result = locate(cli, db, tmp_path, {"cn017": 0.4}, "--drain")
    assert result.exit_code == 1 and "no scontrol on PATH" in result.stderr
    assert "locate: round" not in result.stderr and not db.exists()  # nothing measured


def test_a_user_slurm_does_not_let_drain_is_refused_before_measuring(cli, db, tmp_path, scontrol, monkeypatch):
    monkeypatch.setattr("os.geteuid", lambda: 4242)  # not root; no sacctmgr here
    result = locate(cli, db, tmp_path, {"cn017": 0.4}, "--drain")
    assert result.exit_code == 1, result.output
    assert "may not change nodes' states" in result.stderr and "SlurmUser (slurm)" in result.stderr
    assert updates(scontrol) == [] and not db.exists()


def test_drain_options_belong_to_locate_and_all_pairs(cli, db, tmp_path, clean_env):
    result = cli("sweep", "one-to-all", "--hosts", "a,b", "--drain", "--db", db)
    assert result.exit_code == 2 and "--drain does not apply to one-to-all" in result.stderr
    result = locate(cli, db, tmp_path, {}, "--dry-run")
    assert result.exit_code == 2 and "--dry-run goes with --drain" in result.stderr


def test_recheck_keeps_drained_the_hosts_a_flag_names_and_takes_idle_nodes_as_partners():
    from types import SimpleNamespace

    from commscope.analysis.sweep import Flag
    from commscope.cluster.drain import NodeState
    from commscope.cluster.recheck import partners_of
    from commscope.workflow.recheck import failures

    outcome = SimpleNamespace(  # what the sweep's outcome holds: its flags, by host index, and the hosts
        hosts=("vnode1", "vnode2", "vnode3", "vnode5"),
        bad_nodes=[],  # none set aside at MPI start (test_recheck.py has one)
        flags=[
            Flag("node", "bw", (2,), value=2.4, population_median=800.0, retest=2.4),
            Flag("link", "bibw", (3, 0), value=30.0, population_median=600.0, retest=None),
        ],
    )
    assert failures(outcome) == {
        "vnode3": "recheck bw 0.3% of median",
        "vnode5": "recheck bibw 5.0% of median with vnode5 and vnode1",
        "vnode1": "recheck bibw 5.0% of median with vnode5 and vnode1",
    }
    states = {
        "n1": NodeState("n1", "IDLE", None),
        "n2": NodeState("n2", "IDLE+DRAIN", "commscope: bw 1% of median, run 3"),
        "n3": NodeState("n3", "MIXED", None),
        "n4": NodeState("n4", "IDLE", None),
        "n5": NodeState("n5", "DOWN*", "Not responding"),
        "n0": NodeState("n0", "IDLE", None),
    }
    assert partners_of(states, 2) == ["n0", "n1"] and partners_of(states, 9) == ["n0", "n1", "n4"]
    assert [name for name, state in states.items() if state.ours] == ["n2"]  # an operator's DOWN is not ours


def test_recheck_with_nothing_drained_by_commscope_changes_nothing(cli, db, scontrol):
    result = cli("sweep", "recheck", "--db", db)
    assert result.exit_code == 0, result.output
    assert "nothing to recheck" in result.stderr
    assert updates(scontrol) == [] and "create" not in scontrol.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("end", ["\n", "\x1b[2J", "\r"], ids=["newline", "escape", "cr"])
def test_dry_run_quotes_every_node_name_it_prints(cli, db, tmp_path, scontrol, end):
    """A node name with a line break or ESC (a hostfile's, or Slurm's own) is printed in the
    shell's ANSI-C quotes: it neither forges a line of the plan nor reaches the terminal."""
    forged = f"cn017{end}scontrol update NodeName=cn001 State=RESUME"
    network = tmp_path / "network.json"
    network.write_text(json.dumps({"seed": 7, "slow_nodes": {forged: 0.4}}))
    hosts = [forged if host == "cn017" else host for host in HOSTS]
    oracle = f"{SIMULATE} {shlex.quote(str(network))}"
    result = cli(
        "sweep", "locate", "--hosts", ",".join(hosts), "--oracle", oracle, "--seed", "2", "--db", db,
        "--drain", "--dry-run",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    [line] = [line for line in result.stdout.split("\n") if line.startswith("scontrol")]
    escaped = "".join(char if char.isprintable() else f"\\x{ord(char):02x}" for char in forged)
    assert line.startswith(f"scontrol update $'NodeName={escaped}' State=DRAIN Reason=\"commscope: bw "), line
    assert "\x1b" not in result.stdout and "\r" not in result.stdout


def test_a_node_slow_in_the_sweep_but_not_confirmed_is_never_drained(cli, db, tmp_path, scontrol):
    """Two rounds at most: cn017 is slow with two cleared partners (pending) when the round
    limit stops the sweep, before its confirmation round; it is not named, and --drain asks
    Slurm for nothing."""
    rules = tmp_path / "rules.yaml"
    rules.write_text("locate: {max_rounds: 2}\n")
    verdict = tmp_path / "verdict.json"
    result = locate(cli, db, tmp_path, {"cn017": 0.4}, "--drain", "--rules", rules, "--json", verdict)
    document = json.loads(verdict.read_text())
    assert document["bad_nodes"] == [] and document["unconfirmed"] == ["cn017"], document
    assert "not confirmed: cn017: slow in the sweep, not measured again alone" in result.stderr
    assert document["drained"] == [] and updates(scontrol) == []
    assert result.exit_code == 1  # undecided, not certain


def test_only_confirmed_nodes_are_given_to_drain():
    """located_nodes hands --drain the nodes confirmed alone, never one without a confirmation
    or whose confirmation did not reproduce (a verdict replayed from rounds stored before
    confirmation rounds, or built by another part)."""
    from commscope.analysis.bad_nodes import located_nodes
    from commscope.analysis.locate_confirm import Confirmation
    from commscope.analysis.locate_verdict import BadNode, LocateVerdict

    confirmed = Confirmation(3, ((0, 2, 10.0, True), (0, 3, 11.0, True)), ((2, 3, 100.0),), 100.0)
    refuted = Confirmation(3, ((1, 2, 90.0, False),), ((2, 3, 100.0),), 100.0)
    nodes = [
        BadNode(0, 10.0, 100.0, 2, (), (2, 3), confirmed),
        BadNode(1, 10.0, 100.0, 2, (), (2, 3), refuted),
        BadNode(4, 10.0, 100.0, 2, (), (2, 3), None),
    ]
    verdict = LocateVerdict("bw", 6, 3, 9, "certain", nodes, [], [2, 3, 5], [])
    assert [found.host for found in located_nodes(verdict, [f"vnode{k}" for k in range(1, 7)])] == ["vnode1"]


def test_an_all_pairs_node_flagged_without_its_retest_is_not_drained(scontrol, capsys):
    """all-pairs --no-retest flags a node from its pairs measured at once alone: named, not
    confirmed; --drain says so and asks Slurm for nothing, while a node whose pairs were
    measured again alone (the retest) is drained."""
    from commscope.analysis.bad_nodes import flagged_nodes
    from commscope.analysis.sweep import Flag
    from commscope.cluster.drain import DrainPlan
    from commscope.sweep.outcome import SweepOutcome
    from commscope.workflow.sweep import drained

    labels = [f"cn{k:03d}" for k in range(8)]
    alone = Flag("node", "bw", (3,), 120.0, 1000.0, 110.0, partners_bad=7, partners=7)
    at_once = Flag("node", "bw", (5,), 150.0, 1000.0, None, partners_bad=7, partners=7)
    nodes = flagged_nodes([alone, at_once], labels)
    assert [(node.host, node.confirmed) for node in nodes] == [("cn003", True), ("cn005", False)]
    outcome = SweepOutcome("all-pairs", tuple(labels), 12, nodes, 1)
    hosts, refused = drained(DrainPlan(None, dry_run=False), outcome)
    assert refused is None and hosts == ["cn003"]
    assert [line.split()[1] for line in updates(scontrol)] == ["NodeName=cn003"]
    assert "not drained: cn005: named without being measured again alone (--no-retest)" in capsys.readouterr().err
