"""`commscope sweep` for real on this machine: an intra-node sweep with each MPI library (on
two cores: one pair, in one relation group), and its usage errors (exit 2, one message)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from paths import REPO

COMMSCOPE = [sys.executable, "-m", "commscope"]
LAUNCHER = {"mpich": "mpiexec.mpich", "openmpi": "mpirun.openmpi"}
FAST = ["--", "-i", "5", "-x", "1", "--bw-size", "16K", "-W", "8"]


def run(args, env=None, tmp_path=None):
    environ = {**os.environ, "COMMSCOPE_DB": str(tmp_path / "r.db"), "PYTHONPATH": str(REPO / "python"), **(env or {})}
    return subprocess.run([*COMMSCOPE, "sweep", *args], capture_output=True, text=True, timeout=300, env=environ)


@pytest.mark.timing
@pytest.mark.parametrize("name", sorted(LAUNCHER))
def test_intra_sweep_measures_the_core_pair_and_groups_it(name, tmp_path):
    core = REPO / "build" / name / "commscope-bench"
    if not core.exists() or shutil.which(LAUNCHER[name]) is None:
        pytest.skip(f"{core} missing (make flavours)")
    out = tmp_path / "m.json"
    result = run(
        [
            "intra",
            "--np",
            "2",
            "--launcher",
            shutil.which(LAUNCHER[name]),
            "--json",
            str(out),
            "--plot",
            str(tmp_path / "plots"),
            *FAST,
        ],
        {"COMMSCOPE_BENCH": str(core)},
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    document = json.loads(out.read_text())
    assert len(document["hosts"]) == 2 and set(document["matrices"]) == {"latency", "bw", "bibw"}
    assert document["matrices"]["bw"][0][1] > 0 and document["flags"] == []
    assert "Core pairs by relation: the worst pair's best value" in result.stdout
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == [
        "sweep-bibw.png",
        "sweep-bw.png",
        "sweep-latency.png",
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["all-pairs", "--hosts", "a"], "all-pairs needs at least 2 hosts"),
        (["one-to-all", "--hosts", "a,b", "--from", "c"], "--from c: not one of the hosts (a, b)"),
        (["all-pairs", "--hosts", "a,b", "--from", "a"], "--from does not apply to all-pairs"),
        (["all-pairs", "--hosts", "a,b", "--metric", "bw,foo"], "--metric bw,foo: choose from latency, bw, bibw"),
    ],
)
def test_usage_errors(args, message, tmp_path):
    result = run(args, tmp_path=tmp_path)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_a_bad_rules_file_names_file_line_and_key(tmp_path):
    rules = tmp_path / "rules.yaml"
    rules.write_text("bw:\n  margin: 0.9\n  madk: 3\n")
    result = run(["all-pairs", "--hosts", "a,b", "--rules", str(rules)], tmp_path=tmp_path)
    assert result.returncode == 2 and f"{rules}:3: bw.madk: unknown key" in result.stderr


@pytest.mark.parametrize("name", sorted(LAUNCHER))
def test_a_launch_stopped_at_its_timeout_is_started_once_more(name, tmp_path):
    """A launch that never ends (a wire-up hang) is stopped at --timeout and the sweep
    starts it again, instead of losing the sweep: the stand-in launcher hangs the first
    time it is asked to start the core's pairs, then is the real one."""
    core = REPO / "build" / name / "commscope-bench"
    real = shutil.which(LAUNCHER[name])
    if not core.exists() or real is None:
        pytest.skip(f"{core} missing (make flavours)")
    # named as the real one, so that commscope tells its MPI by the name
    launcher = tmp_path / "bin" / LAUNCHER[name]
    launcher.parent.mkdir()
    hung = tmp_path / "hung-once"
    launcher.write_text(
        "#!/bin/sh\n"
        f'case "$*" in *" pairs "*) [ -e {hung} ] || {{ touch {hung}; exec sleep 600; }};; esac\n'
        f'exec {real} "$@"\n'
    )
    launcher.chmod(0o755)
    out = tmp_path / "m.json"
    result = run(
        ["intra", "--np", "2", "--launcher", str(launcher), "--timeout", "5", "--json", str(out), *FAST],
        {"COMMSCOPE_BENCH": str(core)},
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert hung.exists()
    assert "pairs: incomplete: timed out after 5 s" in result.stderr
    assert "sweep: the launch was stopped at --timeout; starting it once more" in result.stderr
    launches = [line for line in result.stderr.splitlines() if line.startswith("sweep: ") and " pairs " in line]
    assert len(launches) == 2
    document = json.loads(out.read_text())
    assert document["matrices"]["bw"][0][1] > 0
