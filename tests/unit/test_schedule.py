"""`commscope schedule`: entries in a marked block of a stand-in crontab or scrontab (the
user's own lines kept), the cron times of --every, and an entry's command run as cron would,
storing its runs and gating them with check."""

from __future__ import annotations

import os
import subprocess

import pytest

from commscope.cluster.schedule import BEGIN, END, cron_times, entries, with_entry, without_entry
from commscope.store.db import Store
from paths import FAKES, REPO

SUITES = REPO / "python" / "commscope" / "suites"

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
    folder = db.parent / "xdg-data" / "commscope" / "schedule" / "quick"
    assert f"-m commscope schedule run {folder} --baseline ref -- quick --label quick --bind core -- -m 1:64;" in line
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


def _entry_command(table) -> str:
    line = next(line for line in table.read_text().split("\n") if line.startswith("0 2 * * * "))
    return line.split(" ", 5)[5]


@pytest.mark.slow
def test_an_entry_judges_without_the_database_and_collect_stores_its_runs(cli, fake_core, table, db, tmp_path):
    assert cli("run", "latency", "--label", "accepted", "--db", db).exit_code == 0
    assert cli("baseline", "set", "ref", "accepted", "--db", db).exit_code == 0
    assert cli("schedule", "latency", "--every", "1d", "--baseline", "ref", "--db", db).exit_code == 0
    away = db.rename(tmp_path / "elsewhere.db")  # where the entry runs, the database cannot be reached
    done = subprocess.run(["sh", "-c", _entry_command(table)], timeout=120)
    folder = tmp_path / "xdg-data" / "commscope" / "schedule"
    log = (folder / "latency.log").read_text()
    assert done.returncode == 0 and "PASS against baseline 'ref'" in log, log
    assert not db.exists()  # nothing opened it, nothing made it
    [job] = (folder / "latency" / "jobs").iterdir()
    assert (job / "exit-status").read_text() == "0\n" and '"passed": true' in (job / "check.json").read_text()
    away.rename(db)
    collected = cli("collect", "--db", db)
    assert collected.exit_code == 0, collected.output
    assert f"job cron of scheduled check latency ({job.name}): stored 1 run(s)" in collected.output
    with Store(db) as store:
        assert [run.label for run in store.summaries()] == ["latency", "accepted"]
        run = store.run(store.summaries()[0].id)
    assert run.provenance["schedule"] == {"entry": "latency", "folder": str(job)} and run.job_id is None
    again = cli("collect", "--db", db)  # stored once
    assert again.exit_code == 0 and "no jobs to collect" in again.output, again.output


@pytest.mark.slow
def test_a_baseline_set_later_reaches_the_entry_with_collect(cli, fake_core, table, db, tmp_path):
    assert cli("run", "latency", "--label", "accepted", "--db", db).exit_code == 0
    scheduled = cli("schedule", "latency", "--every", "1d", "--baseline", "ref", "--db", db)
    assert scheduled.exit_code == 0 and "checks exit 2 until" in scheduled.output
    first = subprocess.run(["sh", "-c", _entry_command(table)], timeout=120)
    log = tmp_path / "xdg-data" / "commscope" / "schedule" / "latency.log"
    assert first.returncode == 2 and "no baseline 'ref' kept in" in log.read_text()
    assert cli("baseline", "set", "ref", "accepted", "--db", db).exit_code == 0
    assert cli("collect", "--db", db).exit_code == 0  # stores the first job, copies the baseline
    assert cli("schedule", "latency", "--every", "1d", "--baseline", "ref", "--db", db).exit_code == 0
    second = subprocess.run(["sh", "-c", _entry_command(table)], timeout=120)
    assert second.returncode == 0 and "PASS against baseline 'ref'" in log.read_text()
    collected = cli("collect", "--db", db)
    assert collected.exit_code == 0 and "stored 1 run(s)" in collected.output, collected.output
    with Store(db) as store:
        assert [run.label for run in store.summaries()] == ["latency", "latency", "accepted"]


@pytest.mark.slow
def test_a_job_without_an_exit_status_is_stored_once_a_later_one_started(cli, fake_core, table, db, tmp_path):
    assert cli("run", "latency", "--label", "accepted", "--db", db).exit_code == 0
    assert cli("baseline", "set", "ref", "accepted", "--db", db).exit_code == 0
    assert cli("schedule", "latency", "--every", "1d", "--baseline", "ref", "--db", db).exit_code == 0
    assert subprocess.run(["sh", "-c", _entry_command(table)], timeout=120).returncode == 0
    jobs = tmp_path / "xdg-data" / "commscope" / "schedule" / "latency" / "jobs"
    [killed] = jobs.iterdir()
    (killed / "exit-status").unlink()  # as if its time limit ended it, or it still runs
    assert "no jobs to collect" in cli("collect", "--db", db).output
    assert subprocess.run(["sh", "-c", _entry_command(table)], timeout=120).returncode == 0
    collected = cli("collect", "--db", db)
    assert collected.exit_code == 0, collected.output
    [later] = [job for job in jobs.iterdir() if job != killed]
    for job in (killed, later):
        assert f"job cron of scheduled check latency ({job.name}): stored 1 run(s)" in collected.output
    with Store(db) as store:
        assert [run.label for run in store.summaries()] == ["latency", "latency", "accepted"]


#: Every character Python's str.splitlines() ends a line at besides "\n".
LINE_ENDS = ["\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.slow
@pytest.mark.parametrize("end", LINE_ENDS, ids=[f"U+{ord(end):04X}" for end in LINE_ENDS])
@pytest.mark.parametrize("where", ["--label", "--baseline", "--env", "--name", "core flag", "suite file"])
def test_no_value_can_end_a_line_of_the_table(cli, fake_core, table, tmp_path, end, where):
    injected = f"x{end}* * * * * touch {tmp_path}/PWN #"
    argv = ["latency", "--every", "1d", "--baseline", "b", "--name", "first"]
    if where == "--env":
        argv += ["--env", f"A={injected}"]
    elif where == "core flag":
        argv += ["--", injected]
    elif where == "suite file":
        suite = tmp_path / f"{injected.replace('/', '_')}.yaml"
        suite.write_text((SUITES / "quick.yaml").read_text())
        argv[0] = str(suite)
    else:
        argv += [where, injected]
    result = cli("schedule", *argv)
    refused = "an entry's name is up to 64" if where == "--name" else f"cannot hold {end!r}"
    assert result.exit_code == 2 and refused in result.output, result.output
    assert table.read_text() == USER_LINES
    assert cli("schedule", "bw", "--every", "1d", "--baseline", "b", "--name", "second").exit_code == 0
    assert [line for line in table.read_text().split("\n") if "touch" in line] == []


def test_a_table_is_read_back_by_its_newlines_only():
    user = "15 3 * * * echo a\r* * * * * touch /tmp/x #\n"
    table = with_entry(user, "a", ["# commscope-entry a: one", "0 2 * * * true"])
    assert table.startswith(user) and without_entry(table, "a") == user
    injected = with_entry(USER_LINES, "a", ["# commscope-entry a: x\r* * * * * touch /tmp/x #", "0 2 * * * true"])
    assert list(entries(injected)) == ["a"] and without_entry(injected, "a") == USER_LINES


@pytest.mark.parametrize("name", ["my check", "a b --wrap=touch", "../../../../tmp/x", "-x", ".hidden", "a" * 65, "ü"])
def test_a_name_is_one_safe_word(cli, slurm_table, db, name):
    result = cli("schedule", "quick", "--every", "1d", "--baseline", "b", "--name", name, "--db", db)
    assert result.exit_code == 2 and f"--name {name!r}: an entry's name is up to 64 letters" in result.output
    assert slurm_table.read_text() == USER_LINES


def test_a_suite_files_name_must_make_a_name(cli, table, db, tmp_path):
    suite = tmp_path / "my suite.yaml"
    suite.write_text((SUITES / "quick.yaml").read_text())
    result = cli("schedule", str(suite), "--every", "1d", "--baseline", "b", "--db", db)
    assert result.exit_code == 2 and "(give --name)" in result.output, result.output
    assert cli("schedule", str(suite), "--every", "1d", "--baseline", "b", "--name", "mine", "--db", db).exit_code == 0


def test_an_unknown_suite_or_benchmark_is_refused(cli, fake_core, table, db):
    result = cli("schedule", "nosuch", "--every", "1d", "--baseline", "b", "--db", db)
    assert result.exit_code == 2 and "'nosuch' is neither a suite (collectives, full," in result.output
    assert "nor a benchmark (" in result.output and "latency" in result.output
    assert table.read_text() == USER_LINES


def test_dry_run_prints_exactly_what_is_written(cli, table, db):
    table.write_text("# \x1b[31mred\x1b[0m comment of the user's\n" + USER_LINES)
    argv = ("schedule", "quick", "--every", "1d", "--baseline", "b", "--db", db)
    dry = cli(*argv, "--dry-run")
    assert dry.exit_code == 0
    assert cli(*argv).exit_code == 0
    assert dry.stdout == table.read_text() and "\x1b[31m" in dry.stdout
