"""Reading commscope-bench's --jsonl-out stream while the benchmark runs.

The core writes, flushing each line: one ``{"started": {"rank", "host", "pid"}}`` per rank
as it gets past MPI_Init (before anything collective: a rank that hung or died at start has
none), ``{"header": ...}``, one ``{"record": ...}`` per measured size (a sweep of pairs: per
pair, as each finishes), and ``{"end": {"end_time", "status"}}`` when it finishes. A
crash leaves the file without the end line, and possibly with half a line at
the end, which is not read. Lines are checked against result.schema.json so a
change of the core's output is caught here, not later in a report.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING

from commscope.records.core_record import DOCUMENT_ONLY, END_STATUSES, CoreOutput, RecordOrder

if TYPE_CHECKING:
    import jsonschema

SCHEMA_PATH = Path(__file__).parents[1] / "records" / "schema" / "result.schema.json"


@functools.lru_cache(maxsize=None)
def _validators() -> tuple[jsonschema.Draft202012Validator, ...]:
    # Imported when the first line arrives: jsonschema is the largest import of
    # `commscope run`, which a dry run or a launch that fails at once need not wait for.
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text())
    header = {**schema, "required": [key for key in schema["required"] if key not in DOCUMENT_ONLY]}

    def part(name: str) -> jsonschema.Draft202012Validator:
        return jsonschema.Draft202012Validator(
            {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{name}"}
        )

    return jsonschema.Draft202012Validator(header), part("record"), part("started")


def _schema_problem(validator: jsonschema.Draft202012Validator, instance: object) -> str | None:
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(instance))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


class CoreStream:
    """The part of a JSONL stream written so far; call poll() to read more."""

    def __init__(self, path: Path | None) -> None:
        self.path = path  # None: a stream read whole already (of)
        self._whole = b""
        #: The ranks that got going, by rank: the host each said it runs on.
        self.started: dict[int, str] = {}
        self.header: dict | None = None
        self.records: list[dict] = []
        self.end: dict | None = None
        #: Why reading stopped early (bad JSON, schema mismatch); None if all is well.
        self.problem: str | None = None
        self._offset = 0
        self._pending = b""
        self._line = 0
        self._order = RecordOrder()

    @classmethod
    def of(cls, data: bytes) -> CoreStream:
        """The stream of bytes read already (a job folder's core.jsonl, read as its own files
        are: records.inputs.read_inside)."""
        stream = cls(None)
        stream._whole = data
        stream._take(data)
        return stream

    def poll(self) -> list[dict]:
        """Read what was appended since the last call; returns the new records."""
        if self.path is None:
            return []
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self._offset)
                data = handle.read()
        except FileNotFoundError:
            return []  # the core has not opened it yet
        return self._take(data)

    def _take(self, data: bytes) -> list[dict]:
        self._offset += len(data)
        *lines, self._pending = (self._pending + data).split(b"\n")
        new = []
        for line in lines:
            self._line += 1
            if self.problem is None and line.strip():
                record = self._accept(line)
                if record is not None:
                    new.append(record)
        return new

    @property
    def output(self) -> CoreOutput | None:
        """What was read so far as the core's output; None before its header."""
        return CoreOutput(self.header, self.records, self.end) if self.header is not None else None

    @property
    def raw(self) -> bytes:
        """Everything the file holds, including an unfinished last line."""
        if self.path is None:
            return self._whole
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return b""

    def _accept(self, line: bytes) -> dict | None:
        header_validator, record_validator, started_validator = _validators()
        try:
            item = json.loads(line)
        except ValueError as exc:
            return self._stop(f"not JSON ({exc})")
        if not isinstance(item, dict) or len(item) != 1:
            return self._stop('expected one of {"started": ...}, {"header": ...}, {"record": ...}, {"end": ...}')
        ((kind, value),) = item.items()
        if kind == "started" and self.header is None:
            problem = _schema_problem(started_validator, value)
            if problem:
                return self._stop(f"start line does not match result.schema.json: {problem}")
            self.started[value["rank"]] = value["host"]
        elif kind == "header" and self.header is None:
            problem = _schema_problem(header_validator, value)
            if problem:
                return self._stop(f"header does not match result.schema.json: {problem}")
            self.header = value
        elif kind == "record" and self.header is not None and self.end is None:
            problem = _schema_problem(record_validator, value)
            if problem:
                return self._stop(f"record does not match result.schema.json: {problem}")
            problem = self._order.problem(value)
            if problem:
                return self._stop(problem)
            self.records.append(value)
            return value
        elif kind == "end" and self.header is not None and self.end is None:
            if not isinstance(value, dict) or value.get("status") not in END_STATUSES:
                return self._stop(f"end line without a known status: {value!r}")
            self.end = value
        else:
            return self._stop(f"unexpected {kind!r} line")
        return None

    def _stop(self, message: str) -> None:
        self.problem = f"{self.path.name} line {self._line}: {message}"
        return None


def started_of(data: bytes) -> dict[int, str]:
    """The start lines of a stream the core wrote (a run's raw `jsonl`), by rank: the host
    each rank that got past MPI_Init said it runs on. What is not a start line is skipped."""
    started: dict[int, str] = {}
    for line in data.split(b"\n"):
        if not line.startswith(b'{"started"'):
            continue
        try:
            value = json.loads(line)["started"]
            started[int(value["rank"])] = str(value["host"])
        except (ValueError, KeyError, TypeError):
            continue  # a line cut short by a crash
    return started


def ended_complete(data: bytes) -> bool:
    """Whether a stream the core wrote (a run's raw `jsonl`) ends with its end line, status
    complete: a start-up probe (`hello`, which measures nothing) got through."""
    for line in reversed(data.split(b"\n")):
        if line.startswith(b'{"end"'):
            try:
                return json.loads(line)["end"].get("status") == "complete"
            except (ValueError, KeyError, TypeError, AttributeError):
                return False
    return False
