"""Selectors and --since as a hostile user types them: a run id beyond SQLite's 64 bits, an
age of 10^20 days, bytes that are not UTF-8, an empty --reference. Every analysis command
answers with a usage error naming the value (exit 2), never a traceback or exit 4."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.analysis.handmade import run_of, store_runs

HUGE = "99999999999999999999999"
NOT_UTF8 = "caf\udce9"  # b"caf\xe9" (Latin-1) as Python carries it from a command line

#: Each analysis command with what it needs besides its selectors.
COMMANDS = {
    "history": [],
    "compare": [],
    "report": ["-o", "{tmp}/report.html"],
    "check": ["--baseline", "none-such"],
    "model": [],
    "plot": ["-o", "{tmp}/plot.svg"],
    "baseline set": ["name"],
}


@pytest.fixture
def stored(db, clean_env) -> Path:
    store_runs(db, [run_of({1: 1.0, 2: 1.1}, label="a"), run_of({1: 2.0, 2: 2.2}, label="b")])
    return db


def _run(cli, command: str, tmp_path: Path, *args: str):
    extra = [arg.format(tmp=tmp_path) for arg in COMMANDS[command]]
    return cli(*command.split(), *extra, *args)


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([HUGE], f"'{HUGE}' is not a run id"),
        (["invocation:" + HUGE], f"'{HUGE}' is not an invocation"),
        (["²"], "'²' is not a run id"),  # a digit to str.isdigit(), not to int()
        (["--since", "99999999999999999999d"], "'99999999999999999999d' reaches back before the year 1"),
        (["--since", "9999999999w"], "'9999999999w' reaches back before the year 1"),
        ([NOT_UTF8], "selector 'caf\\xe9' is not valid UTF-8"),
        (["1", "--benchmark", NOT_UTF8], "--benchmark 'caf\\xe9' is not valid UTF-8"),
    ],
    ids=["run-id", "invocation", "superscript", "since-days", "since-weeks", "selector", "benchmark"],
)
def test_impossible_selection_is_a_usage_error_naming_it(cli, stored, tmp_path, command, args, message):
    before = stored.read_bytes()
    result = _run(cli, command, tmp_path, *args, "--db", str(stored))
    assert result.exit_code == 2, result.output
    assert message in result.stderr, result.stderr
    assert "Traceback" not in result.output
    assert stored.read_bytes() == before


def test_empty_reference_is_refused_not_ignored(cli, stored):
    for value in ("", "  "):
        result = cli("compare", "1", "--reference", value, "--db", stored)
        assert result.exit_code == 2, result.output
        assert "names no reference (`--reference list` lists them)" in result.stderr


@pytest.mark.parametrize("command", ["show", "export", "delete"])
def test_a_digit_int_cannot_read_is_no_run_id(cli, stored, command):
    result = cli(command, "²", "--db", stored)
    assert result.exit_code == 2 and "'²' is not a run id" in result.stderr, result.output
