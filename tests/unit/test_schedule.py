"""`commscope schedule`: entries in a marked block of a stand-in crontab or scrontab (the
user's own lines kept), the cron times of --every, and an entry's command run as cron would,
storing its runs and gating them with check."""

from __future__ import annotations

import os
import subprocess

import pytest

from commscope.cluster.schedule import BEGIN, END, cron_times, entries, with_entry, without_entry
from commscope.store.db import Store
from paths import FAKES

USER_LINES = "MAILTO=ops@example.org\n15 3 * * * /usr/local/bin/backup\n"


def _only_scheduler(clean_env, tmp_path, name: str):
    """A stand-in for `name` (crontab or scrontab) as the only scheduler on PATH, its table
    in a file holding the user's own lines."""
    programs = tmp_path / "schedulers"
    programs.mkdir()
    (programs / name).symlink_to(FAKES / "schedulers" / "crontab")
    kept = tmp_path / "table"
    kept.write_text(USER_LINES)
    clean_env.setenv("FAKE_CRONTAB", str(kept))
    clean_env.setenv("PATH", f"{programs}{os.pathsep}{FAKES}{os.pathsep}/usr/bin:/bin")
    return kept


@pytest.fixture
def table(clean_env, tmp_path):
    return _only_scheduler(clean_env, tmp_path, "crontab")


@pytest.fixture
def slurm_table(clean_env, tmp_path):
    return _only_scheduler(clean_env, tmp_path, "scrontab")


def test_cron_times_of_periods():
    assert cron_times("30m") == "*/30 * * * *"
    assert cron_times("6h", "02:15") == "15 */6 * * *"
    assert cron_times("1d", "03:30") == "30 3 * * *"
    assert cron_times("1w") == "0 2 * * 1"


def test_the_block_keeps_the_users_lines_and_replaces_an_entry_by_name():
    table = with_entry(USER_LINES, "a", ["# commscope-entry a: one", "0 2 * * * true"])
    table = with_entry(table, "b", ["# commscope-entry b: two", "0 3 * * * true"])
    table = with_entry(table, "a", ["# commscope-entry a: one again", "0 4 * * * true"])
    assert table.startswith(USER_LINES) and table.count(BEGIN) == 1 and table.rstrip().endswith(END)
    assert entries(table) == {
        "a": ["# commscope-entry a: one again", "0 4 * * * true"],
        "b": ["# commscope-entry b: two", "0 3 * * * true"],
    }
    assert without_entry(without_entry(table, "a"), "b") == USER_LINES


def test_schedule_writes_lists_and_removes_a_cron_entry(cli, table, db):
    result = cli("schedule", "quick", "--every", "1d", "--baseline", "ref", "--db", db, "--", "-m", "1:64")
    assert result.exit_code == 0, result.output
    assert "baseline 'ref' has no runs" in result.output
    written = table.read_text()
    assert written.startswith(USER_LINES) and "#SCRON" not in written
    [line] = [line for line in written.splitlines() if line.startswith("0 2 * * * ")]
    assert (
        "run quick --label quick --bind core -- -m 1:64 && " in line
        and "check --last-invocation --baseline ref" in line
    )
    listed = cli("schedule", "--list")
    assert listed.exit_code == 0 and "# commscope-entry quick: quick every 1d, gated by baseline ref" in listed.output
    assert cli("schedule", "--remove", "quick").exit_code == 0
    assert table.read_text() == USER_LINES


def test_scrontab_entry_asks_slurm_for_its_allocation(cli, slurm_table, db):
    result = cli(
        "schedule", "pt2pt", "--every", "6h", "--at", "00:10", "--nodes", "2", "--ntasks-per-node", "1",
        "--partition", "batch", "--baseline", "ref", "--name", "nightly", "--dry-run", "--db", db,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = entries(result.output)["nightly"]
    assert lines[1:5] == [
        "#SCRON --job-name=commscope-nightly",
        lines[2],
        "#SCRON --nodes=2",
        "#SCRON --ntasks-per-node=1",
    ]
    assert lines[2].startswith("#SCRON --output=") and lines[2].endswith("/commscope-nightly-%j.out")
    assert "#SCRON --partition=batch" in lines and "#SCRON --time=1:00:00" in lines
    assert lines[-1].startswith("10 */6 * * * cd ")
    assert slurm_table.read_text() == USER_LINES  # a dry run changes nothing


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["quick", "--every", "7m", "--baseline", "ref"], "cron repeats periods that divide the hour"),
        (["quick", "--every", "1d"], "give SUITE, --every and --baseline"),
        (["--remove", "nosuch"], "no scheduled check 'nosuch'"),
        (["quick", "--every", "1d", "--baseline", "ref", "--partition", "a b"], "must be one word"),
        (["quick", "--every", "1d", "--baseline", "ref", "--env", "A=50%"], "cannot hold %"),
    ],
)
def test_bad_schedules_are_usage_errors(cli, table, argv, message):
    result = cli("schedule", *argv)
    assert result.exit_code == 2 and message in result.output, result.output
    assert table.read_text() == USER_LINES


def test_an_entrys_command_stores_its_runs_and_gates_them(cli, fake_core, table, db, tmp_path):
    assert cli("run", "latency", "--label", "accepted", "--db", db).exit_code == 0
    assert cli("baseline", "set", "ref", "accepted", "--db", db).exit_code == 0
    cli("schedule", "latency", "--every", "1d", "--baseline", "ref", "--db", db)
    line = next(line for line in table.read_text().splitlines() if line.startswith("0 2 * * * "))
    done = subprocess.run(["sh", "-c", line.split(" ", 5)[5]], timeout=120)
    log = tmp_path / "xdg-data" / "commscope" / "schedule" / "latency.log"
    assert done.returncode == 0, log.read_text()
    assert "PASS against baseline 'ref'" in log.read_text()
    with Store(db) as store:
        assert [run.label for run in store.summaries()] == ["latency", "accepted"]
