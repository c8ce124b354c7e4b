"""The one reader of commscope-bench's records: its header and records become a Run and Points.

The core writes one measurement two ways: the JSON Lines stream `commscope run` follows
(``{"header": ...}``, a ``{"record": ...}`` per point, ``{"end": {"end_time", "status"}}``),
and the document of ``--format json``, which is that header with the records as
``results`` and the end's fields beside them. execute/stream.py reads the first,
ingest/parse/commscope_json.py the second; both hand a CoreOutput to this module, so a
measurement gives the same Run and Points, every axis included, whichever way it came.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from commscope.records.metrics import STATS, percentile_metric
from commscope.records.run import AXES, Axes, Pair, Point, Run

#: What only the document has: the stream's header lacks these, its records and end line hold them.
DOCUMENT_ONLY = ("results", "end_time", "status")
#: The core's end statuses (result.schema.json "status").
END_STATUSES = ("complete", "validation_failed", "error")
#: What tells a record's point from the others besides its pair: a second record with the same
#: values is a broken output, never a point to store twice.
_POINT_AXES = ("size", "window", *AXES)


@dataclass
class CoreOutput:
    """What the core wrote of one measurement: its header, its records in order, and its end
    (``{"end_time", "status"}``; None while it runs, or when it never finished)."""

    header: dict
    records: list[dict] = field(default_factory=list)
    end: dict | None = None

    @classmethod
    def of_document(cls, document: dict) -> CoreOutput:
        """The output a ``--format json`` document holds (checked against the schema before)."""
        header = {key: value for key, value in document.items() if key not in DOCUMENT_ONLY}
        return cls(header, list(document["results"]), {"end_time": document["end_time"], "status": document["status"]})

    @property
    def metric(self) -> str:
        """The benchmark's metric, "latency" or "bandwidth"."""
        return self.header["benchmark"]["metric"]

    @property
    def planned_records(self) -> int | None:
        """How many records a complete sweep writes, as the core's header states it."""
        planned = self.header.get("planned_records")
        return planned if isinstance(planned, int) else None


class RecordOrder:
    """The order every output of the core keeps: one record per point, and within a series
    (a window, the other axes and a pair) sizes that grow. `problem` says what a record
    breaks, or None and takes it in."""

    def __init__(self) -> None:
        self._seen: set[tuple] = set()
        self._last_size: dict[tuple, int] = {}

    def problem(self, record: dict) -> str | None:
        pair = record.get("pair")
        pair_key = (pair["src"], pair["dst"], pair["metric"]) if pair else None
        key = (*(record.get(axis) for axis in _POINT_AXES), pair_key)
        if key in self._seen:
            where = [f"{axis} {record[axis]}" for axis in _POINT_AXES[1:] if record.get(axis) is not None]
            where += [f"pair {pair_key[0]}->{pair_key[1]} {pair_key[2]}"] if pair_key else []
            return f"a second record for size {record['size']}" + (f" ({', '.join(where)})" if where else "")
        series, size = key[1:], record["size"]
        if size is not None and self._last_size.get(series, -1) > size:
            return f"sizes not increasing: {size} follows {self._last_size[series]}"
        self._seen.add(key)
        if size is not None:
            self._last_size[series] = size
        return None


def fill_run(run: Run, output: CoreOutput) -> Run:
    """`run` (the fields only its caller knows: what was launched, or which file it came from)
    with what the core wrote: provenance from the header, a Point per record, the end time."""
    apply_header(run, output.header)
    run.points = [point_from_core(record, output.metric) for record in output.records]
    if output.end is not None:
        run.ended_at = output.end["end_time"]
    return run


def outcome(output: CoreOutput, detail: str = "") -> tuple[str, str | None]:
    """(status, reason) of an output the core finished (its end written); `detail` ends the
    reason where the records cannot tell what went wrong (": " and a line of its stderr)."""
    assert output.end is not None, "only a finished output has an outcome"
    status = output.end["status"]
    # a benchmark that times nothing (hello: MPI started on every rank is the result) plans
    # no record, and its end says whether it went through
    if not output.records and output.planned_records != 0:
        return "failed", f"commscope-bench ended ({status}) but wrote no result records{detail}"
    if status == "validation_failed":
        wrong = [
            f"{record['size']} B ({record['validation']['errors']} wrong)"
            for record in output.records
            if record.get("validation") and record["validation"]["errors"]
        ]
        return "failed", "validation failed" + (f" at {', '.join(wrong)}" if wrong else "")
    if status == "error":
        return "failed", f"commscope-bench reported an error{detail}"
    return "complete", None


def point_from_core(record: dict, metric_kind: str) -> Point:
    """A Point from one commscope-bench result record (result.schema.json $defs/record).

    `metric_kind` is the benchmark's metric ("latency" or "bandwidth"); it names
    the -z percentiles the way the OMB readers do (p99_us, p99_MBps).
    """
    metrics = dict(record["metrics"])
    suffix = "us" if metric_kind == "latency" else "MBps"
    for percentile in record.get("percentiles", []):
        metrics[percentile_metric(percentile["p"], suffix)] = percentile["value"]
    precision = record.get("precision")
    if precision:  # --precision: what the size reached and why it stopped (docs/precision.md)
        metrics.update(
            {
                f"precision_{key}": precision[key]
                for key in ("achieved_pct", "target_pct", "rounds", "stop")
                if precision[key] is not None
            }
        )
    stats = record["stats"]
    validation = record.get("validation")
    return Point(
        size=record["size"],
        window=record["window"],
        axes=Axes.of(record),
        iterations=record["iterations"],
        warmup=record["warmup"],
        batch=record["batch"],
        samples=stats["samples"],
        stats={key: stats[key] for key in STATS},
        metrics=metrics,
        validation_errors=validation["errors"] if validation is not None else None,
        pair=Pair.of(record.get("pair")),
    )


# MPI_Get_library_version strings start differently for every library.
_MPI_LIBRARIES = (
    ("Open MPI", re.compile(r"Open MPI v(\d[\w.]*)")),
    ("Cray MPICH", re.compile(r"CRAY MPICH version (\d[\w.]*)", re.IGNORECASE)),
    ("MVAPICH", re.compile(r"MVAPICH\S*\s+Version\s*:?\s*(\d[\w.]*)", re.IGNORECASE)),
    ("Intel MPI", re.compile(r"Intel\(R\) MPI Library (\d[\w.]*)")),
    ("MPICH", re.compile(r"MPICH Version:\s*(\d[\w.]*)")),
)


def mpi_identity(library_version: str) -> tuple[str | None, str | None]:
    """("Open MPI", "4.1.4") from an MPI_Get_library_version string; (first line, None) if unknown."""
    for name, pattern in _MPI_LIBRARIES:
        match = pattern.search(library_version)
        if match:
            return name, match.group(1)
    first = library_version.strip().splitlines()[:1]
    return (first[0] if first else None), None


# Header keys that become Run fields; the rest (schema version, the core's argv,
# the benchmark's pattern and metric, status) is kept in Run.provenance.
_HEADER_FIELDS = ("tool", "options", "mpi", "hosts", "cpu_model", "start_time", "end_time", "environment")


def provenance_from_header(header: dict) -> dict[str, Any]:
    """Run fields from a commscope-bench JSON header (the result document without results;
    a whole document works too)."""
    mpi = header.get("mpi", {})
    library, version = mpi_identity(mpi.get("library_version", ""))
    tool = header.get("tool", {})
    rest = {key: value for key, value in header.items() if key not in _HEADER_FIELDS and key != "results"}
    return {
        "description": header.get("benchmark", {}).get("description"),
        "ranks": mpi.get("ranks"),
        "nodes": len(header["hosts"]) if header.get("hosts") else None,
        "started_at": header.get("start_time"),
        "ended_at": header.get("end_time"),
        "tool_name": tool.get("name"),
        "tool_version": tool.get("version"),
        "tool_git_commit": tool.get("git_commit"),
        "mpi_library": library,
        "mpi_version": version,
        "mpi_library_version": mpi.get("library_version"),
        "hosts": header.get("hosts"),
        "cpu_model": header.get("cpu_model"),
        "environment": header.get("environment"),
        "options": header.get("options"),
        "provenance": rest or None,
    }


def apply_header(run: Run, header: dict) -> None:
    """Fill a run's provenance from a commscope-bench header; what the header lacks is kept."""
    for key, value in provenance_from_header(header).items():
        if value is not None:
            setattr(run, key, value)
