"""commscope-bench pairs with each MPI library: every pair of the schedule once, a record per
pair and metric with its hosts, planned_records as promised, --serial and FILE schedules,
and bad schedules refused with FILE:LINE (exit 2, no hang)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from mpi_flavours import flavour_params, need
from result_schema import validate as validate_result

FAST = ["-i", "5", "-x", "1", "--bw-size", "16K", "-W", "8"]


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def document(mpi, np, *args):
    res = mpi.run(np, "pairs", *FAST, *args, "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    validate_result(doc)
    return doc


def test_all_pairs_of_three_ranks_each_once_with_three_metrics(mpi):
    doc = document(mpi, 3, "-c")
    results = doc["results"]
    assert doc["planned_records"] == len(results) == 3 * 3
    assert doc["options"]["rounds"] == 3 and doc["options"]["scheduled_pairs"] == 3
    seen = sorted((r["pair"]["src"], r["pair"]["dst"], r["pair"]["metric"]) for r in results)
    assert seen == sorted((a, b, m) for a, b in ((0, 1), (0, 2), (1, 2)) for m in ("latency", "bw", "bibw"))
    assert all(r["pair"]["src_host"] and r["validation"] == {"errors": 0} for r in results)
    latency = [r for r in results if r["pair"]["metric"] == "latency"]
    assert all(r["size"] == 8 and "latency_us" in r["metrics"] for r in latency)
    bw = [r for r in results if r["pair"]["metric"] == "bw"]
    assert all(r["size"] == 16384 and r["window"] == 8 and r["metrics"]["bandwidth_MBps"] > 0 for r in bw)


def test_serial_file_schedule(mpi, tmp_path):
    schedule = tmp_path / "pairs.txt"
    schedule.write_text("# retest\n2 0\n1,2\n")
    doc = document(mpi, 3, "--schedule", str(schedule), "--serial", "--metric", "bw")
    assert [(r["pair"]["src"], r["pair"]["dst"], r["pair"]["round"]) for r in doc["results"]] == [(2, 0, 0), (1, 2, 1)]
    assert doc["options"]["serial"] is True


def test_one_to_all_table_has_a_line_per_pair(mpi):
    res = mpi.run(4, "pairs", *FAST, "--schedule", "one-to-all:2", "--metric", "latency,bw")
    assert res.returncode == 0, res.stderr
    lines = [line.split() for line in res.stdout.splitlines() if line and not line.startswith("#")]
    assert [(int(l[0]), int(l[2])) for l in lines] == [(2, 0), (2, 1), (2, 3)]
    assert all(len(l) == 6 for l in lines)  # src, host, dst, host, latency, bandwidth


@pytest.mark.parametrize(
    "text, message",
    [
        ("0 1\n0 9\n", "pairs.txt:2: rank 9 is outside the 3 ranks"),
        ("1 1\n", "pairs.txt:1: a pair needs two different ranks"),
    ],
)
def test_bad_schedule_file(mpi, tmp_path, text, message):
    schedule = tmp_path / "pairs.txt"
    schedule.write_text(text)
    res = mpi.run(3, "pairs", "--schedule", str(schedule))
    assert res.returncode != 0 and message in res.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["-m", "8"], "-m does not apply to pairs"),
        (["--metric", "bw,x"], "--metric bw,x: choose latency, bw, bibw"),
        (["--schedule", "one-to-all:5"], "root 5 is outside the 2 ranks"),
        (["--bw-size", "2G"], "--bw-size 2G: give a message size up to 1G"),
    ],
)
def test_bad_options(mpi, args, message):
    res = mpi.run(2, "pairs", *args)
    assert res.returncode != 0 and message in res.stderr


def run_stopped_after(mpi, seconds: float, np: int, *args: str) -> tuple[int, str]:
    """(exit status, stderr) of the core, its whole process group killed if it hangs."""
    process = subprocess.Popen(
        mpi.argv(np, mpi.bench, *args),
        env=mpi.env(np),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, stderr = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"{args} still ran after {seconds} s")
    return process.returncode, stderr


@pytest.mark.parametrize(
    "kind, what", [("named pipe", "a named pipe"), ("/dev/zero", "a character device"), ("directory", "a directory")]
)
def test_a_schedule_that_is_not_a_regular_file_is_refused_at_once(mpi, tmp_path, kind, what):
    if kind == "named pipe":
        path = tmp_path / "pairs.fifo"
        os.mkfifo(path)
    else:
        path = tmp_path if kind == "directory" else Path(kind)
    status, stderr = run_stopped_after(mpi, 60, 2, "pairs", "--schedule", str(path))
    assert status == 2, stderr
    assert f"--schedule {path}: not a regular file ({what})" in stderr


def test_control_bytes_of_a_schedule_file_are_shown_escaped(mpi, tmp_path):
    schedule = tmp_path / "pairs.txt"
    schedule.write_bytes(b"0 1\n0 \x1b[2J\x07\n")
    res = mpi.run(2, "pairs", "--schedule", str(schedule), timeout=60)
    assert res.returncode == 2, res.stderr
    assert 'pairs.txt:2: expected two rank numbers "SRC DST", got "0 \\x1b[2J\\x07"' in res.stderr
    assert "\x1b" not in res.stderr and "\x07" not in res.stderr
