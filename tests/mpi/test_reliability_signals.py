"""Issue 11: SIGHUP (a closed terminal, a dropped ssh) and SIGQUIT end `commscope run` like
SIGTERM: the launcher and every rank stop, what was measured is stored, nothing is left in
the temporary folder. Real commscope-bench under each MPI library (see mpi_flavours.py)."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from commands import start_child
from commscope.errors import EXIT_INTERRUPTED
from commscope.store.db import Store
from mpi_flavours import flavour_params, need
from paths import REPO
from processes import processes_mentioning


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGQUIT], ids=lambda s: s.name)
def test_hangup_and_quit_stop_every_process_and_store_what_was_measured(mpi, tmp_path, signum):
    db = tmp_path / "results.db"
    scratch = tmp_path / "tmp"  # the run's temporary folder goes here, so leftovers are ours
    scratch.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("COMMSCOPE_", "SLURM_"))}
    env.update(COMMSCOPE_BENCH=str(mpi.bench), PYTHONPATH=str(REPO / "python"), TMPDIR=str(scratch))
    # Many iterations of large messages: far longer than the test waits.
    child = start_child(
        [
            sys.executable,
            "-m",
            "commscope",
            "run",
            "latency",
            "--launcher",
            mpi.launcher,
            "--db",
            str(db),
            "--",
            "-m",
            "1:4M",
            "-i",
            "20000",
            "-x",
            "10",
        ],
        env,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            streams = list(scratch.glob("commscope-*/core.jsonl"))
            if streams and streams[0].read_text().count('{"record"') >= 2:
                break
            assert time.monotonic() < deadline and child.poll() is None, "no records came"
            time.sleep(0.1)
        jsonl = str(streams[0])
        assert processes_mentioning(jsonl)  # the launcher and the ranks are running
        child.send_signal(signum)
        stdout, stderr = child.communicate(timeout=90)
    finally:
        child.kill()
    assert child.returncode == EXIT_INTERRUPTED, stderr
    assert f"stopped by {signum.name}" in stderr and "Traceback" not in stderr
    deadline = time.monotonic() + 10  # ranks orphaned by their launcher may take a moment
    while processes_mentioning(jsonl) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_mentioning(jsonl) == []
    assert list(scratch.iterdir()) == []
    with Store(db, create=False) as store:
        [row] = store.summaries()
        run = store.run(row.id)
    assert run.status == "incomplete" and run.status_reason.startswith(f"interrupted by {signum.name}; ")
    assert len(run.points) >= 2 and all(point.metrics["latency_us"] > 0 for point in run.points)
