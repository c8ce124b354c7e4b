"""The Python OSU renderer (kept for imported runs) and the core's own OSU text agree.

`commscope run` stores the core's text; `commscope show` prints it. For runs read
from files, output/osutable.py renders tables from stored points. Where both
apply, they must say the same: here the Python table of a real run's stored points
is read back beside the text the core printed during that run, for every layout
both support, under each MPI library.
"""

from __future__ import annotations

import pytest

from commscope.ingest.parse.omb import read_omb
from commscope.output.osutable import render_run
from commscope.records.run import AXES
from commscope.store.db import Store
from mpi_flavours import flavour_params, need

SUITE = """\
description: every OSU layout the Python renderer shares with the core
benchmarks:
  - {benchmark: latency, flags: ["-m", "1:64", "-i", "20", "-x", "2"]}
  - {benchmark: bw, flags: ["-m", "1:64", "-i", "10", "-x", "2", "-W", "8"]}
  - {benchmark: mbw_mr, flags: ["-m", "1:64", "-i", "10", "-x", "2", "-W", "8"]}
  - {benchmark: allreduce, flags: ["-T", "mpi_char,mpi_int", "-m", "1:64", "-i", "20", "-x", "2"]}
  - {benchmark: allreduce, flags: ["-m", "1:16", "-i", "20", "-x", "2", "--busbw", "-f"]}
  - {benchmark: put_latency, flags: ["-w", "create,allocate", "-s", "lock,fence", "-m", "1:16", "-i", "10",
                                     "-x", "2"]}
"""


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def tables(text: str, source: str) -> list[tuple]:
    """Each table of an OSU text: its axis settings, its columns (as metrics) and its rows."""
    runs, _, _ = read_omb(text.splitlines(), source)
    return [
        (
            {name: run.parameters.get(name) for name in AXES},
            list(run.metrics),
            [(point.size, point.values) for point in run.points],
        )
        for run in runs
    ]


def shape(found: list[tuple]) -> list[tuple]:
    """Tables without their numbers: axis settings, columns, sizes."""
    return [(axes, columns, [size for size, _ in rows]) for axes, columns, rows in found]


def same_number(core: float, python: float, stored: float | int) -> bool:
    """Equal as printed, or a tie at two decimals that the stored number cannot decide: the
    core's JSON carries 10 significant digits (%.10g), so 0.42500000000000004 is stored as
    0.425, which rounds down in Python while the core's double rounds up."""
    if core == python:
        return True
    return abs(core - python) < 0.0101 and abs(abs(stored * 100) % 1 - 0.5) < 1e-6


def test_python_tables_of_stored_points_match_the_cores_text(mpi, tmp_path):
    suite, db = tmp_path / "layouts.yaml", tmp_path / "results.db"
    suite.write_text(SUITE)
    done = mpi.commscope(db, "run", "--suite-file", str(suite), "--launcher", mpi.launcher, timeout=600)
    assert done.returncode == 0, done.stderr
    with Store(db, create=False) as store:
        stored = [
            (store.run(summary.id), store.raw_outputs(summary.id)["stdout"].decode())
            for summary in reversed(store.summaries())
        ]
    assert [run.benchmark for run, _ in stored] == ["latency", "bw", "mbw_mr", "allreduce", "allreduce", "put_latency"]
    for run, core_text in stored:
        assert core_text in done.stdout  # what run printed is what it stored
        title = next(line for line in core_text.splitlines() if line.startswith("# commscope"))
        # The renderer titles a run by its description; the core by OMB's title. Tables follow.
        rendered = title + "\n" + render_run(run).partition("\n")[2]
        core, python = tables(core_text, "core"), tables(rendered, "python")
        assert shape(python) == shape(core), f"{run.benchmark} {run.flags}:\n{core_text}\n{rendered}"
        core_rows = [values for _, _, rows in core for _, values in rows]
        python_rows = [values for _, _, rows in python for _, values in rows]
        assert len(core_rows) == len(run.points)
        for point, core_values, python_values in zip(run.points, core_rows, python_rows):
            for name, value in core_values.items():
                kept = point.iterations if name == "iterations" else point.metrics[name]
                assert same_number(value, python_values[name], kept), (run.benchmark, point.key, name)
    blocks = {
        run.benchmark + (" busbw" if "--busbw" in run.flags else ""): tables(text, "core") for run, text in stored
    }
    assert [axes["datatype"] for axes, _, _ in blocks["allreduce"]] == ["MPI_CHAR", "MPI_INT"]
    assert blocks["allreduce busbw"][0][1] == [
        "latency_us",
        "min_latency_us",
        "max_latency_us",
        "iterations",
        "algbw_GBps",
        "busbw_GBps",
    ]
    assert [(axes["window_creation"], axes["synchronization"]) for axes, _, _ in blocks["put_latency"]] == [
        ("MPI_Win_create", "MPI_Win_lock/unlock"),
        ("MPI_Win_create", "MPI_Win_fence"),
        ("MPI_Win_allocate", "MPI_Win_lock/unlock"),
        ("MPI_Win_allocate", "MPI_Win_fence"),
    ]
    assert blocks["mbw_mr"][0][1] == ["bandwidth_MBps", "message_rate"]
