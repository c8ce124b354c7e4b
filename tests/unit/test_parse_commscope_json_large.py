"""A large commscope result document: errors deep inside it still name their line, every
point keeps the line of its record, and the fast schema check (fastjsonschema) passes no
document that jsonschema, the judge of the messages, would refuse."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from commscope.ingest.parse import ParseError, parse_text
from commscope.ingest.parse.commscope_json import _fast_check, load_schema
from paths import REPO

GOLDEN = REPO / "tests" / "c" / "golden"


def many_pairs(pairs: int) -> dict:
    """The core's golden pairs document with its two records (latency, bw) repeated over
    `pairs` pairs of ranks."""
    golden = json.loads((GOLDEN / "pairs.json").read_text())
    templates = [next(r for r in golden["results"] if r["pair"]["metric"] == m) for m in ("latency", "bw")]
    golden["results"] = []
    for index in range(pairs):
        for template in templates:
            record = copy.deepcopy(template)
            record["pair"].update(src=index, dst=index + 1, src_host=f"n{index}", dst_host=f"n{index + 1}")
            golden["results"].append(record)
    golden["options"]["scheduled_pairs"] = pairs
    return golden


def line_with(text: str, needle: str) -> int:
    [line] = [number for number, row in enumerate(text.splitlines(), 1) if needle in row]
    return line


def record_lines(text: str) -> list[int]:
    """The lines where the records of a document printed with indent=2 start."""
    results = line_with(text, '"results": [')
    return [number for number, row in enumerate(text.splitlines(), 1) if row == "    {" and number > results]


@pytest.mark.slow
@pytest.mark.parametrize("indent", [None, 1])
def test_a_wrong_value_deep_in_a_large_document_names_its_line(indent):
    doc = many_pairs(600)
    doc["results"][1001]["stats"]["samples"] = "lots"
    text = json.dumps(doc, indent=indent).replace("}, {", "},\n{")  # one record a line, as the core writes
    with pytest.raises(ParseError) as error:
        parse_text(text, "big.json")
    assert error.value.line == line_with(text, '"lots"')
    assert "$.results[1001].stats.samples: 'lots' is not of type 'integer'" in error.value.message


def test_a_record_out_of_order_deep_in_a_large_document_names_its_line():
    doc = many_pairs(600)
    doc["results"][1101] = copy.deepcopy(doc["results"][15])  # a second bw record of pair 7->8
    text = json.dumps(doc, indent=2)
    with pytest.raises(ParseError) as error:
        parse_text(text, "big.json")
    assert "a second record for size 1048576" in error.value.message and "pair 7->8 bw" in error.value.message
    assert error.value.line == record_lines(text)[1101]


def test_every_point_of_a_large_document_keeps_the_line_of_its_record():
    text = json.dumps(many_pairs(400), indent=2)
    (run,) = parse_text(text, "big.json")
    assert [point.line for point in run.points] == record_lines(text)


def mutations(value, path=()):
    """(path, replacement) pairs that break or bend `value` somewhere: another type, a
    negative or fractional number, an unknown key, a key taken away."""
    if isinstance(value, dict):
        yield path + ("unknown_key",), 1
        for key, member in value.items():
            yield path + (key,), None  # None: the key removed
            yield from mutations(member, path + (key,))
    elif isinstance(value, list):
        for index, member in enumerate(value[:2]):
            yield from mutations(member, path + (index,))
    if path and not isinstance(path[-1], int) or isinstance(value, (int, float, str, bool)) or value is None:
        for other in ("text", -1, 0.5, True, None, [], {}):
            if other != value or type(other) is not type(value):
                yield path, ("set", other)


def mutated(doc: dict, path: tuple, change) -> dict:
    doc = copy.deepcopy(doc)
    *parents, last = path
    holder = doc
    for part in parents:
        holder = holder[part]
    if change is None:
        if isinstance(holder, dict):
            holder.pop(last, None)
    elif isinstance(change, tuple):
        holder[last] = change[1]
    elif isinstance(holder, dict):
        holder[last] = change
    return doc


@pytest.mark.parametrize("name", ["latency_full.json", "pairs.json", "bw_gpu.json", "allreduce_full.json"])
def test_the_fast_check_passes_no_document_jsonschema_refuses(name):
    check = _fast_check()
    assert check is not None
    assert load_schema() == json.loads((REPO / "python/commscope/records/schema/result.schema.json").read_text())
    judge = jsonschema.validators.validator_for(load_schema())(load_schema())
    doc = json.loads((GOLDEN / name).read_text())
    doc["results"] = doc["results"][:2]
    tried = refused = 0
    for path, change in mutations(doc):
        candidate = mutated(doc, path, change)
        try:
            check(candidate)
        except Exception:  # the fast check refused: jsonschema decides then
            refused += 1
        else:
            assert judge.is_valid(candidate), (path, change)
        tried += 1
    assert tried > 300 and refused > tried / 2
