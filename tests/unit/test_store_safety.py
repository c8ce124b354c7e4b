"""What the store refuses or never does: give a deleted run's id to another run, write into
a database that is not ours, or stumble over a damaged schema version."""

from __future__ import annotations

import sqlite3
import zlib

import pytest

from commscope.errors import EXIT_STORE, StoreError
from commscope.records.invocation import invocation
from commscope.records.run import Point, Run
from commscope.store.db import Store
from old_databases import database_at
from paths import FIXTURES

FIXTURE = FIXTURES / "parse" / "omb5_bibw.txt"


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


def test_a_foreign_sqlite_file_is_refused_untouched(cli, tmp_path):
    path = tmp_path / "notes.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=rf"{path} is not a commscope result database"):
        Store(path)
    for command in (("list", "runs"), ("import", FIXTURE)):
        result = cli(*command, "--db", path)
        assert result.exit_code == EXIT_STORE and "not a commscope result database" in result.stderr
    assert path.read_bytes() == before  # not even switched to WAL


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE schema_version SET version = 'seven'",
        "UPDATE schema_version SET version = 7.5",
        "DELETE FROM schema_version",
    ],
)
def test_a_damaged_schema_version_is_one_clear_error(cli, tmp_path, damage):
    path = tmp_path / "r.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(damage)
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=rf"result database {path} is damaged: its schema version"):
        Store(path)
    result = cli("list", "runs", "--db", path)
    assert result.exit_code == EXIT_STORE and "schema version" in result.stderr
