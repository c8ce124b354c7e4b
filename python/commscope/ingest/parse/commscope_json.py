"""Reader for the JSON document ``commscope-bench --format json`` prints.

The document is checked against the schema shipped with the package
(``commscope/records/schema/result.schema.json``, the project's only copy, the
contract of the core's output) before anything is taken from it, so a
document from a newer or broken core is rejected with the line of the
offending value instead of being half-imported.
"""

from __future__ import annotations

import bisect
import copy
import functools
import json
import math
import re
from importlib import resources
from json.decoder import scanstring
from typing import Any

from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import ParsedRun, Point
from commscope.ingest.parse.text import lone_surrogate
from commscope.records import benchmarks
from commscope.records.core_record import CoreOutput, RecordOrder, fill_run, outcome
from commscope.records.metrics import unit_of
from commscope.records.run import Point as RunPoint
from commscope.records.run import Run

SCHEMA_NAME = "commscope-result"
_SCHEMA_RESOURCE = ("records", "schema", "result.schema.json")

# Provenance: everything at the top level that is not the results themselves.
_PROVENANCE_KEYS = (
    "schema_version",
    "tool",
    "argv",
    "benchmark",
    "options",
    "mpi",
    "hosts",
    "cpu_model",
    "start_time",
    "end_time",
    "environment",
    "status",
    "gpus",
)


def looks_like_commscope_json(text: str) -> bool:
    """Whether ``text`` is (meant to be) a JSON document rather than text tables."""
    return text.lstrip().startswith(("{", "["))


def load_schema() -> dict[str, Any]:
    """The result schema shipped inside the package."""
    return _load_schema_cached()


@functools.lru_cache(maxsize=1)
def _load_schema_cached() -> dict[str, Any]:
    resource = resources.files("commscope").joinpath(*_SCHEMA_RESOURCE)
    return json.loads(resource.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def _fast_check() -> Any:
    """The schema compiled into Python code by fastjsonschema, or None where it cannot be:
    it tells a valid document from an invalid one about ten times faster than jsonschema,
    which stays the judge of an invalid one and says what is wrong in its words."""
    try:
        import fastjsonschema  # imported here: only JSON documents need it

        # a copy: compiling rewrites the schema's $refs in place, and jsonschema reads it after.
        # use_default=False: the check must not fill defaults into the document it reads.
        return fastjsonschema.compile(copy.deepcopy(_load_schema_cached()), use_default=False)
    except Exception:  # whatever fails there, jsonschema checks alone, as before
        return None


@functools.lru_cache(maxsize=1)
def schema_validator() -> Any:
    """The result schema's jsonschema validator, checked and built once per process."""
    import jsonschema  # imported here: only JSON documents need it

    schema = _load_schema_cached()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def read_commscope_json(text: str, source: str) -> list[ParsedRun]:
    """Runs from one commscope result document; :class:`ParseError` if it is
    not valid JSON, not a commscope result, or does not match the schema."""
    document = _load_json(text, source)
    if not isinstance(document, dict) or document.get("schema") != SCHEMA_NAME:
        raise ParseError(source, 1, f'JSON document is not a commscope result (no top-level "schema": "{SCHEMA_NAME}")')
    lines = _LineFinder(text)
    half = lone_surrogate(text, document)
    if half is not None:
        path, value = half
        shown = value.encode("utf-8", "backslashreplace").decode()
        raise ParseError(
            source, lines.line_of(path), f"{_json_path(path)}: {shown!r} holds half a character (a lone \\u escape)"
        )
    _validate(document, lines, source)
    return _runs(document, lines, source)


def _load_json(text: str, source: str) -> Any:
    def reject_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a number JSON allows")

    def finite_float(token: str) -> float:
        value = float(token)
        if not math.isfinite(value):
            raise ValueError(f"{token} is too large for a number")
        return value

    try:
        return json.loads(text, parse_constant=reject_constant, parse_float=finite_float)
    except json.JSONDecodeError as error:
        # A document cut off mid-way fails at its very end, or inside an
        # unterminated string; say so, it is the common case (a killed job).
        cut_off = error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string")
        what = "truncated JSON" if cut_off else "malformed JSON"
        raise ParseError(source, error.lineno, f"{what}: {error.msg}") from None
    except (ValueError, RecursionError) as error:
        # Non-finite numbers, integers too long to convert, absurd nesting.
        raise ParseError(source, 1, f"malformed JSON: {error}") from None


def _validate(document: dict[str, Any], lines: _LineFinder, source: str) -> None:
    """Nothing when `document` matches the schema; else ParseError with the line of the first
    wrong value. A document the fast check passes is valid: every keyword of the schema means
    the same to both checkers (tests/unit/test_parse_commscope_json_large.py mutates documents to
    hold them to it), and fastjsonschema checks date-time formats that jsonschema may not."""
    check = _fast_check()
    if check is not None:
        try:
            check(document)
            return
        except RecursionError:
            raise ParseError(source, 1, "JSON document is nested too deeply") from None
        except Exception:  # JsonSchemaException: jsonschema below says what is wrong and where
            pass
    try:
        validator = schema_validator()
    except Exception as error:  # a broken installation must still surface as ParseError
        raise ParseError(source, 1, f"cannot load the commscope result schema: {error}") from None
    try:
        errors = sorted(validator.iter_errors(document), key=lambda e: lines.line_of(tuple(e.absolute_path)))
    except RecursionError:
        raise ParseError(source, 1, "JSON document is nested too deeply") from None
    if errors:
        first = errors[0]
        path = tuple(first.absolute_path)
        where = _json_path(path)
        raise ParseError(
            source, lines.line_of(path), f"does not match the commscope result schema: {where}: {_short(first.message)}"
        )


def _short(message: str) -> str:
    return message if len(message) <= 200 else message[:197] + "..."


def _json_path(path: tuple[Any, ...]) -> str:
    text = "$"
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _runs(document: dict[str, Any], lines: _LineFinder, source: str) -> list[ParsedRun]:
    """The document's one run, read as `commscope run` reads the same records from the stream
    (records/core_record.py), and its table view for the readers' neutral model."""
    output = CoreOutput.of_document(document)
    if not output.records and output.planned_records != 0:  # hello plans none (records/core_record.outcome)
        raise ParseError(source, lines.line_of(("results",)), "commscope result has no records")
    order = RecordOrder()
    for index, record in enumerate(output.records):
        problem = order.problem(record)
        if problem:
            raise ParseError(source, lines.line_of(("results", index)), problem)
    run = fill_run(Run(benchmark=benchmarks.from_program(output.header["benchmark"]["name"])), output)
    run.status, run.status_reason = outcome(output)
    run.source_format = "commscope-json"
    points = [
        _table_point(point, record, lines.line_of(("results", index)))
        for index, (point, record) in enumerate(zip(run.points, output.records))
    ]
    options = document["options"]
    parameters: dict[str, Any] = {
        "datatype": options["datatype"],
        "window_size": options["window"],
        "pairs": options["pairs"],
        "buffers": options["buffers"],
        "send_mode": options["send_mode"],
    }
    if "memory" in options:  # GPU runs: where each side's buffers were (a run option, not an axis)
        parameters.update(
            accelerator=options["accelerator"], memory=f"{options['memory']['send']}/{options['memory']['recv']}"
        )
    return [
        ParsedRun(
            benchmark=run.benchmark,
            source_format=run.source_format,
            source=source,
            line=1,
            metrics={metric: unit_of(metric) for point in points for metric in point.values},
            points=points,
            tool=run.tool_name,
            tool_version=run.tool_version,
            title=run.description,
            ranks=run.ranks,
            parameters=parameters,
            provenance={key: document[key] for key in _PROVENANCE_KEYS if key in document},
            notes=[] if document["status"] == "complete" else [f"status: {document['status']}"],
            run=run,
        )
    ]


def _table_point(point: RunPoint, record: dict[str, Any], line: int) -> Point:
    """A Point of the run as a row of values, as the readers of text tables give them."""
    values: dict[str, Any] = {
        **point.metrics,
        "iterations": point.iterations,
        "warmup": point.warmup,
        "batch": point.batch,
    }
    if point.validation_errors is not None:
        values.update(validation=point.validation, validation_errors=point.validation_errors)
    return Point(size=point.size, values=values, line=line, stats=dict(record["stats"]))


class _LineFinder:
    """Line numbers of the values in a JSON text, by their path, found when asked.

    ``json`` does not report positions, so the text is walked again along the path asked
    for, each value beside it skipped by decoding it (in C). What a walk has seen of an
    object or array is kept and a later walk goes on from there: the lines of all records,
    asked in order, cost one more decoding of the results, and a header value's line does
    not decode the results at all.
    """

    _BLANKS = re.compile(r"[ \t\n\r]*")

    def __init__(self, text: str) -> None:
        self.text = text
        self._decoder = json.JSONDecoder()
        self._newlines: list[int] | None = None
        # per container's offset: its members' offsets so far, and where its walk goes on
        self._walks: dict[int, tuple[dict[Any, int], int | None]] = {}

    def line_of(self, path: tuple[Any, ...]) -> int:
        """The line of the value at `path`, or of its nearest ancestor the text has."""
        offset = self._skip(0)
        try:
            for part in path:
                found = self._member(offset, part)
                if found is None:
                    break
                offset = found
        except (RecursionError, ValueError, IndexError):
            pass  # a text json did not take: the deepest offset found stands
        if self._newlines is None:
            self._newlines = [match.start() for match in re.finditer("\n", self.text)]
        return bisect.bisect_left(self._newlines, offset) + 1

    def _skip(self, index: int) -> int:
        return self._BLANKS.match(self.text, index).end()  # type: ignore[union-attr]

    def _member(self, offset: int, part: Any) -> int | None:
        """The offset of member `part` (a key, or an index) of the container at `offset`."""
        opening = self.text[offset]
        if opening not in "{[" or isinstance(part, int) != (opening == "["):
            return None
        members, index = self._walks.get(offset, ({}, offset + 1))
        while part not in members and index is not None:
            index = self._skip(index)
            if self.text[index] in "]}":
                index = None
                break
            if opening == "{":
                key, index = scanstring(self.text, index + 1)
                index = self._skip(self._skip(index) + 1)  # past the colon
            else:
                key = len(members)
            members[key] = index  # a key given twice: its first value (the core never repeats one)
            index = self._skip(self._decoder.raw_decode(self.text, index)[1])
            index = None if self.text[index] in "]}" else index + 1  # past the comma
        self._walks[offset] = (members, index)
        return members.get(part)
