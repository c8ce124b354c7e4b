"""commscope's own JSON result document: schema validation and full statistics."""

import json

import pytest

from commscope.ingest.parse import ParseError, parse_file, parse_text
from commscope.ingest.parse.commscope_json import load_schema
from paths import FIXTURES as SUPPORT_FIXTURES
from paths import REPO

FIXTURES = SUPPORT_FIXTURES / "parse"
REPOSITORY = REPO
# the only copy of the schema: the core's output and the reader are held to it
SCHEMA_FILE = REPOSITORY / "python" / "commscope" / "records" / "schema" / "result.schema.json"


def document() -> dict:
    return json.loads((FIXTURES / "commscope_latency.json").read_text())


def test_reader_loads_the_schema_file():
    assert load_schema() == json.loads(SCHEMA_FILE.read_text())


def test_fixtures_match_the_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA_FILE.read_text())
    for name in ("commscope_latency.json", "commscope_mbw_mr_vary_window.json"):
        jsonschema.validate(json.loads((FIXTURES / name).read_text()), schema)


def test_latency_document():
    (run,) = parse_file(FIXTURES / "commscope_latency.json")
    assert run.benchmark == "latency"
    assert run.source_format == "commscope-json"
    assert (run.tool, run.tool_version) == ("commscope-bench", "0.1.0")
    assert run.ranks == 2
    assert run.label is None
    assert run.sizes == [1, 2, 4]
    assert run.point(2).values == {
        "latency_us": 0.45,
        "iterations": 10000,
        "warmup": 100,
        "batch": 8,
        "p50_us": 0.44,
        "p90_us": 0.50,
        "p99_us": 0.70,
        "validation": "Pass",
        "validation_errors": 0,
    }
    assert run.metrics["latency_us"] == "us" and run.metrics["p99_us"] == "us"
    assert run.parameters["datatype"] == "MPI_CHAR" and run.parameters["window_size"] == 64


def test_statistics_and_provenance_are_kept():
    (run,) = parse_file(FIXTURES / "commscope_latency.json")
    stats = run.point(4).stats
    assert stats == {
        "unit": "us",
        "samples": 1250,
        "min": 0.42,
        "max": 2.91,
        "mean": 0.471,
        "median": 0.46,
        "p50": 0.46,
        "p90": 0.52,
        "p99": 0.75,
        "stddev": 0.06,
        "ci95_low": 0.468,
        "ci95_high": 0.474,
    }
    assert run.provenance["mpi"]["library_version"] == "MPICH Version: 4.2.0"
    assert run.provenance["hosts"] == [{"name": "node01", "ranks": [0, 1]}]
    assert run.provenance["argv"][1] == "latency"
    assert run.provenance["start_time"] == "2024-11-21T10:12:44Z"
    assert run.provenance["options"]["percentiles"] == [50, 90, 99]
    assert run.provenance["environment"] == {"OMP_NUM_THREADS": "1"}


def test_point_lines_point_at_the_records():
    (run,) = parse_file(FIXTURES / "commscope_latency.json")
    text = (FIXTURES / "commscope_latency.json").read_text().splitlines()
    for point in run.points:
        assert text[point.line - 1].strip() == "{"
        assert f'"size": {point.size},' in text[point.line]


def test_vary_window_is_one_run_whose_points_carry_their_window():
    """-V: one run, as `commscope run` stores the same records, each point with its window
    (this reader gave a run per window before the core's records had one reader)."""
    (parsed,) = parse_file(FIXTURES / "commscope_mbw_mr_vary_window.json")
    assert parsed.label is None
    assert [(point.window, point.size) for point in parsed.run.points] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert parsed.run.points[3].metrics["message_rate"] == 1705388.12
    assert parsed.points[3].values["message_rate"] == 1705388.12
    assert parsed.metrics["bandwidth_MBps"] == "MB/s"
    assert parsed.run.points[0].validation is None and parsed.points[0].values.get("validation") is None


def test_bandwidth_percentiles_are_named_in_MBps():
    doc = json.loads((FIXTURES / "commscope_mbw_mr_vary_window.json").read_text())
    doc["results"][0]["percentiles"] = [{"p": 99.9, "value": 0.99}]
    run = parse_text(json.dumps(doc), "r.json")[0]
    assert run.point(1).values["p99_9_MBps"] == 0.99


def test_failed_validation_status():
    doc = document()
    doc["status"] = "validation_failed"
    doc["results"][2]["validation"] = {"errors": 3}
    (run,) = parse_text(json.dumps(doc, indent=2), "r.json")
    assert run.point(4).values["validation"] == "Fail"
    assert run.point(4).values["validation_errors"] == 3
    assert run.notes == ["status: validation_failed"]


def test_schema_violation_names_the_line_of_the_value():
    text = json.dumps(document(), indent=2).replace('"iterations": 10000', '"iterations": "many"', 1)
    with pytest.raises(ParseError) as error:
        parse_text(text, "r.json")
    wrong_line = next(i for i, line in enumerate(text.splitlines(), 1) if '"many"' in line)
    assert error.value.line == wrong_line
    assert "$.results[0].iterations" in error.value.message
    assert "'many' is not of type 'integer'" in error.value.message


def test_missing_required_field():
    doc = document()
    del doc["mpi"]
    with pytest.raises(ParseError) as error:
        parse_text(json.dumps(doc), "r.json")
    assert "'mpi' is a required property" in error.value.message


def test_unknown_field_is_rejected():
    doc = document()
    doc["results"][1]["metrics"]["latency_ns"] = 450
    with pytest.raises(ParseError) as error:
        parse_text(json.dumps(doc, indent=1), "r.json")
    assert "latency_ns" in error.value.message


def test_sizes_must_increase_within_a_window():
    doc = document()
    doc["results"][1]["size"] = 8
    with pytest.raises(ParseError) as error:
        parse_text(json.dumps(doc, indent=2), "r.json")
    assert "sizes not increasing: 4 follows 8" in error.value.message


def test_truncated_document():
    text = (FIXTURES / "commscope_latency.json").read_text()
    with pytest.raises(ParseError) as error:
        parse_text(text[:1500], "r.json")
    assert error.value.message.startswith("truncated JSON")
    assert error.value.line == text[:1500].count("\n") + 1


def test_other_json_is_not_a_commscope_result():
    with pytest.raises(ParseError) as error:
        parse_text('{"benchmarks": []}', "pyperf.json")
    assert str(error.value) == (
        'pyperf.json:1: JSON document is not a commscope result (no top-level "schema": "commscope-result")'
    )


@pytest.mark.parametrize(
    "text",
    [
        '{"schema": "commscope-result", "x": NaN}',
        '{"schema": "commscope-result", "x": 1e999}',
        "[" * 100000,
        '{"schema": "commscope-result", "x": ' + "9" * 5000 + "}",
    ],
)
def test_hostile_json_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_text(text, "r.json")


def test_a_negative_value_is_refused_with_the_line_of_its_record():
    doc = document()
    doc["results"][1]["metrics"]["latency_us"] = -0.5
    text = json.dumps(doc, indent=2)
    with pytest.raises(ParseError) as error:
        parse_text(text, "neg.json")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "-0.5" in row)
    assert "latency_us -0.5 is negative" in str(error.value)
    assert error.value.line is not None and error.value.line <= line
