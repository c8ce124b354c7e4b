"""The store's analysis additions: migration 3 (baselines), baseline accessors, selections."""

from __future__ import annotations

import pytest

from commscope.store.db import Store
from commscope.store.schema import MIGRATIONS, SCHEMA_VERSION, schema_version
from fixtures.analysis.handmade import run_of, store_runs
from old_databases import database_at


def test_migrating_a_version_2_database_adds_baselines_and_keeps_runs(tmp_path):
    path = tmp_path / "v2.db"
    conn = database_at(path, 2)
    conn.execute("INSERT INTO systems (name, created_at) VALUES ('alpha', '2025-06-01')")
    conn.execute(
        "INSERT INTO runs (invocation_id, benchmark, status, label, system_id) "
        "VALUES (1, 'latency', 'complete', 'old', 1)"
    )
    conn.execute("INSERT INTO points (run_id, size, latency_us) VALUES (1, 8, 1.25)")
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'baselines'").fetchone() is None
    conn.close()

    with Store(path) as store:
        assert schema_version(store.conn) == SCHEMA_VERSION == len(MIGRATIONS) >= 3
        old = store.run(1)
        assert (old.label, old.system, old.points[0].metrics) == ("old", "alpha", {"latency_us": 1.25})
        assert store.set_baseline("ref", [1]) is None
        assert store.baseline_run_ids("ref") == [1]
        names = {row[0] for row in store.conn.execute("SELECT name FROM sqlite_master")}
        assert {"baselines", "baseline_runs", "baseline_runs_by_run", "runs_by_invocation"} <= names


def test_baselines_are_replaced_listed_and_follow_deleted_runs(tmp_path):
    db = tmp_path / "r.db"
    ids = store_runs(db, [run_of({1: 1.0}), run_of({1: 2.0}), run_of({1: 3.0})])
    with Store(db) as store:
        assert store.set_baseline("ref", ids[:2]) is None
        assert store.set_baseline("ref", ids[1:]) == ids[:2]
        assert store.set_baseline("other", ids[:1]) is None
        assert [(name, run_ids) for name, _, run_ids in store.baselines()] == [("other", ids[:1]), ("ref", ids[1:])]
        store.delete_runs([ids[1]])
        assert store.baseline_run_ids("ref") == [ids[2]]
        assert store.delete_baseline("ref") and not store.delete_baseline("ref")
        assert store.baseline_run_ids("ref") is None
        assert store.run(ids[2]).points[0].metrics == {"latency_us": 3.0}  # runs outlive their baselines


def test_summaries_filter_and_last_invocation(tmp_path):
    db = tmp_path / "r.db"
    first = store_runs(db, [run_of({1: 1.0}, system="alpha")])
    second = store_runs(db, [run_of({1: 1.0}, system="beta"), run_of({1: 1.0}, system="beta")])
    store_runs(db, [run_of({1: 1.0})], command="import")
    with Store(db) as store:
        assert [row.id for row in store.summaries(system="beta")] == second[::-1]
        assert [row.id for row in store.summaries(run_id=first[0])] == first
        invocation = store.last_invocation_id("run")
        assert sorted(row.id for row in store.summaries(invocation_id=invocation)) == second
        assert store.summaries()[0].invoked_at


@pytest.mark.parametrize(
    "command",
    [
        ["compare"],
        ["baseline"],
        ["baseline", "set"],
        ["baseline", "list"],
        ["baseline", "delete"],
        ["check"],
        ["model"],
        ["plot"],
        ["report"],
    ],
    ids=" ".join,
)
def test_every_analysis_command_has_real_help(cli, command):
    import click

    from commscope.cli.main import main

    result = cli(*command, "--help")
    assert result.exit_code == 0 and "Usage: " in result.stdout
    target = main
    for name in command:
        target = target.commands[name]
    assert target.help and len(target.help) > 40
    for param in target.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert param.help and len(param.help) > 15, param.name
    if not isinstance(target, click.Group):
        assert any(param.name == "db" for param in target.params)
