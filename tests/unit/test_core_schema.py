"""The C reporters' golden JSON and JSONL outputs satisfy the checked-in schema (no MPI)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from commscope.ingest.parse.commscope_json import load_schema
from paths import REPO

SCHEMA = load_schema()  # the one copy: python/commscope/records/schema/result.schema.json
GOLDEN = REPO / "tests" / "c" / "golden"


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.json")))
def test_golden_documents_match_schema(name):
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads((GOLDEN / name).read_text()))


def test_jsonl_stream_reassembles_into_a_valid_document():
    lines = [json.loads(l) for l in (GOLDEN / "latency.jsonl").read_text().splitlines()]
    started = [line.pop("started") for line in lines if "started" in line]
    for line in started:
        jsonschema.Draft202012Validator({"$defs": SCHEMA["$defs"], "$ref": "#/$defs/started"}).validate(line)
    assert [line["rank"] for line in started] == [0, 1]
    lines = lines[len(started) :]
    doc = dict(lines[0]["header"])
    doc["results"] = [l["record"] for l in lines[1:-1]]
    doc.update(lines[-1]["end"])
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    assert doc["argv"][-1] == '--label="quoted"\\path'  # escaping survives the round trip


def test_schema_rejects_a_record_without_statistics():
    doc = json.loads((GOLDEN / "bw.json").read_text())
    del doc["results"][0]["stats"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SCHEMA).validate(doc)
