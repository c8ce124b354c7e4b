"""The runner reads each launch's record stream once, and says what it has to say through
a reporter: the terminal's for `commscope run`, a quiet one for a caller with its own table."""

from __future__ import annotations

import pytest

from commscope.execute import stream as stream_module
from commscope.execute.reporter import QuietReporter, TerminalReporter
from commscope.records.run import Point, Run
from commscope.store.db import Store


@pytest.mark.slow
def test_a_launch_record_is_read_and_schema_checked_once(cli, fake_core, db, clean_env):
    header_checks = []
    check = stream_module._schema_problem

    def counted(validator, instance):
        if validator is stream_module._validators()[0]:
            header_checks.append(instance)
        return check(validator, instance)

    clean_env.setattr(stream_module, "_schema_problem", counted)
    result = cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:64")
    assert result.exit_code == 0, result.output
    with Store(db, create=False) as store:
        (run,) = [store.run(row.id) for row in store.summaries()]
    assert run.status == "complete" and run.points
    assert len(header_checks) == 1  # the runner's reading while following is the one the run is made of


def _run(status: str = "complete", reason: str | None = None) -> Run:
    return Run(
        benchmark="latency",
        status=status,
        status_reason=reason,
        points=[Point(size=1, metrics={"latency_us": 1.5})],
        raw={"stdout": b"# OSU MPI Latency Test\n1  1.50\n", "stderr": b"rank 1: connection refused\n"},
    )


def test_the_terminal_reporter_prints_the_core_table_and_a_summary(capsys):
    TerminalReporter().launched(_run(), 1.0)
    out, err = capsys.readouterr()
    assert "# OSU MPI Latency Test" in out
    assert "latency: complete, 1 points in 1.0 s" in err


def test_the_quiet_reporter_says_only_what_went_wrong(capsys):
    QuietReporter().launched(_run(), 1.0)
    assert capsys.readouterr() == ("", "")
    QuietReporter().launched(_run("failed", "exit status 1"), 1.0)
    out, err = capsys.readouterr()
    assert out == ""
    assert "latency: failed: exit status 1" in err and "rank 1: connection refused" in err
