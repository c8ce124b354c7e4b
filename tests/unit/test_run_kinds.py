"""A run's kind and its sweep's mode, worked out once from its benchmark and sweep entry
(records.run_kinds), stored as columns of the runs table and read back with the run; the
databases of every earlier schema version get them when opened (store.schema, version 11),
and a stored kind is what the commands go by, whatever the provenance says later."""

from __future__ import annotations

import json
import sqlite3

import pytest

from commscope.kinds import kind_of
from commscope.records.benchmarks import (
    COMPUTE_BENCHMARKS,
    CONGESTION_BENCHMARK,
    HPL_BENCHMARK,
    PAIRS_BENCHMARK,
    STORAGE_BENCHMARK,
)
from commscope.records.invocation import invocation
from commscope.records.run import Point, Run
from commscope.records.run_kinds import (
    CONGESTION,
    CURVE,
    FIO,
    HPL,
    LINK_SWEEP,
    LOCATE_MODE,
    LOCATE_SWEEP,
    SWEEP_KEY,
    kind_name,
)
from commscope.store.db import Store
from commscope.store.schema import SCHEMA_VERSION, schema_version
from commscope.sweep.modes import MODES
from old_databases import database_at


@pytest.mark.parametrize(
    "benchmark, mode, kind",
    [
        ("latency", None, CURVE),
        ("allreduce", None, CURVE),
        (PAIRS_BENCHMARK, "all-pairs", LINK_SWEEP),
        (PAIRS_BENCHMARK, None, LINK_SWEEP),  # a serial retest, or a sweep stored before its entry
        (PAIRS_BENCHMARK, LOCATE_MODE, LOCATE_SWEEP),
        (HPL_BENCHMARK, None, HPL),
        *((name, None, HPL) for name in COMPUTE_BENCHMARKS),
        (STORAGE_BENCHMARK, None, FIO),
        (CONGESTION_BENCHMARK, None, CONGESTION),
        ("", None, None),
    ],
)
def test_a_runs_kind_follows_from_its_benchmark_and_mode(benchmark, mode, kind):
    assert kind_name(benchmark, mode) == kind


def _sweep_run(mode: str | None) -> Run:
    entry = {"mode": mode, "rules": {}, "retest": False} if mode else {"retest_of": 1}
    return Run(benchmark=PAIRS_BENCHMARK, ranks=2, provenance={SWEEP_KEY: entry}, points=[Point(size=8)])


@pytest.mark.parametrize("mode", MODES, ids=lambda mode: mode.name)
def test_every_sweep_mode_is_stored_with_its_name_and_its_kind(tmp_path, mode):
    """The mode names are the sweep-mode registry's (sweep/modes): a run of each is stored
    with its mode's name and is a link sweep, but for locate."""
    with Store(tmp_path / "r.db") as store:
        [run_id] = store.add_runs([_sweep_run(mode.name)], store.add_invocation(invocation("sweep", ["commscope"])))
        row = store.conn.execute("SELECT kind, sweep_mode FROM runs WHERE id = ?", (run_id,)).fetchone()
        run = store.run(run_id)
    expected = LOCATE_SWEEP if mode.name == LOCATE_MODE else LINK_SWEEP
    assert tuple(row) == (expected, mode.name) == (run.kind, run.sweep_mode)
    assert kind_of(run).name == expected


#: Runs of every kind as an earlier version stored them: benchmark, provenance (JSON text).
OLD_RUNS = [
    ("latency", None, CURVE, None),
    (PAIRS_BENCHMARK, json.dumps({SWEEP_KEY: {"mode": "all-pairs", "retest": True}}), LINK_SWEEP, "all-pairs"),
    (PAIRS_BENCHMARK, json.dumps({SWEEP_KEY: {"retest_of": 2}}), LINK_SWEEP, None),
    (PAIRS_BENCHMARK, json.dumps({SWEEP_KEY: {"mode": LOCATE_MODE}, "other": 1}), LOCATE_SWEEP, LOCATE_MODE),
    (PAIRS_BENCHMARK, "{not json", LINK_SWEEP, None),  # a damaged provenance: no sweep entry read
    (PAIRS_BENCHMARK, json.dumps([1, 2]), LINK_SWEEP, None),
    (HPL_BENCHMARK, None, HPL, None),
    (STORAGE_BENCHMARK, json.dumps({}), FIO, None),
    (CONGESTION_BENCHMARK, None, CONGESTION, None),
]


@pytest.mark.parametrize("version", [1, 3, 7, 9, 10])
def test_an_older_database_gets_every_runs_kind_when_opened(tmp_path, version):
    path = tmp_path / f"v{version}.db"
    conn = database_at(path, version)
    for benchmark, provenance, _, _ in OLD_RUNS:
        conn.execute(
            "INSERT INTO runs (invocation_id, benchmark, status, provenance) VALUES (1, ?, 'complete', ?)",
            (benchmark, provenance),
        )
    conn.execute("INSERT INTO points (run_id, size, latency_us) VALUES (1, 8, 1.5)")
    conn.commit()
    conn.close()
    with Store(path) as store:
        assert schema_version(store.conn) == SCHEMA_VERSION
        rows = store.conn.execute("SELECT kind, sweep_mode FROM runs ORDER BY id").fetchall()
        assert [tuple(row) for row in rows] == [(kind, mode) for _, _, kind, mode in OLD_RUNS]
        assert store.run(1).points == [Point(size=8, metrics={"latency_us": 1.5})]  # nothing else changed
        readable = [index for index, (_, provenance, *_) in enumerate(OLD_RUNS, 1) if provenance != "{not json"]
        assert [run.kind for run in store.runs(readable)] == [OLD_RUNS[index - 1][2] for index in readable]


def test_the_stored_kind_is_what_the_commands_go_by(tmp_path):
    """Read back, a run's kind is its column: the provenance is not asked again."""
    path = tmp_path / "r.db"
    with Store(path) as store:
        [run_id] = store.add_runs([_sweep_run(LOCATE_MODE)], store.add_invocation(invocation("sweep", ["commscope"])))
    conn = sqlite3.connect(path)
    conn.execute("UPDATE runs SET provenance = '{}' WHERE id = ?", (run_id,))
    conn.commit()
    conn.close()
    with Store(path) as store:
        run = store.run(run_id)
    assert run.provenance == {} and kind_of(run).name == LOCATE_SWEEP
