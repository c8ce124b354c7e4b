"""What the store never does: give a deleted run's id to another run."""

from __future__ import annotations

import zlib

import pytest

from commscope.errors import StoreError
from commscope.records.invocation import invocation
from commscope.records.run import Point, Run
from commscope.store.db import Store
from old_databases import database_at


def small_run(benchmark: str = "latency") -> Run:
    return Run(benchmark=benchmark, points=[Point(size=8, metrics={"latency_us": 1.5})])


def test_a_deleted_runs_id_is_never_given_to_another_run(tmp_path):
    """A sweep stores its run, someone deletes that run, and a later run is stored: the
    sweep's update of its run must not land in the later one."""
    path = tmp_path / "r.db"
    with Store(path) as store:
        invocation_id = store.add_invocation(invocation("run", ["commscope", "sweep"]))
        swept = store.add_run(small_run("pairs"), invocation_id)
        store.delete_runs([swept])
        later = store.add_run(small_run(), invocation_id)
        assert later != swept
        with pytest.raises(StoreError, match=rf"run {swept} is no longer in {path}"):
            store.add_provenance(swept, {"sweep": {"retest_run": 99}})
        assert store.run(later).provenance is None


def test_ids_are_not_reused_in_a_database_made_by_the_previous_schema(tmp_path):
    """The upgrade rebuilds the runs table without losing a row that points at a run."""
    path = tmp_path / "v7.db"
    conn = database_at(path, 7)
    ids = [(1,), (2,)]
    conn.executemany("INSERT INTO runs (id, invocation_id, benchmark, status) VALUES (?, 1, 'bw', 'complete')", ids)
    conn.executemany("INSERT INTO points (run_id, size, bandwidth_MBps) VALUES (?, 8, 100.0)", ids)
    empty = zlib.compress(b"")
    conn.executemany("INSERT INTO raw_outputs (run_id, kind, data) VALUES (?, 'stdout', ?)", [(1, empty), (2, empty)])
    conn.execute("INSERT INTO baselines (id, name, created_at) VALUES (1, 'ref', '2026-01-01')")
    conn.execute("INSERT INTO baseline_runs (baseline_id, run_id) VALUES (1, 1), (1, 2)")
    conn.close()

    with Store(path) as store:
        assert [point.metrics for point in store.run(1).points] == [{"bandwidth_MBps": 100.0}]
        assert store.raw_outputs(2) == {"stdout": b""}
        assert store.baseline_run_ids("ref") == [1, 2]
        store.delete_runs([2])
        assert store.add_run(small_run(), 1) == 3
        assert store.baseline_run_ids("ref") == [1]
