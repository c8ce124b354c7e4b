"""A link sweep stores through execute/keep: a store locked past its busy timeout when the
sweep is measured keeps its runs as files (exit 4), and `import` stores them back. The
network is the planted one of the report tests (no launcher, no core)."""

from __future__ import annotations

import sqlite3

from test_sweep_inputs import Planted

from commscope.store.db import Store


def test_a_locked_store_keeps_the_sweep_and_its_retest_as_files(cli, monkeypatch, tmp_path, clean_env):
    clean_env.setenv("COMMSCOPE_BUSY_TIMEOUT", "0.5")
    holder = {}

    def lock_at_the_first_launch(launch: int) -> None:
        if launch == 1:  # the store is open and the invocation written: another writer takes it
            holder["conn"] = sqlite3.connect(planted.db, isolation_level=None)
            holder["conn"].execute("BEGIN IMMEDIATE")

    planted = Planted(monkeypatch, tmp_path, on_launch=lock_at_the_first_launch)
    result = cli("sweep", "all-pairs", "--hosts", ",".join(planted.network.hosts), "--db", planted.db)
    holder["conn"].execute("ROLLBACK")
    holder["conn"].close()
    assert result.exit_code == 4, result.output
    assert "bad node node03" in result.stderr  # judged all the same
    assert "kept as files" in result.stderr and planted.stored() == 0
    kept = sorted((tmp_path / "xdg-data" / "commscope" / "unsaved").glob("*.jsonl"))
    assert len(kept) == 2  # the sweep and its retest
    later = tmp_path / "later.db"
    for path in kept:
        imported = cli("import", path, "--db", later)
        assert imported.exit_code == 0, imported.output
    with Store(later) as store:
        runs = [store.run(row.id) for row in store.summaries()]
    assert sorted(len(run.points) for run in runs)[-1] == 3 * 6  # 4 hosts: 6 pairs, 3 metrics
