"""`commscope import` of files that say more than they seem to: a commscope JSON whose text
holds half a character (a lone \\ud800 escape) and an nccl-tests output whose own command
lines name other programs than --benchmark does. The file is refused by name and line
(exit 1, nothing stored), and a run stored with such text by an older commscope still
exports."""

from __future__ import annotations

import json

import pytest

from commscope.records.invocation import invocation
from commscope.records.run import Run
from commscope.store.db import Store
from paths import FIXTURES

LATENCY_JSON = FIXTURES / "parse" / "commscope_latency.json"
AUTODL = FIXTURES / "nccl_tests" / "autodl_2080ti_2gpu_five_programs.txt"


@pytest.mark.parametrize(
    ("where", "value", "said"),
    [
        ("environment", {"OMP_NUM_THREADS": "1", "X": "X\ud800"}, "$.environment.X: 'X\\\\ud800'"),
        ("cpu_model", "Xeon\udc80", "$.cpu_model: 'Xeon\\\\udc80'"),
        ("environment", {"\udfff": "1"}, "$.environment: '\\\\udfff'"),
    ],
    ids=["environment", "cpu_model", "a-key"],
)
def test_half_a_character_in_a_commscope_json_refuses_the_file(cli, db, tmp_path, where, value, said):
    document = json.loads(LATENCY_JSON.read_text())
    document[where] = value
    path = tmp_path / "latency.json"
    path.write_text(json.dumps(document, indent=1))  # json writes the half as a \\u escape
    result = cli("import", path, "--db", db)
    assert result.exit_code == 1, result.output
    assert f"{path}:" in result.stderr and said in result.stderr, result.stderr
    assert "holds half a character (a lone \\u escape)" in result.stderr
    assert "Traceback" not in result.output and not db.exists() or _count(db) == 0


def _count(db) -> int:
    with Store(db, readonly=True) as store:
        return len(store.summaries())


def test_a_run_an_older_commscope_stored_with_half_a_character_still_exports(cli, db, tmp_path):
    run = Run(benchmark="latency", environment={"X": "X\ud800", "OMP_NUM_THREADS": "1"})
    with Store(db) as store:
        store.add_run(run, store.add_invocation(invocation("test", ["import"])))
    for form in ("json", "csv"):
        result = cli("export", "1", "--format", form, "--db", db)
        assert result.exit_code == 0, result.output
    assert json.loads(cli("export", "1", "--format", "json", "--db", db).stdout)


def test_benchmark_never_overrides_what_the_file_says(cli, db):
    """Every table of the five-program file names its program on the command line above it;
    its alltoall table is no all_reduce: --benchmark all_reduce_perf is refused whole."""
    result = cli("import", AUTODL, "--benchmark", "all_reduce_perf", "--db", db)
    assert result.exit_code == 1, result.output
    said = f"{AUTODL}:51: --benchmark says all_reduce_perf, but this table is not all_reduce_perf's (key columns"
    assert said in result.stderr, result.stderr
    assert not db.exists() or _count(db) == 0
    plain = cli("import", AUTODL, "--db", db)  # each table its own program, as the file says
    assert "stored 6 run(s)" in plain.stderr and _count(db) == 6, plain.output
