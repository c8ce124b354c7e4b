"""What Slurm's clients answer is read bounded, as bytes, decoded with replacement (issue 47
C3): a byte that is not UTF-8 in `scontrol`'s output, or an answer of 1.2 GB, is one clear
message or a replacement character in `--drain`, in the topology lookup and in `recheck`
(tests/unit/test_recheck.py), never a traceback or a MemoryError; and every process the
harness starts goes through execute/process (tests/unit/test_layers.py)."""

from __future__ import annotations

import json
import shlex
import sys
import time

import pytest

from commscope.cluster.slurm import run_slurm
from commscope.execute.process import ANSWER_LIMIT

SIMULATE = f"{shlex.quote(sys.executable)} -m commscope.sweep.simulate"
HOSTS = [f"vnode{i}" for i in range(1, 7)]
#: A reason, a switch name, written by someone with another locale: Latin-1 bytes.
LATIN1 = r"caf\351"
#: 1.2 GB of answer, unless the reader stops it.
FLOOD = "head -c 1200000000 /dev/zero"

#: scontrol as --drain and the topology lookup ask it; $FAKE_ON names the question that is
#: answered with $FAKE_ANSWER (a shell command) instead. Every call logged.
SCONTROL = """#!/bin/sh
echo "$*" >> "$FAKE_LOG"
if [ -n "$FAKE_ON" ] && [ "$*" = "$FAKE_ON" ]; then eval "$FAKE_ANSWER"; exit 0; fi
case "$*" in
  ping) echo "Slurmctld(primary) at ctl is UP" ;;
  "show config") echo "SlurmUser               = slurm(64030)" ;;
  "show topology")
    printf 'SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=vnode[1-3]\\n'
    printf 'SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=vnode[4-6]\\n'
    printf 'SwitchName=spine Level=1 LinkSpeed=1 Nodes=vnode[1-6] Switches=leaf[1-2]\\n' ;;
  "-o show node "*)
    for node in $(echo "$4" | tr , ' '); do
      printf 'NodeName=%s Arch=x86_64 State=IDLE Reason=(null)\\n' "$node"
    done ;;
esac
"""


@pytest.fixture
def scontrol(clean_env, tmp_path):
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "scontrol").write_text(SCONTROL)
    (folder / "scontrol").chmod(0o755)
    log = tmp_path / "scontrol.log"
    clean_env.setenv("FAKE_LOG", str(log))
    clean_env.setenv("PATH", f"{folder}:/usr/bin:/bin")
    return clean_env


def answer(env, question: str, command: str) -> None:
    env.setenv("FAKE_ON", question)
    env.setenv("FAKE_ANSWER", command)


def locate(cli, db, tmp_path, *args: str):
    network = tmp_path / "network.json"
    network.write_text(json.dumps({"seed": 7, "slow_nodes": {"vnode5": 0.3}}))
    oracle = f"{SIMULATE} {shlex.quote(str(network))}"
    return cli("sweep", "locate", "--hosts", ",".join(HOSTS), "--oracle", oracle, "--seed", "2", "--db", db, *args)


def test_an_answer_that_is_not_utf8_is_read_with_replacement(scontrol):
    answer(scontrol, "ping", f"printf 'Slurmctld at {LATIN1} is UP\\n'; printf '{LATIN1}\\n' >&2")
    done = run_slurm(["scontrol", "ping"])
    assert done.stdout == "Slurmctld at caf\ufffd is UP\n" and done.stderr == "caf\ufffd\n"


def test_a_flood_is_stopped_at_the_limit_and_said(scontrol):
    answer(scontrol, "ping", FLOOD)
    began = time.monotonic()
    with pytest.raises(Exception) as raised:
        run_slurm(["scontrol", "ping"])
    assert time.monotonic() - began < 30
    assert f"answered more than {ANSWER_LIMIT:,} bytes, which is no answer; stopped it" in str(raised.value)


@pytest.mark.slow  # a locate measured by the simulator: a second
def test_drain_reads_a_node_s_reason_that_is_not_utf8(cli, db, tmp_path, scontrol):
    answer(
        scontrol,
        "-o show node vnode5",
        f"printf 'NodeName=vnode5 Arch=x86_64 State=IDLE+DRAIN Reason=RMA {LATIN1} [ops@2026-12-01]\\n'",
    )
    result = locate(cli, db, tmp_path, "--drain")
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert "vnode5 is out of service already (IDLE+DRAIN: RMA caf\ufffd); left as it is" in result.stderr


@pytest.mark.slow  # a locate measured by the simulator: a second
@pytest.mark.parametrize(
    "question, command, said",
    [
        ("ping", FLOOD, f"`scontrol ping` answered more than {ANSWER_LIMIT:,} bytes"),  # before measuring
        ("-o show node vnode5", FLOOD, f"`scontrol -o show node` answered more than {ANSWER_LIMIT:,} bytes"),
    ],
)
def test_drain_with_slurm_flooding_is_one_message(cli, db, tmp_path, scontrol, question, command, said):
    answer(scontrol, question, command)
    result = locate(cli, db, tmp_path, "--drain")
    assert result.exit_code == 1, result.output
    assert said in result.stderr and "Traceback" not in result.output and "MemoryError" not in result.output


@pytest.mark.slow  # a locate measured by the simulator: a second
def test_the_topology_lookup_reads_a_switch_name_that_is_not_utf8(cli, db, tmp_path, scontrol):
    scontrol.setenv("SLURM_JOB_ID", "7")  # inside an allocation: the controller is asked
    answer(
        scontrol,
        "show topology",
        f"printf 'SwitchName=leaf{LATIN1} Level=0 LinkSpeed=1 Nodes=vnode[1-6]\\n'",
    )
    result = locate(cli, db, tmp_path)
    assert result.exit_code == 1, result.output  # vnode5 named
    assert "Traceback" not in result.output
    assert "leaf switch(es) of scontrol show topology" in result.stderr


def test_the_topology_lookup_stops_a_flood(cli, db, tmp_path, scontrol):
    scontrol.setenv("SLURM_JOB_ID", "7")
    answer(scontrol, "show topology", FLOOD)
    result = locate(cli, db, tmp_path)
    assert result.exit_code == 1, result.output
    assert f"`scontrol show topology` answered more than {ANSWER_LIMIT:,} bytes" in result.stderr
    assert "Traceback" not in result.output and "locate: round" not in result.stderr  # nothing measured
