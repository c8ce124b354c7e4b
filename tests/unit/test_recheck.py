"""`commscope sweep recheck` in this process against stand-ins for Slurm's clients on PATH
(scontrol, salloc, scancel, each logging what it is asked) and a planted network measured
by the real sweep code: the allocation taken with `salloc --no-shell` and cancelled, the
node judged from the sweep's typed outcome, and what it says when Slurm refuses (the real
slurmctld, and the stop signals, are tests/cluster/test_drain.py's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.analysis.sweep_runs import PlantedNetwork

#: The drained node first, then its partners, as recheck asks for them.
HOSTS = ["cn3", "cn1", "cn2", "cn4"]
OLD_REASON = "commscope: bw 9.6% of median, slow with 3 of 3 partners, run 7"

#: scontrol as recheck asks it; an update of a node in $FAKE_FAIL to DRAIN refused as
#: slurmctld refuses it; every call logged.
SCONTROL = f"""#!/bin/sh
echo "scontrol $*" >> "$FAKE_LOG"
case "$*" in
  ping) echo "Slurmctld(primary) at ctl is UP" ;;
  "show config") echo "SlurmUser               = slurm(64030)" ;;
  "-o show node")
    echo "NodeName=cn1 Arch=x86_64 State=IDLE Reason=(null)"
    echo "NodeName=cn2 Arch=x86_64 State=IDLE Reason=(null)"
    echo "NodeName=cn3 Arch=x86_64 State=IDLE+DRAIN Reason={OLD_REASON} [root@2026-12-06T01:00:00]"
    echo "NodeName=cn4 Arch=x86_64 State=IDLE Reason=(null)"
    if [ -n "$FAKE_MORE" ]; then eval "$FAKE_MORE"; fi ;;
  "-o show job 42") echo "JobId=42 JobName=interactive JobState=RUNNING NodeList=cn3,cn1,cn2,cn4" ;;
  "show hostnames "*) echo "$3" | tr , '\\n' ;;
  update*State=DRAIN*)
    case " $FAKE_FAIL " in *" ${{2#NodeName=}} "*)
      echo "slurm_update error: Invalid node state specified" >&2; exit 1 ;;
    esac ;;
esac
"""
SALLOC = """#!/bin/sh
echo "salloc $*" >> "$FAKE_LOG"
echo "salloc: Granted job allocation 42" >&2
"""
SCANCEL = """#!/bin/sh
echo "scancel $*" >> "$FAKE_LOG"
"""


@pytest.fixture
def slurm(clean_env, tmp_path, monkeypatch) -> Path:
    """The stand-ins on PATH and the planted network measured: cn3 slow; the log of calls."""
    import commscope.sweep.run as sweep_run

    folder = tmp_path / "bin"
    folder.mkdir()
    for name, text in (("scontrol", SCONTROL), ("salloc", SALLOC), ("scancel", SCANCEL)):
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)
    log = tmp_path / "slurm.log"
    clean_env.setenv("FAKE_LOG", str(log))
    clean_env.setenv("PATH", f"{folder}:/usr/bin:/bin")
    clean_env.delenv("SLURM_JOB_ID", raising=False)
    clean_env.setenv("COMMSCOPE_SWEEP_TMP", str(tmp_path))
    network = PlantedNetwork(HOSTS, bad_node=0)
    monkeypatch.setattr(sweep_run, "find_core", lambda: Path("commscope-bench"))
    monkeypatch.setattr(sweep_run, "core_mpi_flavour", lambda core: "openmpi")
    monkeypatch.setattr(sweep_run, "resolve_launcher", lambda choice, flavour, environ=None: None)
    monkeypatch.setattr(sweep_run.Sweeper, "launch", lambda sweeper, flags, signals: network.run(flags))
    return log


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def test_the_sweep_runs_in_this_process_on_an_allocation_it_gives_back(cli, db, slurm):
    result = cli("sweep", "recheck", "--metric", "bw", "--db", db)
    assert result.exit_code == 1, result.output  # cn3 still slow: stays drained
    said = calls(slurm)
    salloc = next(line for line in said if line.startswith("salloc"))
    assert salloc.endswith("--nodes=4 --ntasks-per-node=1 --time=30 --no-shell")
    assert "--reservation=commscope-recheck --nodelist=cn3,cn1,cn2,cn4" in salloc
    assert said.index("scancel 42") < said.index(next(line for line in said if "delete ReservationName" in line))
    drain = next(line for line in said if "State=DRAIN" in line)
    assert drain.startswith("scontrol update NodeName=cn3 State=DRAIN Reason=commscope: recheck bw ")
    assert drain.endswith(", run 1") and "recheck: cn3 stays drained" in result.stderr
    assert "python" not in " ".join(said)  # commscope did not start itself


def test_a_re_drain_slurm_refuses_is_said_and_not_called_staying_drained(cli, db, slurm, clean_env):
    """Issue 47 W3: the node Slurm would not drain again is in service, and recheck says so."""
    clean_env.setenv("FAKE_FAIL", "cn3")
    result = cli("sweep", "recheck", "--metric", "bw", "--db", db)
    assert result.exit_code == 1, result.output
    assert "stays drained" not in result.stderr
    assert "recheck: cannot drain cn3 again: `scontrol update NodeName=cn3 State=DRAIN" in result.stderr
    assert "Invalid node state specified" in result.stderr
    assert "cn3 could not be drained again and is in service" in result.stderr
    assert "Traceback" not in result.output


def test_a_user_slurm_does_not_allow_is_told_in_recheck_s_words(cli, db, slurm, monkeypatch):
    """Issue 47 K2: not "--drain: ... nothing was drained"."""
    monkeypatch.setattr("os.geteuid", lambda: 4242)  # not root; no sacctmgr here
    result = cli("sweep", "recheck", "--db", db)
    assert result.exit_code == 1, result.output
    assert "recheck: " in result.stderr and "may not change nodes' states" in result.stderr
    assert "nothing was changed" in result.stderr
    assert "--drain" not in result.stderr and "nothing was drained" not in result.stderr
    assert not [line for line in calls(slurm) if "create" in line or "update" in line or "salloc" in line]


def test_a_node_list_that_is_not_utf8_is_read_and_a_flood_is_one_message(cli, db, slurm, clean_env):
    """Issue 47 C3: an operator's reason in Latin-1 on another node; then 1.2 GB of answer."""
    clean_env.setenv("FAKE_MORE", r"printf 'NodeName=cn9 State=DOWN Reason=caf\351 [ops@2026-12-01]\n'")
    result = cli("sweep", "recheck", "--metric", "bw", "--db", db)
    assert result.exit_code == 1 and "recheck: cn3 stays drained" in result.stderr, result.output
    clean_env.setenv("FAKE_MORE", "head -c 1200000000 /dev/zero")
    result = cli("sweep", "recheck", "--metric", "bw", "--db", db)
    assert result.exit_code == 1, result.output
    assert "`scontrol -o show node` answered more than 67,108,864 bytes, which is no answer" in result.stderr
    assert "Traceback" not in result.output and "MemoryError" not in result.output


def test_a_node_mpi_still_cannot_start_on_stays_named_with_the_launchers_words():
    """Issue 45: a drained node whose MPI still fails at start is set aside by the recheck's
    sweep, not flagged (it measured nothing); it stays drained with the launcher's words."""
    from types import SimpleNamespace

    from commscope.analysis.bad_nodes import NodeFinding
    from commscope.analysis.start_faults import FAILS
    from commscope.workflow.recheck import failures

    said = "MPI fails to start on vnode3: rank 2 died by SIGSEGV in 2 of 2 launches"
    outcome = SimpleNamespace(bad_nodes=[NodeFinding("vnode3", said, FAILS)], flags=[], hosts=("vnode1", "vnode2"))
    assert failures(outcome) == {"vnode3": f"recheck: {said}"}
