"""Every sweep axis of the core reaches the store and everything that reads it (issue 9).

`commscope run allreduce -- -T mpi_char,mpi_int -m 1:8` measures six points: four
sizes in MPI_CHAR, two in MPI_INT (whole elements only). They used to be stored as
size and window alone, so compare showed four rows with MPI_INT's values in place of
MPI_CHAR's. Hand-made records here; the real core under both MPI libraries below.
"""
from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from commscope.records.run import Run, point_from_core
from commscope.store.db import Store

from conftest import REPO
from fixtures.analysis.handmade import stats_for, store_runs
from mpi_flavours import flavour_params, need

# (datatype, size, latency): what -T mpi_char,mpi_int -m 1:8 measures, in the core's order.
SWEEP = [("MPI_CHAR", 1, 1.0), ("MPI_CHAR", 2, 2.0), ("MPI_CHAR", 4, 3.0), ("MPI_CHAR", 8, 4.0),
         ("MPI_INT", 4, 30.0), ("MPI_INT", 8, 40.0)]


def core_record(size: int, latency: float, **axes: str) -> dict:
    """A result record as commscope-bench writes it (result.schema.json $defs/record)."""
    stats = {"unit": "us", "samples": 100, **stats_for(latency, 0.01, 100)}
    return {"size": size, "window": 1, "iterations": 100, "warmup": 10, "batch": 1, "stats": stats,
            "metrics": {"latency_us": latency}, "percentiles": [], "validation": None, **axes}


def allreduce_run(label: str = "t") -> Run:
    points = [point_from_core(core_record(size, latency, datatype=datatype), "latency")
              for datatype, size, latency in SWEEP]
    return Run(benchmark="allreduce", label=label, ranks=2, points=points)


def test_datatypes_survive_the_store_and_compare(cli, db, clean_env):
    store_runs(db, [allreduce_run()])
    result = cli("compare", "--db", db, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert list(csv.reader(io.StringIO(result.stdout))) == [
        ["datatype", "size", "t"],
        *([datatype, str(size), str(latency)] for datatype, size, latency in SWEEP)]


def test_export_has_the_datatype_of_every_point(cli, db, clean_env):
    store_runs(db, [allreduce_run()])
    rows = list(csv.DictReader(io.StringIO(cli("export", "1", "--db", db, "--format", "csv").stdout)))
    assert [(row["datatype"], int(row["size"]), float(row["latency_us"])) for row in rows] == SWEEP


# -- the real core ------------------------------------------------------------------------

@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def commscope(mpi, db: Path, *args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("COMMSCOPE_", "SLURM_"))}
    env.update(COMMSCOPE_BENCH=str(mpi.bench), PYTHONPATH=str(REPO / "python"), COMMSCOPE_DB=str(db))
    return subprocess.run([sys.executable, "-m", "commscope", *args], env=env, capture_output=True, text=True,
                          timeout=300)


def test_a_datatype_sweep_is_stored_and_compared_per_datatype(mpi, tmp_path):
    db = tmp_path / "results.db"
    done = commscope(mpi, db, "run", "allreduce", "--launcher", mpi.launcher, "--",
                     "-T", "mpi_char,mpi_int", "-m", "1:8", "-i", "20", "-x", "2")
    assert done.returncode == 0, done.stderr
    with Store(db, create=False) as store:
        run = store.run(store.last_run_id())
    assert [(point.axes.datatype, point.size) for point in run.points] == [
        (datatype, size) for datatype, size, _ in SWEEP]
    compared = commscope(mpi, db, "compare", "last", "--format", "csv")
    assert compared.returncode == 0, compared.stderr
    rows = list(csv.reader(io.StringIO(compared.stdout)))
    assert rows[0][:2] == ["datatype", "size"]
    assert [(row[0], int(row[1])) for row in rows[1:]] == [(datatype, size) for datatype, size, _ in SWEEP]
    assert all(float(row[2]) > 0 for row in rows[1:])
