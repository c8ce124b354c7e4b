"""The command line: help, list, show, export, delete, --db and COMMSCOPE_DB."""

from __future__ import annotations

import csv
import io
import json
import re

import click
import pytest

import core_golden
from commscope.cli.main import main
from commscope.store.db import Store

COMMANDS = [
    ["run"],
    ["list"],
    ["list", "benchmarks"],
    ["list", "suites"],
    ["list", "runs"],
    ["show"],
    ["export"],
    ["delete"],
    ["import"],
]


@pytest.fixture
def stored(cli, fake_core, db):
    """A database with a latency and a bw run from the fake core."""
    result = cli("run", "latency", "bw", "--launcher", "mpirun", "--label", "base", "--db", db, "--", "-m", "1:4")
    assert result.exit_code == 0, result.output
    return db


def command_of(path: list[str]) -> click.Command:
    command = main
    for name in path:
        command = command.commands[name]
    return command


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_every_command_has_real_help(cli, path):
    result = cli(*path, "--help")
    assert result.exit_code == 0 and "Usage: " in result.stdout
    command = command_of(path)
    assert command.help and len(command.help) > 40, "the command explains itself"
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert param.help and len(param.help) > 15, f"{param.name} of `commscope {' '.join(path)}` has no help"
            assert param.opts[0] in result.stdout
    if not isinstance(command, click.Group):
        assert any(param.name == "db" for param in command.params), "every command takes --db"


def test_main_help_documents_exit_codes(cli):
    text = cli("--help").stdout
    for code in ("0  success", "1  a benchmark failed", "2  usage error", "3  interrupted"):
        assert code in text
    assert "Exit status" in cli("run", "--help").stdout


def test_version(cli):
    assert cli("--version").stdout.strip() == "commscope, version 0.1.0"


def test_list_suites_shows_the_format_and_the_suites(cli):
    result = cli("list", "suites")
    assert result.exit_code == 0
    assert "procurement: JUPITER procurement rules (jubench-osu)" in result.stdout
    assert "    bibw       -m 64M:64M" in result.stdout
    assert "placement: inter-node" in cli("list", "suites", "--help").stdout


@pytest.mark.slow
def test_list_benchmarks_counts_stored_runs(cli, stored):
    result = cli("list", "benchmarks", "--db", stored)
    assert result.exit_code == 0
    described = {name: core_golden.header(name)["benchmark"]["description"] for name in ("latency", "mbw_mr")}
    assert f"latency    {described['latency']}  [1 stored]\n" in result.stdout
    assert f"mbw_mr     {described['mbw_mr']}\n" in result.stdout


@pytest.mark.slow
def test_list_runs(cli, stored):
    result = cli("list", "runs", "--db", stored)
    assert result.exit_code == 0
    rows = [line.split() for line in result.stdout.splitlines()[1:]]
    assert [(row[0], row[3]) for row in rows] == [("2", "bw"), ("1", "latency")]  # started is "date time"
    assert all("complete" in row and "base" in row for row in rows)
    assert cli("list", "runs", "--benchmark", "bw", "--db", stored).stdout.count("latency") == 0
    assert "no runs" in cli("list", "runs", "--status", "failed", "--db", stored).stderr


@pytest.mark.slow
def test_db_comes_from_the_environment(cli, stored, clean_env):
    clean_env.setenv("COMMSCOPE_DB", str(stored))
    assert "latency" in cli("list", "runs").stdout


@pytest.mark.slow
def test_show_prints_provenance_then_the_table(cli, stored):
    result = cli("show", "1", "--db", stored)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "run 1: latency"
    text = result.stdout
    header = core_golden.header("latency")
    [host] = header["hosts"]
    for label, value in (
        ("status", "complete"),
        ("label", "base"),
        ("MPI", "MPICH 4.0.2"),
        ("CPU", header["cpu_model"]),
        ("hosts", f"{host['name']} (ranks {','.join(map(str, host['ranks']))})"),
        ("flags", "-m 1:4"),
        ("harness", "commscope 0.1.0"),
    ):  # the column of the values is as wide as the longest label the run has
        assert re.search(rf"^  {label} +{re.escape(value)}", text, re.MULTILINE), label
    assert "# Size       Avg Latency(us)" in lines
    assert lines[-1].startswith("4 ") and len(lines[-1]) == 28
    assert cli("show", "last", "--db", stored).stdout.splitlines()[0] == "run 2: bw"


@pytest.mark.slow
def test_show_prints_the_cores_own_table(cli, stored):
    """The table of a commscope-bench run is the text the core printed, as stored."""
    with Store(stored) as store:
        core_text = store.raw_outputs(1)["stdout"].decode()
    assert core_text.startswith(core_golden.table_head("latency"))
    assert cli("show", "1", "--db", stored).stdout.endswith("\n\n" + core_text)


def test_show_renders_runs_stored_before_the_core_text_was_kept(cli, db, clean_env):
    """Runs stored when the harness ran the core with --format json have JSON on stdout:
    their table is rendered from the points."""
    from commscope.records.invocation import invocation
    from commscope.records.run import Point, Run

    old = Run(
        benchmark="latency",
        launcher_argv=["mpirun", "commscope-bench", "latency", "--format", "json"],
        points=[Point(size=1, metrics={"latency_us": 1.5})],
        raw={"stdout": b'{"schema": "commscope-result"}'},
    )
    with Store(db) as store:
        store.add_run(old, store.add_invocation(invocation("run", ["commscope", "run"])))
    lines = cli("show", "1", "--db", db).stdout.splitlines()
    assert lines[-2:] == ["# Size       Avg Latency(us)", f"{1:<10d}{1.5:>18.2f}"]


@pytest.mark.slow
def test_show_raw_output(cli, stored):
    result = cli("show", "1", "--raw", "jsonl", "--db", stored)
    lines = result.stdout.splitlines()
    assert lines[0].startswith('{"started"') and lines[2].startswith('{"header"')  # the core's stream as it wrote it
    result = cli("show", "1", "--raw", "nope", "--db", stored)
    assert result.exit_code == 2 and "has no raw output 'nope'; it has: jsonl, stderr, stdout" in result.stderr


@pytest.mark.slow
def test_show_errors(cli, stored, db, tmp_path):
    assert cli("show", "99", "--db", stored).exit_code == 2  # an unknown run is a usage error
    assert "no run 99" in cli("show", "99", "--db", stored).stderr
    result = cli("show", "first", "--db", stored)
    assert result.exit_code == 2 and "'first' is not a run id" in result.stderr
    missing = tmp_path / "none.db"
    result = cli("show", "1", "--db", missing)
    assert result.exit_code == 4 and "no result database" in result.stderr and not missing.exists()


@pytest.mark.slow
def test_export_json(cli, stored, tmp_path):
    out = tmp_path / "runs.json"
    result = cli("export", "1", "2", "--format", "json", "-o", out, "--db", stored)
    assert result.exit_code == 0
    document = json.loads(out.read_text())
    assert (document["format"], document["version"]) == ("commscope-export", 1)
    assert [run["benchmark"] for run in document["runs"]] == ["latency", "bw"]
    latency = document["runs"][0]
    assert latency["mpi_library"] == "MPICH" and latency["points"][0]["size"] == 1
    assert latency["points"][0]["stats"]["p99"] > 0 and "raw" not in latency


@pytest.mark.slow
def test_export_csv_to_stdout(cli, stored):
    result = cli("export", "last", "--format", "csv", "--db", stored)
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [row["size"] for row in rows] == ["1", "2", "4"]
    assert rows[0]["benchmark"] == "bw" and float(rows[0]["bandwidth_MBps"]) > 0
    assert float(rows[0]["time_p99_us"]) > 0 and rows[0]["label"] == "base"


@pytest.mark.slow
def test_export_needs_a_format(cli, stored):
    result = cli("export", "1", "--db", stored)
    assert result.exit_code == 2 and "--format" in result.stderr


@pytest.mark.slow
def test_delete(cli, stored):
    result = cli("delete", "1", "--db", stored)
    assert result.exit_code == 0 and "deleted run 1" in result.stderr
    with Store(stored) as store:
        assert [row.id for row in store.summaries()] == [2]
    result = cli("delete", "2", "1", "--db", stored)
    assert result.exit_code == 2 and "no run 1" in result.stderr
    with Store(stored) as store:
        assert store.has_run(2)  # nothing deleted when one id is wrong
