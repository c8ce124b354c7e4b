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


@pytest.mark.slow
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


@pytest.mark.slow
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


HYDRA_BANNER = """
===================================================================================
=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES
=   PID 3829 RUNNING AT vnode2
=   EXIT CODE: 11
=   CLEANING UP REMAINING PROCESSES
=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES
===================================================================================
[mpiexec@vm] ui_cmd_cb (pm/pmiserv/pmiserv_pmci.c:42): unable to send signal downstream
"""


@pytest.mark.slow
def test_a_launcher_that_said_a_rank_died_but_keeps_waiting_is_stopped_and_started_once_more(
    cli, fake_core, db, clean_env, tmp_path, monkeypatch
):
    """MPICH's Hydra over ssh, seen on the virtual cluster: the banner of a rank killed by
    SIGSEGV on vnode2, then it fails to signal the other proxy and waits for ever. Both
    starts hang so (the stand-in launcher prints it every time): two stopped launches,
    the second final, each within seconds."""
    monkeypatch.setattr(limits, "DEATH_GRACE_S", 0.5)
    monkeypatch.setattr(limits, "LOOK_EVERY_S", 0.1)
    launcher = tmp_path / "bin" / "mpiexec.mpich"  # the name says Hydra
    launcher.parent.mkdir()
    launcher.write_text(f"#!/bin/sh\ncat <<'EOF'\n{HYDRA_BANNER}EOF\nexec sleep 600\n")
    launcher.chmod(0o755)
    began = time.monotonic()
    result = cli("run", "latency", "--launcher", str(launcher), "--db", db, "--", "-m", "1:1K")
    assert time.monotonic() - began < 30
    assert result.exit_code == 1, result.output
    reason = (
        "a rank died: a rank on vnode2 died (Hydra: exit code 11); "
        "the launcher had not ended the other ranks 0.5 s later"
    )
    assert result.stderr.count(f"latency: incomplete: {reason}") == 2, result.stderr
    assert "starting it once more" in result.stderr
    [run] = stored(db)
    assert run.status == "incomplete" and run.status_reason.startswith(reason)
