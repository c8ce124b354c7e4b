"""Importing the same file again stores it once (SHA-256 of its bytes), unless --force."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from commscope.store.connection import connect
from commscope.store.db import Store
from commscope.store.schema import migrate
from paths import FIXTURES

LATENCY = FIXTURES / "parse" / "omb5_latency.txt"


def run_count(db: Path) -> int:
    with Store(db) as store:
        return len(store.summaries())


def test_a_second_import_of_the_same_bytes_is_skipped_with_a_message(cli, db, clean_env, tmp_path):
    first = cli("import", LATENCY, "--db", db)
    assert first.exit_code == 0 and "stored 1 run(s): 1" in first.stderr
    renamed = tmp_path / "copy-of-latency.out"
    shutil.copy(LATENCY, renamed)
    again = cli("import", LATENCY, renamed, "--db", db)
    assert again.exit_code == 0, again.output
    assert f"{LATENCY}: already imported (same content as run 1)" in again.stderr
    assert f"{renamed}: already imported (same content as run 1)" in again.stderr
    assert run_count(db) == 1


def test_force_stores_it_again_and_an_edited_file_is_new(cli, db, clean_env, tmp_path):
    assert cli("import", LATENCY, "--db", db).exit_code == 0
    forced = cli("import", LATENCY, "--force", "--db", db)
    assert forced.exit_code == 0 and "stored 1 run(s): 2" in forced.stderr
    edited = tmp_path / "edited.out"
    edited.write_bytes(LATENCY.read_bytes() + b"\n")
    assert "stored 1 run(s): 3" in cli("import", edited, "--db", db).stderr
    with Store(db) as store:
        hashes = dict(
            store.conn.execute("SELECT runs.id, sources.sha256 FROM runs JOIN sources ON runs.source_id = sources.id")
        )
    assert hashes[1] == hashes[2] != hashes[3] and len(hashes[1]) == 64


def test_the_same_file_twice_in_one_command_is_stored_once(cli, db, clean_env):
    result = cli("import", LATENCY, LATENCY, "--db", db)
    assert result.exit_code == 0 and "earlier in this import" in result.stderr
    assert run_count(db) == 1


def test_a_database_from_before_the_sources_table_gains_it(cli, db, clean_env):
    conn = connect(db)
    migrate(conn, target=3)
    conn.close()
    assert cli("import", LATENCY, "--db", db).exit_code == 0
    assert "already imported" in cli("import", LATENCY, "--db", db).stderr
    tables = [row[0] for row in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert "sources" in tables


JUBE = FIXTURES / "jube"


def test_jube_result_a_prints_each_table_twice_and_its_rows_are_stored_once(cli, db, clean_env):
    """`jube result -a` prints the pretty table and the csv one of the same rows."""
    result = cli("import", JUBE / "jube_result_commscope.txt", "--db", db)
    assert result.exit_code == 0, result.output
    assert run_count(db) == 2
    assert "2 of its runs repeat the rows of others in it" in result.stderr


def test_the_pretty_table_after_the_csv_one_is_already_imported(cli, db, clean_env, tmp_path):
    csv_table = tmp_path / "result.csv"
    csv_table.write_text(
        "nodes,taskspernode,osu_exe,msg_size,runtime[sec],size,result,job_id\n"
        "1,2,osu_bw,1,0.5,1,2.5,11\n1,2,osu_bw,65536,0.55,65536,21467.14,12\n"
    )
    pretty = tmp_path / "result.dat"
    pretty.write_text(
        "result:\n| nodes | taskspernode | osu_exe | msg_size | runtime[sec] | size | result | job_id |\n"
        "|---|---|---|---|---|---|---|---|\n"
        "| 1 | 2 | osu_bw | 1 | 0.5 | 1 | 2.5 | 11 |\n| 1 | 2 | osu_bw | 65536 | 0.55 | 65536 | 21467.14 | 12 |\n"
    )
    assert cli("import", csv_table, "--db", db).exit_code == 0
    again = cli("import", pretty, "--db", db)
    assert again.exit_code == 0, again.output
    assert f"{pretty}: already imported (the same rows as run 1)" in again.stderr
    assert run_count(db) == 1
    assert cli("import", pretty, "--force", "--db", db).exit_code == 0 and run_count(db) == 2


@pytest.mark.slow
def test_a_kept_run_imported_twice_is_stored_once(cli, fake_core, db, tmp_path):
    """A run `commscope run` kept as files (records.unsaved) says "already imported" the
    second time, as every other file does, unless --force."""
    from commscope.records import unsaved

    assert cli("run", "latency", "--label", "kept", "--db", db).exit_code == 0
    with Store(db) as store:
        run = store.run(1)
        run.raw = store.raw_outputs(1)
    jsonl = unsaved.keep(run, {"argv": ["commscope", "run", "latency"]}, tmp_path / "unsaved")
    other = tmp_path / "other.db"
    first = cli("import", jsonl, "--db", other)
    assert first.exit_code == 0 and "stored 1 run(s): 1" in first.stderr, first.output
    again = cli("import", jsonl, "--db", other)
    assert again.exit_code == 0, again.output
    assert f"{jsonl}: already imported (same content as run 1)" in again.stderr
    assert run_count(other) == 1
    assert "stored 1 run(s): 2" in cli("import", jsonl, "--force", "--db", other).stderr
