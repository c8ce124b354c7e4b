"""`commscope import`: good files are stored, a bad file is reported with file:line and stores nothing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import core_golden
from commscope.store.db import Store
from paths import FAKE_CORE

OMB_LATENCY = """
# OSU MPI Latency Test v7.4
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)
1                       0.46
2                       0.37
4                       0.38
"""
OMB_BAD_ROW = OMB_LATENCY.replace("4                       0.38", "4                       abc")
OMB_VALIDATION_FAIL = """
# OSU MPI Latency Test v7.4
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)        Validation
1                       0.46              Pass
2                       0.37              Fail
"""
SIDE_BY_SIDE = """\
| Size | cluster-a Latency (us) | cluster-b Latency (us) |
|------|------------------------|------------------------|
| 1    | 1.10                   | 2.20                   |
| 2    | 1.20                   | 2.40                   |
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def runs_in(db: Path):
    with Store(db, create=False) as store:
        return [store.run(row.id) for row in reversed(store.summaries())]


def test_good_file_is_stored_with_its_source(cli, clean_env, db, tmp_path):
    path = write(tmp_path, "osu_latency.out", OMB_LATENCY)
    result = cli("import", path, "--label", "old cluster", "--system", "legacy", "--db", db)
    assert result.exit_code == 0, result.output
    [run] = runs_in(db)
    assert (run.benchmark, run.label, run.system, run.status) == ("latency", "old cluster", "legacy", "complete")
    assert (run.source_format, run.source_file) == ("omb", str(path.resolve()))
    assert (run.tool_name, run.tool_version, run.description) == ("OMB", "7.4", "OSU MPI Latency Test v7.4")
    assert [(p.size, p.metrics) for p in run.points] == [
        (1, {"latency_us": 0.46}),
        (2, {"latency_us": 0.37}),
        (4, {"latency_us": 0.38}),
    ]
    with Store(db) as store:
        # the whole file, and the run's own table in it (here the whole file but its first blank line)
        assert store.raw_outputs(run.id) == {"source": OMB_LATENCY.encode(), "table": OMB_LATENCY[1:].encode()}
        assert store.invocation(run.invocation_id)["command"] == "import"
    assert f"{path}: stored 1 run(s)" in result.stderr


def test_bad_file_reports_file_and_line_and_the_others_are_stored(cli, clean_env, db, tmp_path):
    good = write(tmp_path, "good.out", OMB_LATENCY)
    bad = write(tmp_path, "bad.out", OMB_BAD_ROW)
    side = write(tmp_path, "compare.md", SIDE_BY_SIDE)
    result = cli("import", good, bad, side, "--db", db)
    assert result.exit_code == 1
    assert f"error: {bad}:7: " in result.stderr and "'abc' is not a number" in result.stderr
    assert "1 of 3 file(s) not imported" in result.stderr and "Traceback" not in result.output
    runs = runs_in(db)
    assert {run.source_file for run in runs} == {str(good.resolve()), str(side.resolve())}
    assert not any(run.source_file == str(bad.resolve()) for run in runs)


def test_side_by_side_table_gives_one_run_per_column(cli, clean_env, db, tmp_path):
    path = write(tmp_path, "compare.md", SIDE_BY_SIDE)
    assert cli("import", path, "--label", "2024", "--db", db).exit_code == 0
    runs = runs_in(db)
    assert [(run.label, [p.metrics["latency_us"] for p in run.points]) for run in runs] == [
        ("2024: cluster-a", [1.10, 1.20]),
        ("2024: cluster-b", [2.20, 2.40]),
    ]
    assert len({run.invocation_id for run in runs}) == 1


def test_failed_validation_in_a_file_marks_the_run_failed(cli, clean_env, db, tmp_path):
    assert cli("import", write(tmp_path, "v.out", OMB_VALIDATION_FAIL), "--db", db).exit_code == 0
    [run] = runs_in(db)
    assert run.status == "failed" and run.status_reason == "validation failed at size 2"
    assert [p.validation for p in run.points] == ["Pass", "Fail"]


def test_commscope_json_document_keeps_the_cores_provenance(cli, clean_env, db, tmp_path):
    document = subprocess.run(
        [str(FAKE_CORE), "bw", "-m", "1:4", "-c", "--format", "json"], capture_output=True, text=True, check=True
    ).stdout
    path = write(tmp_path, "bw.json", document)
    assert cli("import", path, "--db", db).exit_code == 0
    [run] = runs_in(db)
    assert (run.source_format, run.benchmark) == ("commscope-json", "bw")
    header, first = core_golden.header("bw"), core_golden.records("bw", 1, 4)[0]
    assert (run.mpi_library, run.mpi_version, run.cpu_model) == ("MPICH", "4.0.2", header["cpu_model"])
    assert run.hosts == header["hosts"] and run.nodes == len(header["hosts"])
    assert run.provenance["benchmark"]["pattern"] == header["benchmark"]["pattern"] == "window_uni"
    point = run.points[0]
    errors = first["validation"]["errors"] if first["validation"] else None
    assert (point.size, point.iterations, point.warmup, point.validation_errors) == (
        first["size"],
        first["iterations"],
        first["warmup"],
        errors,
    )
    assert point.stats["p99"] == first["stats"]["p99"] > 0 and set(point.metrics) == set(first["metrics"])
    assert {"bandwidth_MBps", "message_rate"} <= set(point.metrics)


def test_unreadable_and_missing_files(cli, clean_env, db, tmp_path):
    binary = tmp_path / "core.bin"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    result = cli("import", binary, tmp_path / "absent.txt", "--db", db)
    assert result.exit_code == 1
    assert f"{binary}:1: binary data" in result.stderr
    assert f"{tmp_path / 'absent.txt'}: cannot read: No such file or directory" in result.stderr
    with Store(db) as store:
        assert store.summaries() == []


def test_batched_import_in_worker_processes_keeps_the_file_rules(cli, clean_env, db, tmp_path, monkeypatch):
    """Several batches (2 files each) read by forked workers: the bad file stores nothing, every
    other file is stored once, in the order given."""
    from commscope.ingest import importer

    monkeypatch.setattr(importer, "FILES_PER_TRANSACTION", 2)
    files = [write(tmp_path, f"f{i}.out", OMB_LATENCY.replace("0.46", f"0.{50 + i}")) for i in range(6)]
    bad = write(tmp_path, "bad.out", OMB_BAD_ROW)
    order = files[:3] + [bad] + files[3:]
    result = cli("import", *order, "--db", db)
    assert result.exit_code == 1
    assert f"error: {bad}:7: " in result.stderr and "1 of 7 file(s) not imported" in result.stderr
    runs = sorted(runs_in(db), key=lambda run: run.id)
    assert [run.source_file for run in runs] == [str(f.resolve()) for f in files]
    assert [run.points[0].metrics["latency_us"] for run in runs] == [0.50 + i / 100 for i in range(6)]
