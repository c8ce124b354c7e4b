"""One reader of the core's records: the same measurement read from the JSON Lines stream
`commscope run` follows and from the saved --format json document gives the same Run and
Points, every axis kept (the core's own golden outputs, tests/c/golden)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commscope.ingest.parse import ParseError, parse_file
from commscope.records.invocation import invocation
from commscope.records.run import Pair, Run
from commscope.store.db import Store
from core_roads import core_fields, from_document, from_stream
from paths import REPO

GOLDEN = REPO / "tests" / "c" / "golden"


def stream_of(document: dict) -> bytes:
    """The JSON Lines stream of a document's measurement, as the core writes it beside the
    document (--jsonl-out): the header is the document less its records and end."""
    header = {key: value for key, value in document.items() if key not in ("results", "end_time", "status")}
    lines = [{"header": header}, *({"record": record} for record in document["results"])]
    lines.append({"end": {"end_time": document["end_time"], "status": document["status"]}})
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def stored(run: Run, db: Path) -> Run:
    with Store(db) as store:
        run_id = store.add_run(run, store.add_invocation(invocation("test", ["test"])))
        return store.run(run_id)


def test_the_cores_latency_stream_and_document_give_the_same_run(tmp_path):
    streamed = from_stream((GOLDEN / "latency.jsonl").read_bytes(), tmp_path / "launch", "latency")
    imported = from_document(GOLDEN / "latency.json")
    assert core_fields(streamed) == core_fields(imported)
    assert streamed.status == "complete" and len(imported.points) == 4


@pytest.mark.parametrize(
    "name", ["pairs.json", "put_latency.json", "bw_gpu.json", "allreduce_full.json", "latency_full.json"]
)
def test_every_axis_is_the_same_on_both_roads(name, tmp_path):
    document = json.loads((GOLDEN / name).read_text())
    streamed = from_stream(stream_of(document), tmp_path / "launch", document["benchmark"]["name"])
    imported = from_document(GOLDEN / name)
    assert core_fields(streamed) == core_fields(imported)
    assert [point.key for point in imported.points] == [point.key for point in streamed.points]
    assert len(imported.points) == len(document["results"])
    # and the store keeps them alike
    assert stored(streamed, tmp_path / "a.sqlite").points == stored(imported, tmp_path / "b.sqlite").points


def test_the_cores_pairs_document_imports_with_every_pair(cli, clean_env, db):
    """`commscope import pairs.json` of the core's own pairs document stored nothing: its
    reader split records by window only and found size 8 after size 8 (two pairs)."""
    result = cli("import", GOLDEN / "pairs.json", "--db", db)
    assert result.exit_code == 0, result.stderr
    records = json.loads((GOLDEN / "pairs.json").read_text())["results"]
    with Store(db, create=False) as store:
        [summary] = store.summaries()
        run = store.run(summary.id)
    assert run.benchmark == "pairs" and run.status == "complete"
    assert [point.pair for point in run.points] == [Pair.of(record["pair"]) for record in records]
    assert [(point.size, point.window) for point in run.points] == [(r["size"], r["window"]) for r in records]


def test_a_validation_failure_is_judged_alike_on_both_roads():
    imported = from_document(GOLDEN / "latency_full.json")
    assert imported.status == "failed" and imported.status_reason.startswith("validation failed at ")


def test_a_second_record_of_a_point_is_refused_with_its_line(tmp_path):
    document = json.loads((GOLDEN / "pairs.json").read_text())
    document["results"].append(document["results"][0])
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(document, indent=1))
    last_record = max(number for number, line in enumerate(path.read_text().splitlines(), 1) if line == "  {")
    with pytest.raises(ParseError) as error:
        parse_file(path)
    assert error.value.message == "a second record for size 8 (window 1, pair 1->2 latency)"
    assert error.value.line == last_record


def test_the_start_lines_say_which_ranks_got_going(tmp_path):
    """The stream's start lines (one per rank, before the header) are read as the ranks that
    got past MPI_Init and the host each runs on; a start line after the header is a broken
    stream, as is one that is not the schema's."""
    from commscope.execute.stream import CoreStream

    path = tmp_path / "core.jsonl"
    golden = (GOLDEN / "latency.jsonl").read_text().splitlines(keepends=True)
    path.write_text("".join(golden[:1]))  # rank 0 alone so far: a launch still starting
    stream = CoreStream(path)
    stream.poll()
    assert stream.started == {0: "node01"} and stream.output is None
    path.write_text("".join(golden))
    stream.poll()
    assert stream.started == {0: "node01", 1: "node02"} and stream.problem is None and stream.end is not None
    path.write_text("".join(golden[:3]) + golden[0])
    late = CoreStream(path)
    late.poll()
    assert late.problem == "core.jsonl line 4: unexpected 'started' line"
    path.write_text('{"started":{"rank":-1,"host":"node01","pid":1}}\n')
    bad = CoreStream(path)
    bad.poll()
    assert bad.problem.startswith("core.jsonl line 1: start line does not match result.schema.json: rank:")


@pytest.mark.parametrize("planned, status", [(0, "complete"), (3, "failed")])
def test_a_benchmark_that_plans_no_record_is_complete_without_one(tmp_path, planned, status):
    """hello times nothing: its header plans no record and its end says whether MPI started
    on every rank; both roads call it complete (`commscope run hello` and a sweep's start-up
    probe were stored as failed: "ended (complete) but wrote no result records"; its document
    could not be imported). A core that planned records and wrote none still failed."""
    document = json.loads((GOLDEN / "init.json").read_text())
    document["benchmark"]["name"] = "hello"
    document["planned_records"], document["results"] = planned, []
    path = tmp_path / "hello.json"
    path.write_text(json.dumps(document))
    streamed = from_stream(stream_of(document), tmp_path / "stream", "hello")
    assert streamed.status == status and (streamed.status_reason is None) == (status == "complete")
    if planned:  # a document that planned records and holds none is refused at import
        with pytest.raises(ParseError, match="commscope result has no records"):
            from_document(path)
    else:
        imported = from_document(path)
        assert (imported.benchmark, imported.status, imported.status_reason, imported.points) == (
            "hello",
            "complete",
            None,
            [],
        )
