"""`commscope sweep` refuses what it cannot use before it measures (exit 2, the flag or file
and the value named, no traceback), and what goes wrong after measuring never loses the
stored sweep. The network is the planted one of the report tests (no launcher, no core):
`launches` counts what would have been measured."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path

import pytest

from fixtures.analysis.sweep_runs import PlantedNetwork

HOSTS = ["node01", "node02", "node03", "node04"]


class Planted:
    def __init__(self, monkeypatch, tmp_path: Path, hosts=HOSTS, on_launch=None, bad_node: int | None = 2) -> None:
        import commscope.sweep.run as sweep_run

        self.network = PlantedNetwork(list(hosts), bad_node=bad_node)
        self.launches: list[list[str]] = []
        self.db = tmp_path / "sweep.db"
        self.on_launch = on_launch
        monkeypatch.setattr(sweep_run, "find_core", lambda: Path("commscope-bench"))
        monkeypatch.setattr(sweep_run, "core_mpi_flavour", lambda core: "openmpi")
        monkeypatch.setattr(sweep_run, "resolve_launcher", lambda choice, flavour, environ=None: None)
        monkeypatch.setattr(sweep_run.Sweeper, "launch", lambda sweeper, flags, signals: self.launch(flags))
        monkeypatch.setenv("COMMSCOPE_SWEEP_TMP", str(tmp_path))

    def launch(self, flags):
        self.launches.append(flags)
        if self.on_launch:
            self.on_launch(len(self.launches))
        return self.network.run(flags)

    def stored(self) -> int:
        if not self.db.exists():
            return 0
        with sqlite3.connect(self.db) as conn:
            return conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]


@pytest.fixture
def planted(monkeypatch, tmp_path, clean_env):
    return Planted(monkeypatch, tmp_path)


def sweep(cli, planted, *args):
    return cli("sweep", "all-pairs", "--hosts", ",".join(planted.network.hosts), "--db", planted.db, *args)


def refused(result, *words):
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.stderr, result.stderr


# -- 1: --json and --plot -------------------------------------------------------------


@pytest.mark.parametrize("option", ["--json", "--plot"])
def test_an_output_path_that_cannot_be_written_is_refused_before_measuring(cli, planted, tmp_path, option):
    (tmp_path / "a-file").write_text("")
    for path in (tmp_path / "missing" / "out", tmp_path / "a-file" / "out"):
        refused(sweep(cli, planted, option, path), option, str(path))
    assert planted.launches == [] and planted.stored() == 0
    assert not (tmp_path / "missing").exists()


def test_an_output_path_that_goes_away_while_measuring_keeps_the_stored_sweep(cli, monkeypatch, tmp_path, clean_env):
    folder = tmp_path / "out"
    folder.mkdir()

    def replace_folder(launch: int) -> None:  # by a file, while the sweep measures
        if folder.is_dir():
            folder.rmdir()
            folder.write_text("")

    planted = Planted(monkeypatch, tmp_path, on_launch=replace_folder)
    result = sweep(cli, planted, "--json", folder / "m.json", "--plot", folder / "plots")
    assert result.exit_code == 2, result.output
    assert f"cannot write --json {folder / 'm.json'}" in result.stderr
    assert f"cannot write --plot {folder / 'plots'}" in result.stderr
    assert "stored sweep run 1, retest run 2" in result.stderr
    assert planted.stored() == 2


# -- 2: the folder of the core's stream -------------------------------------------------


def test_a_bad_sweep_tmp_is_refused_before_measuring(cli, planted, tmp_path, clean_env):
    (tmp_path / "a-file").write_text("")
    for value, why in ((tmp_path / "missing", "no such folder"), (tmp_path / "a-file", "not a folder")):
        clean_env.setenv("COMMSCOPE_SWEEP_TMP", str(value))
        refused(sweep(cli, planted), f"COMMSCOPE_SWEEP_TMP={value}", why)
    assert planted.launches == [] and planted.stored() == 0


def test_a_deleted_working_folder_is_refused_before_measuring(cli, planted, tmp_path, clean_env):
    clean_env.delenv("COMMSCOPE_SWEEP_TMP")
    gone = tmp_path / "gone"
    gone.mkdir()
    clean_env.chdir(gone)
    gone.rmdir()
    refused(sweep(cli, planted), "the current folder no longer exists", "COMMSCOPE_SWEEP_TMP")
    assert planted.launches == []


def test_an_unwritable_working_folder_is_refused_before_measuring(cli, planted, clean_env, monkeypatch):
    import commscope.sweep.inputs as inputs

    clean_env.delenv("COMMSCOPE_SWEEP_TMP")
    monkeypatch.setattr(inputs, "_writable", lambda folder: False)  # a read-only mount (root writes elsewhere)
    refused(sweep(cli, planted), f"the current folder {os.getcwd()} cannot be written", "COMMSCOPE_SWEEP_TMP")
    assert planted.launches == []


# -- 3: host names that are not UTF-8 ---------------------------------------------------


@pytest.mark.parametrize("mode", ["all-pairs", "locate"])
def test_a_hostfile_that_is_not_utf8_is_refused_with_its_line(cli, planted, tmp_path, mode):
    hostfile = tmp_path / "hosts"
    hostfile.write_bytes(b"".join(f"n{i}\n".encode() for i in range(7)) + b"n\xff9\n")
    result = cli("sweep", mode, "--hostfile", hostfile, "--db", planted.db)
    refused(result, f"{hostfile}:8: hostfile is not UTF-8")
    assert planted.launches == [] and planted.stored() == 0


def test_a_host_that_is_not_utf8_is_refused_by_name(cli, planted):
    result = cli("sweep", "all-pairs", "--hosts", "node01,n\udcff", "--db", planted.db)
    refused(result, "--hosts", "not valid UTF-8: 'node01,n\\xff'")
    assert planted.launches == [] and planted.stored() == 0


# -- 4: a signal during the retest --------------------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_the_retest_exits_3_with_both_runs_stored(cli, monkeypatch, tmp_path, clean_env, signum):
    def stop_at_the_retest(launch: int) -> None:
        if launch == 2:
            os.kill(os.getpid(), signum)

    planted = Planted(monkeypatch, tmp_path, on_launch=stop_at_the_retest)
    result = sweep(cli, planted)
    assert result.exit_code == 3, result.output
    assert "interrupted" in result.stderr and "Traceback" not in result.output
    assert "bad node" not in result.stderr  # no verdict from half a retest
    assert planted.stored() == 2


# -- 5: --baseline ------------------------------------------------------------------------


def store_a_curve(db: Path) -> int:
    from commscope.records.invocation import invocation
    from commscope.records.run import Point, Run
    from commscope.store.db import Store

    with Store(db) as store:
        run = Run(benchmark="latency", ranks=2, points=[Point(size=8, metrics={"latency_us": 1.5})])
        return store.add_run(run, store.add_invocation(invocation("test", ["test"])))


@pytest.mark.parametrize(
    "baseline, message",
    [
        ("99", "--baseline 99: no run 99 in"),
        ("2", "--baseline 2: run 2 is the serial retest of sweep run 1, not a sweep"),
        ("3", "--baseline 3: run 3 is a curve run, not a link sweep"),
    ],
)
def test_a_baseline_that_is_no_sweep_is_refused_before_measuring(cli, planted, baseline, message):
    assert sweep(cli, planted).exit_code == 1  # runs 1 (the sweep) and 2 (its retest)
    assert store_a_curve(planted.db) == 3
    planted.launches.clear()
    refused(sweep(cli, planted, "--baseline", baseline), message)
    assert planted.launches == [] and planted.stored() == 3


def test_a_baseline_with_no_host_in_common_fails_like_check(cli, monkeypatch, tmp_path, clean_env):
    before = Planted(monkeypatch, tmp_path, bad_node=None)
    assert sweep(cli, before).exit_code == 0
    after = Planted(monkeypatch, tmp_path, hosts=["other1", "other2", "other3", "other4"], bad_node=None)
    result = sweep(cli, after, "--baseline", "1")
    assert result.exit_code == 1, result.output
    assert "hosts of baseline run 1 missing: node01, node02, node03, node04" in result.stderr


# -- 7: hosts and options that do not apply ---------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["all-pairs", "--hosts", "a,"], "'a,' holds an empty host name"),
        (["all-pairs", "--hosts", "a,,b"], "'a,,b' holds an empty host name"),
        (["all-pairs", "--hosts", "n1:4,n2"], "--hosts n1:4: a sweep runs one rank per host"),
        (["all-pairs", "--hosts", "a,b", "--np", "4"], "--np does not apply to all-pairs"),
        (["one-to-all", "--hosts", "a,b", "--np", "4"], "--np does not apply to one-to-all"),
        (["intra", "--from", "a"], "--from does not apply to intra"),
        (["all-pairs", "--hosts", "a,b", "--from", "a"], "--from does not apply to all-pairs"),
    ],
)
def test_hosts_and_options_a_mode_cannot_use_are_refused(cli, planted, args, message):
    refused(cli("sweep", *args, "--db", planted.db), message)
    assert planted.launches == []


# -- 6: more ranks than cores on one host -------------------------------------------------


def test_two_ranks_on_one_core_are_told_apart():
    from commscope.analysis.sweep import matrix_from_run

    labels = matrix_from_run(PlantedNetwork(["vm"] * 3, cpus=[0, 1, 0]).run(["--schedule", "all-pairs"])).labels
    assert len(set(labels)) == 3, labels
    assert labels[1] == "vm:1"  # a rank alone on its core keeps host:cpu


def test_intra_with_more_ranks_than_cores_says_pinning_is_off(cli, clean_env, fake_core, monkeypatch, tmp_path):
    import commscope.sweep.run as sweep_run
    from commscope.sweep.modes.intra import INTRA, NP, PIN_ENV

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    clean_env.setenv("COMMSCOPE_SWEEP_TMP", str(tmp_path))
    sweeper = sweep_run.Sweeper(sweep_run.SweepRequest(mode=INTRA, own={NP.dest: 3}, launcher="mpirun"))
    _, item = sweeper._planned(["--schedule", "all-pairs"])
    assert not set(PIN_ENV) & set(item.command.env)
    assert "--bind-to" in item.command.argv and item.command.argv[item.command.argv.index("--bind-to") + 1] == "none"
    planted = Planted(monkeypatch, tmp_path, hosts=["vm"] * 3)
    result = cli("sweep", "intra", "--np", "3", "--db", planted.db, "--no-retest")
    assert "intra: 3 ranks on 2 cores: ranks outnumber cores, so they are not pinned" in result.stderr


# -- 8: thousands of hosts ----------------------------------------------------------------

RECORDING_LAUNCHER = """#!{python}
import json, os, sys
if sys.argv[1:] == ["--version"]:
    print({version!r})
    sys.exit(0)
argv = sys.argv[1:]
named = {{}}
for flag in ("--hostfile", "-f", "-w"):
    if flag in argv:
        with open(argv[argv.index(flag) + 1]) as handle:
            named = {{"flag": flag, "lines": handle.read().splitlines()}}
with open(os.environ["RECORD"], "w") as out:
    json.dump({{"argv": argv, "bytes": sum(len(arg) + 1 for arg in argv), "hostfile": named}}, out)
sys.exit(1)
"""


@pytest.mark.parametrize(
    "program, version, flag, line",
    [
        ("mpirun", "mpirun (Open MPI) 5.0.0-fake", "--hostfile", "{} slots=1"),
        ("mpiexec", "HYDRA build details:", "-f", "{}:1"),
        ("srun", "slurm 23.02.0", "-w", "{}"),
    ],
)
def test_thousands_of_long_host_names_go_to_the_launcher_in_a_file(
    cli, clean_env, fake_core, tmp_path, program, version, flag, line
):
    import json
    import sys

    launcher = tmp_path / "bin" / program
    launcher.parent.mkdir()
    launcher.write_text(RECORDING_LAUNCHER.format(python=sys.executable, version=version))
    launcher.chmod(0o755)
    record = tmp_path / "record.json"
    clean_env.setenv("RECORD", str(record))
    clean_env.setenv("COMMSCOPE_SWEEP_TMP", str(tmp_path))
    hosts = [f"node{i:05d}.{'rack-and-row-and-room-of-a-long-domain-name.' * 4}example.org" for i in range(4000)]
    hostfile = tmp_path / "hosts"
    hostfile.write_text("".join(f"{host}\n" for host in hosts))
    result = cli("sweep", "all-pairs", "--hostfile", hostfile, "--launcher", launcher, "--db", tmp_path / "r.db")
    assert result.exit_code == 1, result.output  # the recording launcher measures nothing
    assert "Argument list too long" not in result.output
    launched = json.loads(record.read_text())
    assert launched["bytes"] < 4096, launched["argv"]
    assert launched["hostfile"] == {"flag": flag, "lines": [line.format(host) for host in hosts]}
    assert not list(tmp_path.glob("commscope-*"))  # the launcher's hostfile is gone with the launch
