"""The core's start lines under each MPI library: every rank that got past MPI_Init says so
in the record stream, before anything collective, so a launch that hangs or dies at start
shows which ranks never got going (tests/support/start_fault.c makes one rank fail)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mpi_flavours import flavour_params, need
from start_fault import fault_env

#: Seconds a launch whose rank hangs is given to write what the test waits for (its start-up
#: on a loaded machine included); it is stopped then, whether or not it did.
HUNG_S = 60
#: Seconds it is left running once it wrote that, to write what it must not (a late start
#: line, the run's header, the end line): the other ranks write theirs within milliseconds of
#: it where nothing hangs.
SETTLE_S = 3


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def lines_of(path) -> list[dict]:
    """The lines of the core's stream, while it is written too: those ended with a newline
    (a launch killed mid-line leaves half a line, which is not counted)."""
    text = path.read_text() if path.exists() else ""
    return [json.loads(line) for line in text.split("\n")[:-1] if line]


def started_ranks(lines: list[dict]) -> set[int]:
    return {line["started"]["rank"] for line in lines if "started" in line}


def round_pairs(lines: list[dict], number: int) -> list[tuple[int, int]]:
    """The pairs of round `number` whose records the stream holds."""
    records = [line["record"]["pair"] for line in lines if "record" in line]
    return [(pair["src"], pair["dst"]) for pair in records if pair["round"] == number]


def launch(
    mpi,
    np: int,
    env: dict[str, str],
    *args: str,
    wait: float,
    until: tuple[Path, Callable[[list[dict]], bool]] | None = None,
) -> subprocess.Popen:
    """The launch, stopped (the launcher's whole group) after `wait` seconds if still running;
    with `until` (a stream and a test of its lines), SETTLE_S seconds after its lines pass
    the test, if sooner."""
    process = subprocess.Popen(
        mpi.argv(np, mpi.bench, *args),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + wait
    if until is not None:
        stream, written = until
        while time.monotonic() < deadline and process.poll() is None and not written(lines_of(stream)):
            time.sleep(0.1)
        deadline = min(deadline, time.monotonic() + SETTLE_S)
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    return process


def test_a_rank_that_hangs_after_mpi_init_is_the_one_without_a_start_line(mpi, tmp_path):
    stream = tmp_path / "core.jsonl"
    env = fault_env(mpi.env(3), "hang", rank=2)
    args = ["pairs", "--metric", "latency", "--jsonl-out", str(stream)]
    launch(mpi, 3, env, *args, wait=HUNG_S, until=(stream, lambda lines: {0, 1} <= started_ranks(lines)))
    lines = lines_of(stream)
    assert all(list(line) == ["started"] for line in lines), lines  # no header: the run never began
    assert sorted(line["started"]["rank"] for line in lines) == [0, 1]


def test_a_rank_that_dies_at_start_leaves_the_others_start_lines(mpi, tmp_path):
    stream = tmp_path / "core.jsonl"
    env = fault_env(mpi.env(3), "segv", rank=1)
    process = launch(mpi, 3, env, "pairs", "--metric", "latency", "--jsonl-out", str(stream), wait=60)
    assert process.returncode != 0
    ranks = [line["started"]["rank"] for line in lines_of(stream) if "started" in line]
    assert 1 not in ranks and set(ranks) <= {0, 2}


def test_a_host_that_hangs_half_way_keeps_the_rounds_before_it(mpi, tmp_path):
    """Rank 2 hangs at its fifth barrier, in the second of three rounds: the first round's
    pairs are in the stream, flushed as it ended."""
    stream = tmp_path / "core.jsonl"
    env = fault_env(mpi.env(4), "hang", rank=2, barriers=5)
    args = ["pairs", "--metric", "latency", "-i", "50", "-x", "5", "--jsonl-out", str(stream)]
    launch(mpi, 4, env, *args, wait=HUNG_S, until=(stream, lambda lines: len(round_pairs(lines, 0)) >= 2))
    records = [line["record"]["pair"] for line in lines_of(stream) if "record" in line]
    assert {(pair["src"], pair["dst"]) for pair in records if pair["round"] == 0} == {(0, 3), (1, 2)}
    assert not any("end" in line for line in lines_of(stream))


def test_without_the_stream_nothing_is_said(mpi):
    """OMB's command lines (no --jsonl-out) print what they always printed."""
    done = mpi.run(2, "latency", "-m", "0:1", "-i", "10", "-x", "1")
    assert done.returncode == 0, done.stderr
    assert "started" not in done.stdout + done.stderr
