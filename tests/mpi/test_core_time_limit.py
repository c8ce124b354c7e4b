"""The core's --time-limit under each MPI library: a limit that holds OMB's counts keeps them;
one far too short for them cuts the counts, and the run still measures every point
(point-to-point, pairs, collectives, congestion). How long runs take is judged on the
virtual cluster and in docs/PERFORMANCE.md, not here."""

from __future__ import annotations

import json

import pytest

from mpi_flavours import flavour_params, need


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def results(mpi, np: int, *args: str) -> list[dict]:
    done = mpi.run(np, *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["planned_records"] == len(document["results"])
    return document["results"]


def test_a_limit_that_holds_the_counts_keeps_them(mpi):
    records = results(mpi, 2, "bw", "-m", "1:1K", "-i", "10", "-x", "2", "--time-limit", "1h")
    assert {(record["iterations"], record["warmup"]) for record in records} == {(10, 2)}


@pytest.mark.parametrize(
    "np, args, counts",
    [
        (2, ["latency", "-m", "0:4K"], 14 * 10_000),
        (2, ["bw", "-m", "1:64K"], 14 * 100 + 3 * 20),
        (3, ["pairs", "--bw-size", "64K"], 3 * 10_000 + 6 * 20),
        (3, ["allreduce", "-m", "1:1K"], 9 * 1_000),
        (4, ["congestion", "--canary-fraction", "0.5", "--congestor", "alltoall,incast"], 44_000),
    ],
)
def test_a_limit_too_short_for_the_counts_measures_every_point_with_far_fewer(mpi, np, args, counts):
    """1 ms for the whole run, against `counts` timed iterations at OMB's counts (the core's
    rules for these sizes): every point is measured, each with at least one iteration after
    its probe, and all of them together hold fewer than a tenth of the counts (which would
    take a tenth of a microsecond an operation, or less, to fit in 1 ms)."""
    records = results(mpi, np, *args, "--time-limit", "1ms")
    assert all(record["iterations"] >= 1 and record["warmup"] >= 1 for record in records)
    assert sum(record["iterations"] for record in records) < counts / 10


def test_a_limit_and_precision_are_one_usage_error(mpi):
    done = mpi.run(2, "latency", "--time-limit", "4m", "--precision", "2")
    assert done.returncode == 2
    assert "--time-limit 4m and --precision 2: choose one" in done.stderr
