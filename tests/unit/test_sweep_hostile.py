"""What a hostile probe of sweeps found, each refused or fixed by name: a hostfile line with
no host, a named pipe given as an input file, the fewest hosts locate needs in every path,
numbers beyond float32 or all zero, control characters in host names."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
import warnings

import numpy as np
import pytest
from test_sweep_inputs import Planted

HOSTS = [f"cn{i:03d}" for i in range(8)]


@pytest.mark.parametrize("mode", ["all-pairs", "locate"])
def test_a_hostfile_line_with_no_host_is_an_error_with_file_and_line(cli, monkeypatch, tmp_path, clean_env, mode):
    planted = Planted(monkeypatch, tmp_path)
    hostfile = tmp_path / "hosts"
    hostfile.write_text("# racks\nnode01\nnode02 slots=1\n:4\nnode03\n")
    result = cli("sweep", mode, "--hostfile", hostfile, "--db", planted.db)
    assert result.exit_code == 2, result.output
    assert f"{hostfile}:4: ':4' names no host" in result.stderr
    assert planted.launches == [] and planted.stored() == 0


def test_run_refuses_a_hostfile_line_with_no_host(cli, fake_core, db, tmp_path):
    hostfile = tmp_path / "hosts"
    hostfile.write_text("node01:2\n:4\n")
    result = cli("run", "latency", "--hostfile", hostfile, "--launcher", "mpirun", "--dry-run", "--db", db)
    assert result.exit_code == 2 and f"{hostfile}:2: ':4' names no host" in result.stderr


@pytest.mark.parametrize(
    "argv, exit_code",
    [
        (["sweep", "all-pairs", "--hostfile", "FIFO"], 2),
        (["sweep", "locate", "--hostfile", "FIFO"], 2),
        (["run", "latency", "--hostfile", "FIFO", "--launcher", "mpirun", "--dry-run"], 2),
        (["import", "FIFO"], 1),
    ],
    ids=["sweep", "locate", "run", "import"],
)
def test_a_named_pipe_as_an_input_file_is_refused_not_waited_on(cli, fake_core, db, tmp_path, argv, exit_code):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    began = time.monotonic()
    result = cli(*[str(fifo) if arg == "FIFO" else arg for arg in argv], "--db", db)
    assert time.monotonic() - began < 30
    assert result.exit_code == exit_code, result.output
    assert "a named pipe, not a file" in result.stderr and str(fifo) in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["locate"], "locate needs at least 6 hosts (--hosts"),
        (["locate", "--nodes", "3"], "--nodes 3: locate needs at least 6 nodes"),
        (["locate", "--hosts", "a,b,c"], "locate needs at least 6 hosts, got 3"),
        (["all-pairs"], "all-pairs needs at least 2 hosts"),
    ],
)
def test_the_fewest_hosts_named_are_the_mode_s_own(cli, clean_env, fake_core, db, args, message):
    result = cli("sweep", *args, "--db", db)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_locate_s_reference_is_the_values_as_measured_in_float64():
    from commscope.analysis.locate import Locator
    from commscope.analysis.sweep import Policy

    policy = Policy()
    locator = Locator(6, "bw", policy.locate, seed=1)
    pairs = locator.plan()
    measured = locator.record(pairs, np.full(len(pairs), 100.0))
    assert abs(measured.reference.median - 100.0) < 1e-9  # float32 gave 100.00000639508755


def test_pairs_that_all_moved_nothing_clear_no_host():
    from commscope.analysis.locate import Locator
    from commscope.analysis.sweep import Policy

    policy = Policy()
    locator = Locator(6, "bw", policy.locate, seed=1)
    while not locator.stop:
        pairs = locator.plan()
        if locator.stop:
            break
        locator.record(pairs, np.zeros(len(pairs)))
    verdict = locator.verdict()
    assert verdict.cleared.size == 0 if hasattr(verdict.cleared, "size") else not verdict.cleared
    assert len(verdict.undecided) + len(verdict.bad_nodes) == 6


def test_values_beyond_float32_give_no_numpy_warning():
    from commscope.analysis.locate import Locator
    from commscope.analysis.sweep import Policy, matrix_from_points
    from commscope.records.run import Pair, Point

    policy = Policy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        locator = Locator(6, "bw", policy.locate, seed=1)
        pairs = locator.plan()
        locator.record(pairs, np.full(len(pairs), 1e300))
        points = [Point(size=None, metrics={"bandwidth_MBps": 1e300}, pair=Pair(0, 1, "bw", "a", "b"))]
        matrix = matrix_from_points(points, 2)
    assert np.isinf(matrix.values["bw"][0, 1])


@pytest.mark.slow
def test_a_control_character_in_a_host_name_is_shown_escaped(cli, clean_env, db, tmp_path):
    simulate = f"{shlex.quote(sys.executable)} -m commscope.sweep.simulate"
    network = tmp_path / "network.json"
    hosts = [*HOSTS[:-1], "evil\nbad node cn000: \x1b[31mforged"]
    network.write_text(json.dumps({"seed": 7, "slow_nodes": {hosts[-1]: 0.3}}))
    oracle = f"{simulate} {shlex.quote(str(network))}"
    out = tmp_path / "verdict.json"
    result = cli(
        "sweep", "locate", "--hosts", ",".join(hosts), "--oracle", oracle, "--seed", "2", "--db", db, "--json", out
    )
    assert result.exit_code == 1, result.output
    assert "bad node evil\\x0abad node cn000: \\x1b[31mforged" in result.stderr
    assert "\x1b" not in result.stderr and "\nbad node cn000" not in result.stderr
    run_id = json.loads(out.read_text())["run_id"]
    shown = cli("show", run_id, "--db", db)
    assert "evil\\x0abad node cn000" in shown.stdout and "\x1b" not in shown.stdout


def test_a_control_character_in_a_host_name_is_escaped_in_a_link_sweep(cli, monkeypatch, tmp_path, clean_env):
    hosts = ["node01", "node02", "evil\nbad node node01: \x1b[31mforged", "node04"]
    planted = Planted(monkeypatch, tmp_path, hosts=hosts)
    result = cli("sweep", "all-pairs", "--hosts", ",".join(hosts), "--db", planted.db)
    assert result.exit_code == 1, result.output
    assert "bad node evil\\x0abad node node01: \\x1b[31mforged" in result.stderr
    assert "\x1b" not in result.output and "\nbad node node01" not in result.output
    shown = cli("show", "1", "--db", planted.db)
    assert "evil\\x0abad node node01" in shown.stdout and "\x1b" not in shown.stdout


def test_a_control_character_in_a_host_name_is_escaped_in_the_peak_line(cli, db):
    from fixtures.analysis.handmade import run_of, store_runs

    hosts = [{"name": "node01", "ranks": [0]}, {"name": "evil\n\x1b[31mforged", "ranks": [1]}]
    store_runs(db, [run_of({4096: 1000.0}, metric="bandwidth_MBps", benchmark="bw", hosts=hosts)])
    shown = cli("show", "last", "--db", db)
    assert shown.exit_code == 0, shown.output
    assert "no link inventory of" in shown.stdout and "evil\\x0a\\x1b[31mforged" in shown.stdout
    assert "\x1b" not in shown.stdout
