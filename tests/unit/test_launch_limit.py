"""Issue 38: a launch without --timeout has a limit derived from what it measures (a start-up
allowance and one per planned point), not none: a core that stops answering is stopped at it,
says why, and keeps the points it measured; --timeout replaces it. Fake core and launcher
(tests/support/fakes), the limits made short."""

from __future__ import annotations

import time

import pytest

from commscope.execute import limits
from commscope.store.db import Store


def stored(db):
    with Store(db, create=False) as store:
        return [store.run(row.id) for row in store.summaries()]


@pytest.fixture
def short_limits(monkeypatch):
    monkeypatch.setattr(limits, "START_S", 1.0)
    monkeypatch.setattr(limits, "POINT_S", 0.1)


def test_without_timeout_a_launch_is_stopped_at_its_default_limit(cli, fake_core, db, clean_env, short_limits):
    clean_env.setenv("FAKE_CORE_SLEEP", "0.5")  # 11 points, 0.5 s each: past 1 s + 11 x 0.1 s
    began = time.monotonic()
    result = cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:1K")
    assert time.monotonic() - began < 10
    assert result.exit_code == 1, result.output
    [run] = stored(db)
    assert run.status == "incomplete" and 1 <= len(run.points) < 11
    assert run.status_reason.startswith(
        "timed out after 2.1 s (the default limit: 1 s to start and 0.1 s for each of its 11 points; "
        "--timeout sets another); "
    ), run.status_reason


def test_timeout_replaces_the_default_limit(cli, fake_core, db, clean_env, short_limits):
    clean_env.setenv("FAKE_CORE_SLEEP", "0.3")
    result = cli("run", "latency", "--launcher", "mpirun", "--timeout", "30", "--db", db, "--", "-m", "1:1K")
    assert result.exit_code == 0, result.output
    [run] = stored(db)
    assert run.status == "complete" and len(run.points) == 11


def test_the_default_limit_grows_with_the_points_planned():
    assert limits.default_limit_s(0) == limits.START_S
    assert limits.default_limit_s(100) == limits.START_S + 100 * limits.POINT_S
    assert limits.default_limit_s(None) is None  # a header that does not say leaves no limit
