"""--time-limit of `run` and `submit` (issue 45): durations as people write them, bad ones a
usage error that names the option and stores nothing, the plan said before anything starts,
each launch given its share (`commscope-bench --time-limit`), a launch still running one
start-up past the limit stopped with what it measured kept, and congestion's own default.
The fake core stands in for the real one, which sizes its iterations to the share
(tests/mpi/test_core_time_limit.py, tests/c/test_budget.c)."""

from __future__ import annotations

import re

import pytest

from commscope.errors import UsageError
from commscope.execute import time_limit
from commscope.execute.time_limit import TimeLimit
from commscope.records.duration import format_duration, parse_duration
from commscope.store.db import Store


def stored(db):
    """The runs in the order they were measured."""
    with Store(db, create=False) as store:
        return [store.run(row.id) for row in sorted(store.summaries(), key=lambda row: row.id)]


def core_limit(run) -> float:
    argv = run.launcher_argv
    return float(argv[argv.index("--time-limit") + 1])


@pytest.mark.parametrize(
    "text, seconds",
    [("240", 240), ("240s", 240), ("4m", 240), ("4 min", 240), ("1h30m", 5400), ("2.5m", 150), ("1d", 86400)],
)
def test_durations_as_people_write_them(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    "seconds, said", [(5, "5 s"), (60, "1 min"), (150, "2 min 30 s"), (240, "4 min"), (3900, "1 h 5 min")]
)
def test_durations_as_a_plan_says_them(seconds, said):
    assert format_duration(seconds) == said


@pytest.mark.parametrize(
    "value, said",
    [
        ("0", "'0': give a duration above zero"),
        ("-5", "'-5': give a duration above zero"),
        ("soon", "'soon': give a duration such as 90s, 4m, 1h30m or a number of seconds"),
        ("4m x", "'4m x': give a duration such as"),
        (
            "5s",
            "'5s': shorter than one launch's start-up (about 10 s, before anything is measured); give more than 10s",
        ),
        ("8d", "'8d': at most a week"),
    ],
)
@pytest.mark.parametrize("command", [["run", "latency"], ["submit", "congestion", "--nodes", "6", "--dry-run"]])
def test_a_bad_limit_is_a_usage_error_naming_it_and_nothing_is_stored(cli, fake_core, db, command, value, said):
    result = cli(*command, "--time-limit", value, "--db", db)
    assert result.exit_code == 2
    assert "Invalid value for '--time-limit'" in result.stderr and said in result.stderr, result.stderr
    assert not db.exists()


@pytest.mark.slow
def test_the_plan_is_said_first_and_each_launch_gets_its_share(cli, fake_core, db):
    result = cli("run", "latency", "bw", "--launcher", "mpirun", "--time-limit", "1m", "--db", db)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        "run: 2 launch(es), about 1 min (--time-limit 1 min; each point's iterations sized to it)"
    )
    first, second = stored(db)
    # 60 s less two start-ups (10 s each until one is seen), shared by two; the second gets the rest
    assert core_limit(first) == pytest.approx(20, abs=0.5)
    assert 20 < core_limit(second) < 60


@pytest.mark.slow
def test_a_launch_still_running_a_start_up_past_the_limit_is_stopped_and_keeps_its_points(
    cli, fake_core, db, clean_env, monkeypatch
):
    monkeypatch.setattr(time_limit, "START_UP_S", 0.5)
    clean_env.setenv("FAKE_CORE_SLEEP", "0.5")  # a core that ignores its share: 11 points, 5.5 s
    result = cli("run", "latency", "--launcher", "mpirun", "--time-limit", "2s", "--db", db, "--", "-m", "1:1K")
    assert result.exit_code == 1
    [run] = stored(db)
    assert run.status == "incomplete" and 1 <= len(run.points) < 11
    assert run.status_reason.startswith(
        "stopped at its time limit (--time-limit 2 s, and one start-up of 0.5 s past it); "
    ), run.status_reason


@pytest.mark.slow
def test_congestion_has_a_limit_of_its_own_unless_told(cli, fake_core, db, clean_env):
    clean_env.setenv("FAKE_CORE_BENCHMARKS", "latency,congestion")
    clean_env.setenv("FAKE_CORE_GOLDEN", "latency_sizes")
    result = cli("run", "congestion", "latency", "--launcher", "mpirun", "--db", db)
    assert result.exit_code == 0, result.stderr
    assert "congestion: about 4 min (congestion's default; --time-limit sets another" in result.stderr
    congestion, latency = stored(db)
    assert core_limit(congestion) == pytest.approx(230, abs=1)  # 4 min less its start-up
    assert "--time-limit" not in latency.launcher_argv  # OMB's counts


def test_shares_follow_the_start_ups_seen():
    limit = TimeLimit(100.0, 4, "--time-limit 100s")
    assert float(limit.core_args()[1]) == pytest.approx((100 - 4 * 10) / 4, abs=0.1)
    limit.launched(2.0)  # three to come, each now foreseen to take 2 s to start
    assert float(limit.core_args()[1]) == pytest.approx((100 - 3 * 2) / 3, abs=0.1)
    limit.again()  # a launch failed at start: it comes once more
    assert limit.launches == 4


def test_a_limit_too_short_for_the_launches_to_start_is_refused():
    with pytest.raises(UsageError, match=r"--time-limit 1 min: 6 launches need about 1 min to start alone"):
        TimeLimit(60.0, 6, "--time-limit 1 min")


def test_submit_passes_the_limit_to_the_job_and_sizes_its_slurm_time(cli, fake_core, db):
    result = cli("submit", "congestion", "--nodes", "6", "--time-limit", "2m", "--dry-run", "--db", db)
    assert result.exit_code == 0, result.stderr
    assert "#SBATCH --time=7\n" in result.stdout  # 2 minutes and 5 for the allocation and a start-up
    assert re.search(r" --time-limit 120$", result.stdout, re.M), result.stdout
    told = cli("submit", "congestion", "--nodes", "6", "--time-limit", "2m", "--time", "30", "--dry-run", "--db", db)
    assert "#SBATCH --time=30\n" in told.stdout


def test_submit_of_a_tool_refuses_a_time_limit(cli, fake_core, db):
    result = cli("submit", "hpl", "--nodes", "1", "--time-limit", "2m", "--dry-run", "--db", db)
    assert result.exit_code == 2 and "--time-limit applies to benchmarks, not to submit hpl" in result.stderr


def test_a_sweep_shares_its_limit_between_its_launch_and_its_retest(monkeypatch, tmp_path, capsys):
    """sweep --time-limit: the plan said first; the sweep's launch of the core gets its share
    (two launches planned: the sweep and its retest), start-up probes none."""
    from pathlib import Path

    import commscope.sweep.run as sweep_run
    from commscope.sweep.modes.all_pairs import ALL_PAIRS
    from commscope.sweep.modes.base import SweepRequest
    from fixtures.analysis.sweep_runs import PlantedNetwork

    shares = []

    class Runner:
        def __init__(self, core, request, signals, reporter=None):
            self.request = request

        def execute(self, item, repeat, limit=None):
            shares.append(float(limit.core_args()[1]) if limit else None)
            limit.launched(1.0)
            return PlantedNetwork(["n1", "n2", "n3", "n4"]).run(["--metric", "bw"])

    monkeypatch.setattr(sweep_run, "find_core", lambda: Path("commscope-bench"))
    monkeypatch.setattr(sweep_run, "core_mpi_flavour", lambda core: "openmpi")
    monkeypatch.setattr(sweep_run, "resolve_launcher", lambda choice, flavour: None)
    monkeypatch.setattr(
        sweep_run, "plan", lambda *args: [type("Item", (), {"command": type("C", (), {"shell": lambda self: "x"})()})()]
    )
    monkeypatch.setattr(sweep_run, "Runner", Runner)
    monkeypatch.setenv("COMMSCOPE_SWEEP_TMP", str(tmp_path))
    request = SweepRequest(mode=ALL_PAIRS, hosts=("n1", "n2", "n3", "n4"), time_limit=100.0, metrics=("bw",))
    sweeper = sweep_run.Sweeper(request)
    assert (
        "sweep: about 1 min 40 s (--time-limit 1 min 40 s; each point's iterations sized to it)"
        in capsys.readouterr().err
    )
    sweeper.launch(["--schedule", "all-pairs", "--metric", "bw"], signals=type("S", (), {"received": []})())
    assert shares == [pytest.approx((100 - 2 * 10) / 2, abs=0.5)]
