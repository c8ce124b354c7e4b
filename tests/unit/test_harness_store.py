"""The SQLite store: round trips, migrations, concurrent writers."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
import zlib

import pytest

from commscope.errors import CommscopeError, StoreError
from commscope.records.invocation import invocation
from commscope.records.run import RUN_COLUMNS, Axes, Point, PointKey, Run
from commscope.store.connection import connect
from commscope.store.db import Store
from commscope.store.schema import MIGRATIONS, SCHEMA_VERSION, migrate, schema_version
from old_databases import database_at
from paths import REPO


def sample_run(**changes) -> Run:
    points = [
        Point(
            size=size,
            window=64,
            iterations=100,
            warmup=10,
            batch=1,
            samples=100,
            stats={
                "min": 1.0,
                "max": 2.0,
                "mean": 1.5,
                "median": 1.4,
                "p50": 1.4,
                "p90": 1.8,
                "p99": 1.9,
                "stddev": 0.1,
                "ci95_low": 1.45,
                "ci95_high": 1.55,
            },
            metrics={"bandwidth_MBps": 10.0 * (size + 1), "message_rate": 1e6, "p99_MBps": 9.5},
            validation_errors=0,
        )
        for size in (1, 2, 4)
    ]
    run = Run(
        benchmark="bw",
        status="incomplete",
        status_reason="timed out after 5 s after 3 of 23 sizes",
        description="one-way bandwidth",
        flags=["-m", "1:4"],
        ranks=2,
        nodes=2,
        placement="inter-node",
        label="acceptance",
        repeat_index=1,
        started_at="2026-01-01T00:00:00Z",
        ended_at="2026-01-01T00:00:05Z",
        launcher_argv=["mpirun", "-np", "2", "commscope-bench", "bw"],
        tool_name="commscope-bench",
        tool_version="0.1.0",
        tool_git_commit="abc",
        mpi_library="Open MPI",
        mpi_version="4.1.4",
        mpi_library_version="Open MPI v4.1.4, package: x",
        hosts=[{"name": "n1", "ranks": [0]}, {"name": "n2", "ranks": [1]}],
        cpu_model="EPYC",
        compiler="GCC: (Debian) 12.2.0",
        job_id="1234",
        environment={"OMPI_MCA_btl": "tcp,self"},
        options={"window": 64, "full": False},
        provenance={"benchmark": {"pattern": "window_uni"}},
        notes=["a note"],
        system="cluster-a",
        points=points,
        raw={"jsonl": b'{"header": {}}\n' * 100, "stderr": b"warning\n"},
    )
    for key, value in changes.items():
        setattr(run, key, value)
    return run


def add(store: Store, *runs: Run) -> list[int]:
    return store.add_runs(runs, store.add_invocation(invocation("run", ["commscope", "run", "bw"])))


def test_round_trip_keeps_every_field(tmp_path):
    original = sample_run()
    with Store(tmp_path / "r.db") as store:
        [run_id] = add(store, original)
        loaded = store.run(run_id)
        raw = store.raw_outputs(run_id)
    for column in RUN_COLUMNS:
        if column not in ("kind", "sweep_mode"):  # worked out when stored (records.run_kinds)
            assert getattr(loaded, column) == getattr(original, column), column
    assert (original.kind, loaded.kind, loaded.sweep_mode) == (None, "curve", None)
    assert loaded.points == original.points
    assert loaded.system == "cluster-a" and loaded.id == run_id
    assert loaded.commscope_version == "0.1.0"
    assert raw == original.raw


def test_runs_read_together_are_the_runs_read_one_by_one(tmp_path):
    """Store.runs (a report's hundreds of runs, a query per 900) gives what run() gives for
    each id, in the order asked, points with axes and pairs included; an unknown id is named."""
    from commscope.errors import UsageError
    from commscope.records.run import Pair

    swept = sample_run(
        label="swept", points=[Point(size=8, metrics={"latency_us": 1.0}, axes=Axes(datatype="MPI_INT"))]
    )
    pairs = sample_run(
        benchmark="pairs", points=[Point(size=8, metrics={"latency_us": 2.0}, pair=Pair(0, 1, "latency", "a", "b"))]
    )
    with Store(tmp_path / "r.db") as store:
        ids = add(store, sample_run(), swept, pairs, Run(benchmark="barrier", points=[]))
        order = [ids[2], ids[0], ids[3], ids[1]]
        together = store.runs(order)
        alone = [store.run(run_id) for run_id in order]
        with pytest.raises(UsageError, match=f"no run {ids[-1] + 1} in"):
            store.runs([ids[0], ids[-1] + 1])
    assert [run.id for run in together] == order
    for loaded, expected in zip(together, alone):
        assert loaded == expected


def test_points_without_size_or_statistics(tmp_path):
    # An imported barrier: no size, no statistics, a status word among the metrics.
    barrier = Run(benchmark="barrier", points=[Point(size=None, metrics={"latency_us": 3.2, "validation": "Pass"})])
    with Store(tmp_path / "r.db") as store:
        loaded = store.run(add(store, barrier)[0])
    assert loaded.points == barrier.points and loaded.points[0].validation == "Pass"
    assert loaded.system is None


def test_raw_outputs_are_compressed(tmp_path):
    with Store(tmp_path / "r.db") as store:
        run_id = add(store, sample_run())[0]
        stored = store.conn.execute(
            "SELECT data FROM raw_outputs WHERE run_id = ? AND kind = 'jsonl'", (run_id,)
        ).fetchone()[0]
    assert len(stored) < len(sample_run().raw["jsonl"]) / 5
    assert zlib.decompress(stored) == sample_run().raw["jsonl"]


def test_database_is_in_wal_mode_with_a_busy_timeout(tmp_path):
    with Store(tmp_path / "r.db") as store:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 10_000
        assert schema_version(store.conn) == SCHEMA_VERSION


def test_listing_filters_and_counts(tmp_path):
    with Store(tmp_path / "r.db") as store:
        first, second, third = add(
            store,
            sample_run(),
            sample_run(label="other"),
            sample_run(benchmark="latency", status="complete", status_reason=None),
        )
        assert [row.id for row in store.summaries()] == [third, second, first]
        assert [row.id for row in store.summaries(label="other")] == [second]
        assert [row.id for row in store.summaries(benchmark="bw", status="incomplete", limit=1)] == [second]
        assert store.summaries()[0].point_count == 3 and store.summaries()[0].system == "cluster-a"
        assert store.run_counts() == {"bw": 2, "latency": 1}
        assert store.last_run_id() == third


def test_delete_removes_points_and_raw_outputs(tmp_path):
    with Store(tmp_path / "r.db") as store:
        keep, gone = add(store, sample_run(), sample_run())
        assert store.delete_runs([gone, 999]) == 1
        assert not store.has_run(gone) and store.has_run(keep)
        for table in ("points", "raw_outputs"):
            assert store.conn.execute(f"SELECT COUNT(*) FROM {table} WHERE run_id = ?", (gone,)).fetchone()[0] == 0
            assert store.conn.execute(f"SELECT COUNT(*) FROM {table} WHERE run_id = ?", (keep,)).fetchone()[0] > 0


def test_a_failing_insert_stores_nothing_of_the_batch(tmp_path):
    with Store(tmp_path / "r.db") as store:
        with pytest.raises(StoreError, match="CHECK constraint failed"):
            add(store, sample_run(), sample_run(status="bogus"))  # violates the CHECK constraint
        assert store.summaries() == []


def test_reading_commands_do_not_create_a_database(tmp_path):
    with pytest.raises(CommscopeError, match="no result database"):
        Store(tmp_path / "absent.db", create=False)
    assert not (tmp_path / "absent.db").exists()
    with pytest.raises(CommscopeError, match="no run 7"):
        with Store(tmp_path / "r.db") as store:
            store.run(7)


def test_a_file_that_is_not_a_database_gives_a_clear_error(tmp_path):
    path = tmp_path / "r.db"
    path.write_text("this is not SQLite " * 100)
    with pytest.raises(StoreError, match="is not a commscope result database"):
        Store(path)


# -- migrations ---------------------------------------------------------------


def test_migrating_a_version_1_database_keeps_its_runs(tmp_path):
    path = tmp_path / "old.db"
    conn = database_at(path, 1, command="import", started_at="2025-01-01", harness="0.0.1")
    assert schema_version(conn) == 1
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'systems'").fetchone() is None
    # A run as version 1 stored it (no system).
    conn.execute(
        "INSERT INTO runs (invocation_id, benchmark, status, label, flags) "
        "VALUES (1, 'latency', 'complete', 'old', '[\"-m\", \"8\"]')"
    )
    conn.execute("INSERT INTO points (run_id, size, latency_us) VALUES (1, 8, 1.25)")
    conn.close()

    with Store(path) as store:
        assert schema_version(store.conn) == SCHEMA_VERSION == len(MIGRATIONS)
        old = store.run(1)
        assert (old.benchmark, old.label, old.flags, old.system) == ("latency", "old", ["-m", "8"], None)
        assert old.points == [Point(size=8, metrics={"latency_us": 1.25})]
        new_id = add(store, sample_run())[0]
        assert store.run(new_id).system == "cluster-a"
        indexes = {row[0] for row in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"runs_by_benchmark", "points_by_run"} <= indexes


def test_migrating_a_version_3_database_leaves_its_points_unswept(tmp_path):
    """Version 4 adds the sweep axes to points; what was stored before has none (NULL)."""
    path = tmp_path / "v3.db"
    conn = database_at(path, 3, started_at="2026-01-01")
    conn.execute("INSERT INTO runs (invocation_id, benchmark, status) VALUES (1, 'allreduce', 'complete')")
    conn.execute("INSERT INTO points (run_id, size, window_size, latency_us) VALUES (1, 4, 1, 2.5)")
    conn.close()
    with Store(path) as store:
        assert schema_version(store.conn) == SCHEMA_VERSION
        [old] = store.run(1).points
        assert old.key == PointKey(4, 1, Axes()) and old.metrics == {"latency_us": 2.5}
        swept = Run(
            benchmark="put_latency",
            points=[
                Point(
                    size=1,
                    window=1,
                    axes=Axes(window_creation=mode, synchronization="fence"),
                    metrics={"latency_us": 1.0},
                )
                for mode in ("create", "allocate")
            ],
        )
        run_id = add(store, swept)[0]
        assert [point.axes for point in store.run(run_id).points] == [
            Axes(None, "create", "fence"),
            Axes(None, "allocate", "fence"),
        ]


def test_pairs_stored_before_version_10_are_read_as_columns_after_the_upgrade(tmp_path):
    """Version 10 keeps a pair's ranks and metric as columns (what --hosts reads); the pairs
    of an older database get them from their JSON when it is opened."""
    path = tmp_path / "v9.db"
    conn = database_at(path, 9)
    conn.execute("INSERT INTO runs (invocation_id, benchmark, status, ranks) VALUES (1, 'pairs', 'complete', 3)")
    for src, dst, metric, value in ((0, 1, "bw", 100.0), (1, 2, "bw", 90.0), (0, 2, "latency", 2.5)):
        pair = json.dumps({"src": src, "dst": dst, "metric": metric, "src_host": f"h{src}", "dst_host": f"h{dst}"})
        column = "latency_us" if metric == "latency" else "bandwidth_MBps"
        conn.execute(f"INSERT INTO points (run_id, pair, {column}) VALUES (1, ?, ?)", (pair, value))
    conn.commit()
    conn.close()
    with Store(path) as store:
        [found] = store.pair_values([1], "bw", "bandwidth_MBps").values()
        assert (found.src, found.dst, found.values) == ("0,1", "1,2", "100.0,90.0")
        assert store.pair_metrics([1]) == {"bw", "latency"}
        assert store.rank_hosts(1) == {0: "h0", 1: "h1", 2: "h2"}
        assert [point.pair.src_host for point in store.run(1).points] == ["h0", "h1", "h0"]


def test_migration_is_a_no_op_when_current(tmp_path):
    path = tmp_path / "r.db"
    Store(path).close()
    conn = connect(path)
    assert migrate(conn) == SCHEMA_VERSION
    assert conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1


def test_a_newer_database_is_refused(tmp_path):
    path = tmp_path / "r.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    conn.commit()
    conn.close()
    with pytest.raises(CommscopeError, match="newer than this commscope understands"):
        Store(path)


def test_schema_matches_the_run_record(tmp_path):
    with Store(tmp_path / "r.db") as store:
        columns = {row[1] for row in store.conn.execute("PRAGMA table_info(runs)")}
    assert columns == {*RUN_COLUMNS, "id", "invocation_id", "system_id", "source_id"}


# -- concurrency --------------------------------------------------------------

WRITER = """
import sys, time
from pathlib import Path
from commscope.records.invocation import invocation
from commscope.records.run import Point, Run
from commscope.store.db import Store

path, tag, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
# Start together: say ready, wait for the go.
(path.parent / f"ready-{tag}").touch()
while not (path.parent / "go").exists():
    time.sleep(0.005)
with Store(path) as store:
    invocation_id = store.add_invocation(invocation("run", [tag]))
    for index in range(count):
        run = Run(benchmark="latency", label=f"{tag}-{index}", system=f"system-{index % 3}",
                  points=[Point(size=size, metrics={"latency_us": float(index)}) for size in range(20)],
                  raw={"stdout": b"x" * 1000})
        store.add_run(run, invocation_id)
        time.sleep(0.002)  # as between two benchmarks: without a gap SQLite's busy wait may starve the other
"""


@pytest.mark.slow
def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    path, count = tmp_path / "shared.db", 150
    env = {"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"}
    # Both start on a file that does not exist yet, so they also race to create the schema.
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), tag, str(count)], env=env, stderr=subprocess.PIPE, text=True
        )
        for tag in ("a", "b")
    ]
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready-{tag}").exists() for tag in "ab") and time.monotonic() < deadline:
        time.sleep(0.01)
    (tmp_path / "go").touch()
    for writer in writers:
        _, stderr = writer.communicate(timeout=300)
        assert writer.returncode == 0, stderr
    with Store(path) as store:
        labels = [row.label for row in store.summaries()]
        assert sorted(labels) == sorted(f"{tag}-{i}" for tag in "ab" for i in range(count))
        assert store.conn.execute("SELECT COUNT(*) FROM points").fetchone()[0] == 2 * count * 20
        assert store.conn.execute("SELECT COUNT(*) FROM raw_outputs").fetchone()[0] == 2 * count
        assert store.conn.execute("SELECT COUNT(*) FROM systems").fetchone()[0] == 3
        # The two processes' writes really interleaved: b's first run is not after a's last.
        ids = {row.label: row.id for row in store.summaries()}
        assert ids["b-0"] < ids[f"a-{count - 1}"] and ids["a-0"] < ids[f"b-{count - 1}"]
        invocations = store.conn.execute("SELECT argv FROM invocations").fetchall()
        assert sorted(json.loads(row[0])[0] for row in invocations) == ["a", "b"]
