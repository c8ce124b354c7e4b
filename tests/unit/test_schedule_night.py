"""`commscope schedule` after the check: the entry's --on-failure locate [--drain] and its
publication (--textfile, --push) on the entry's command line, refused where they cannot
work; and a night run as cron runs it, with no database where it runs: the metrics written
from the runs kept in the job folder, a Pushgateway that is down said once with the runs
kept, and a failed check followed by a locate (the simulator standing in for the fabric)
whose run `collect` stores beside the check's, under the same label."""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from test_drain import scontrol, updates  # noqa: F401 (scontrol: a fixture)
from test_schedule import USER_LINES, _entry_command, slurm_table, table  # noqa: F401 (fixtures)

from commscope.cluster.schedule import entries
from commscope.kinds import LOCATE_SWEEP, kind_of
from commscope.records.invocation import invocation
from commscope.store.db import Store

HOSTS = [f"cn{i:03d}" for i in range(12)]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_entry_runs_locate_and_publishes_as_asked(cli, slurm_table, db, tmp_path):  # noqa: F811
    result = cli(
        "schedule", "pt2pt", "--every", "1d", "--nodes", "6", "--baseline", "ref", "--dry-run", "--db", db,
        "--on-failure", "locate", "--drain", "--locate-args", "--metric latency --detect 30",
        "--textfile", tmp_path / "prom", "--push", "http://gateway:9091", "--group", "night",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    line = entries(result.output)["pt2pt"][-1]
    assert (
        f" --baseline ref --on-failure locate --drain --locate-args '--metric latency --detect 30' "
        f"--textfile {tmp_path / 'prom'} --push http://gateway:9091 --group night -- pt2pt --label pt2pt"
    ) in line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--nodes", "4", "--on-failure", "locate"], "sweep locate needs at least 6 nodes; --nodes 4 gives 4"),
        (["--on-failure", "locate"], "sweep locate needs at least 6 nodes; no --nodes gives 1"),
        (["--nodes", "8", "--drain"], "--drain goes with --on-failure locate"),
        (["--nodes", "8", "--on-failure", "locate", "--locate-args", "--db x.db"], "--db is the entry's to set"),
        (["--nodes", "8", "--on-failure", "locate", "--locate-args", "--seed '2"], "No closing quotation"),
        (["--textfile", "/tmp/a\u2028b"], "cannot hold '\\u2028'"),
        (["--push", "gateway:9091"], "give the Pushgateway's http:// or https:// address"),
    ],
)
def test_what_cannot_work_at_night_is_refused_now(cli, slurm_table, db, argv, message):  # noqa: F811
    result = cli("schedule", "pt2pt", "--every", "1d", "--baseline", "ref", "--db", db, *argv)
    assert result.exit_code == 2 and message in result.output, result.output
    assert slurm_table.read_text() == USER_LINES


def test_a_cron_entry_locates_only_hosts_it_is_given(cli, table, db):  # noqa: F811
    result = cli("schedule", "quick", "--every", "1d", "--baseline", "ref", "--on-failure", "locate", "--db", db)
    assert result.exit_code == 2 and "a cron entry has no allocation to sweep" in result.output, result.output
    assert table.read_text() == USER_LINES


def _accepted(cli, db, faster: float = 1.0) -> None:
    """Baseline `ref`: a latency run, its latencies times `faster` (0.5: twice as fast as the
    fake core measures, so that a night's run is a regression)."""
    assert cli("run", "latency", "--label", "accepted", "--db", db).exit_code == 0
    with Store(db) as store:
        run = store.run(store.summaries()[0].id)
        for point in run.points:
            point.metrics = {
                name: value * faster if name.startswith("latency") and isinstance(value, float) else value
                for name, value in point.metrics.items()
            }
            point.stats = {name: value * faster for name, value in point.stats.items()}  # the time per op
        run.id = None
        kept = store.add_run(run, store.add_invocation(invocation("test", ["baseline"])))
    assert cli("baseline", "set", "ref", kept, "--db", db).exit_code == 0


def _night(table, db, tmp_path):  # noqa: F811
    """The entry's command run as cron runs it, the database out of reach; its log and job."""
    away = db.rename(tmp_path / "elsewhere.db")
    done = subprocess.run(["sh", "-c", _entry_command(table)], timeout=300)
    assert not db.exists()  # nothing opened it, nothing made it
    away.rename(db)
    folder = tmp_path / "xdg-data" / "commscope" / "schedule"
    [job] = (folder / "latency" / "jobs").iterdir()
    return done.returncode, (folder / "latency.log").read_text(), job


@pytest.mark.slow
def test_a_night_publishes_its_runs_and_verdict_without_the_database(cli, fake_core, table, db, tmp_path):  # noqa: F811
    _accepted(cli, db)
    url = f"http://127.0.0.1:{_closed_port()}"
    prom = tmp_path / "prom"
    prom.mkdir()  # node_exporter's textfile folder
    argv = ["latency", "--every", "1d", "--baseline", "ref", "--textfile", prom, "--push", url, "--db", db]
    assert cli("schedule", *argv).exit_code == 0
    code, log, job = _night(table, db, tmp_path)
    assert code == 0 and "PASS against baseline 'ref'" in log, log  # the push's failure leaves the pass
    assert log.count(f"--push {url}: cannot reach the Pushgateway") == 1, log
    written = (prom / "commscope_latency.prom").read_text()
    assert 'commscope_check_failed{baseline="ref",label="latency",system=' in written
    assert [line.split()[-1] for line in written.splitlines() if line.startswith("commscope_check_failed{")] == ["0.0"]
    assert "commscope_check_end_timestamp_seconds{" in written
    assert 'commscope_latency_seconds{benchmark="latency",label="latency"' in written
    verdict = json.loads((job / "check.json").read_text())
    assert verdict["passed"] is True and verdict["published"] is False and "locate" not in verdict
    assert (job / "exit-status").read_text() == "0\n"
    collected = cli("collect", "--db", db)
    assert collected.exit_code == 0 and "stored 1 run(s)" in collected.output, collected.output


def failing_entry(cli, db, tmp_path) -> Path:
    """Entry `latency` whose check fails (its baseline twice as fast), followed by a locate of
    HOSTS against the simulator with cn005 at half its speed; the metrics to a textfile
    folder, returned."""
    _accepted(cli, db, faster=0.5)
    network = tmp_path / "network.json"
    network.write_text(json.dumps({"seed": 7, "slow_nodes": {"cn005": 0.5}}))
    oracle = f"{sys.executable} -m commscope.sweep.simulate {network}"
    locate_args = f"--hosts {','.join(HOSTS)} --oracle {shlex.quote(oracle)} --seed 2"
    prom = tmp_path / "prom"
    prom.mkdir()
    argv = ["latency", "--every", "1d", "--baseline", "ref", "--on-failure", "locate", "--locate-args", locate_args]
    assert cli("schedule", *argv, "--textfile", prom, "--db", db).exit_code == 0
    return prom


@pytest.mark.slow
def test_a_failed_night_runs_locate_and_collect_stores_both(cli, fake_core, table, db, tmp_path):  # noqa: F811
    prom = failing_entry(cli, db, tmp_path)
    code, log, job = _night(table, db, tmp_path)
    assert code == 1 and "FAIL against baseline 'ref'" in log, log
    assert "the check failed: sweep locate on the job's nodes" in log and "bad node cn005" in log, log
    verdict = json.loads((job / "check.json").read_text())
    located = verdict["locate"]
    assert verdict["passed"] is False and located["exit_status"] == 1 and located["bad_nodes"] == ["cn005"]
    assert located["drain"] is False and len(located["files"]) == 1 and (job / "runs" / located["files"][0]).is_file()
    written = (prom / "commscope_latency.prom").read_text()
    assert 'commscope_sweep_host_bad{host="cn005",label="latency",metric="bw",system=' in written
    assert [line.split()[-1] for line in written.splitlines() if line.startswith("commscope_check_failed{")] == ["1.0"]
    collected = cli("collect", "--db", db)
    assert collected.exit_code == 0 and "stored 2 run(s)" in collected.output, collected.output
    with Store(db) as store:
        runs = [store.run(summary.id) for summary in store.summaries(label="latency")]
    [sweep] = [run for run in runs if kind_of(run) is LOCATE_SWEEP]
    [check] = [run for run in runs if run is not sweep]
    assert sweep.provenance["schedule"] == {"role": "locate", "entry": "latency", "folder": str(job)}
    assert check.provenance["schedule"] == {"entry": "latency", "folder": str(job)}
    listed = cli(
        "list", "runs", "--label", "latency", "--db", db
    )  # the label selects the night: the check and its locate
    assert listed.exit_code == 0 and f"{sweep.id} " in listed.output and f"{check.id} " in listed.output, listed.output


@pytest.mark.slow
def test_a_failed_night_drains_with_a_reason_naming_its_job(cli, fake_core, table, db, tmp_path, scontrol, clean_env):  # noqa: F811
    """The night's locate stores into a scratch database (run 1, always): the reason names the
    night's job instead, whose runs `collect` stores (outside Slurm, as here, the job's folder;
    under scrontab the Slurm job: tests/cluster/test_schedule.py)."""
    clean_env.setenv("PATH", f"{tmp_path / 'schedulers'}:{os.environ['PATH']}")  # crontab and scontrol stand-ins
    _accepted(cli, db, faster=0.5)
    network = tmp_path / "network.json"
    network.write_text(json.dumps({"seed": 7, "slow_nodes": {"cn005": 0.5}}))
    oracle = f"{sys.executable} -m commscope.sweep.simulate {network}"
    # the core's flags last, after `--`, as a user gives them: --drain goes before them
    locate_args = f"--hosts {','.join(HOSTS)} --oracle {shlex.quote(oracle)} --seed 2 -- --bw-size 64K"
    argv = ["latency", "--every", "1d", "--baseline", "ref", "--on-failure", "locate", "--drain"]
    assert cli("schedule", *argv, "--locate-args", locate_args, "--db", db).exit_code == 0
    code, log, job = _night(table, db, tmp_path)
    assert code == 1 and "bad node cn005" in log, log
    (update,) = updates(scontrol)
    assert update.startswith("update NodeName=cn005 State=DRAIN Reason=commscope: bw "), update
    assert update.endswith(f", job folder {job.name}") and ", run 1" not in update, update
    assert json.loads((job / "check.json").read_text())["locate"]["drain"] is True


@pytest.mark.slow
def test_a_textfile_folder_missing_on_the_node_leaves_the_night_as_it_was(cli, fake_core, table, db, tmp_path):  # noqa: F811
    _accepted(cli, db)
    gone = tmp_path / "node-exporter"
    argv = ["latency", "--every", "1d", "--baseline", "ref", "--textfile", gone, "--db", db]
    assert cli("schedule", *argv).exit_code == 0
    code, log, job = _night(table, db, tmp_path)
    assert code == 0 and log.count(f"--textfile {gone}: no such folder") == 1, log
    assert json.loads((job / "check.json").read_text())["published"] is False
    assert (job / "exit-status").read_text() == "0\n"
    assert "stored 1 run(s)" in cli("collect", "--db", db).output


@pytest.mark.slow
def test_a_night_without_a_baseline_publishes_a_failed_check(cli, fake_core, table, db, tmp_path):  # noqa: F811
    assert cli("run", "latency", "--label", "accepted", "--db", db).exit_code == 0
    prom = tmp_path / "prom"
    prom.mkdir()
    argv = ["latency", "--every", "1d", "--baseline", "ref", "--textfile", prom, "--on-failure", "locate"]
    assert cli("schedule", *argv, "--locate-args", "--hosts a,b,c,d,e,f", "--db", db).exit_code == 0
    code, log, job = _night(table, db, tmp_path)
    assert code == 2 and "no baseline 'ref' kept in" in log and "sweep locate" not in log, log
    written = (prom / "commscope_latency.prom").read_text()
    assert [line.split()[-1] for line in written.splitlines() if line.startswith("commscope_check_failed{")] == ["1.0"]
    assert not (job / "check.json").exists() and (job / "exit-status").read_text() == "0\n"


@pytest.mark.parametrize(
    ("locate_args", "message"),
    [
        ("--hosts a,b", "locate needs at least 6 hosts, got 2"),
        ("--no-such-option", "No such option '--no-such-option'"),
        ("--detect nan", "Invalid value for '--detect': 'nan' is not a finite number"),
        ("--detect 95", "Invalid value for '--detect': 95.0 is not in the range 1<=x<=90"),
        ("--metric bw,latency", "locate judges one metric"),
        ("--seed -1", "Invalid value for '--seed'"),
        ("--rules /nonexistent/rules.yaml", "'/nonexistent/rules.yaml' does not exist"),
        ("--baseline 3", "--baseline does not apply to locate"),
    ],
)
def test_locate_args_are_checked_when_the_entry_is_written(cli, slurm_table, db, locate_args, message):  # noqa: F811
    result = cli(
        "schedule", "pt2pt", "--every", "1d", "--nodes", "8", "--baseline", "ref", "--db", db,
        "--on-failure", "locate", "--locate-args", locate_args,
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert f"--locate-args {locate_args!r}: " in result.output and message in result.output, result.output
    assert slurm_table.read_text() == USER_LINES


def test_locate_args_a_night_can_use_are_taken(cli, slurm_table, db, tmp_path):  # noqa: F811
    hostfile = tmp_path / "hosts"
    hostfile.write_text("".join(f"{host}\n" for host in HOSTS))
    for words in ("--metric latency --detect 30 --seed 4", f"--hostfile {hostfile}", "--hosts " + ",".join(HOSTS)):
        result = cli(
            "schedule", "pt2pt", "--every", "1d", "--nodes", "8", "--baseline", "ref", "--db", db,
            "--on-failure", "locate", "--locate-args", words, "--dry-run",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
