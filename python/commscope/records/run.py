"""The harness's own records: a Run (one size sweep with its provenance) and its Points.

Both the live runner and the importer build these, the store saves and loads
them, and the table renderer and exporter read them, so every path agrees on
one shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

from commscope.records.metrics import percentile_metric

#: Metrics commscope-bench writes (result.schema.json); each has its own column in
#: the store. Other metrics (percentiles, imported OMB/IMB columns) live in
#: Point.metrics too and are stored together as JSON.
CORE_METRICS = ("latency_us", "min_latency_us", "max_latency_us", "bandwidth_MBps",
                "min_bandwidth_MBps", "max_bandwidth_MBps", "message_rate")
#: Sample statistics of the core, all in microseconds per operation.
STATS = ("min", "max", "mean", "median", "p50", "p90", "p99", "stddev", "ci95_low", "ci95_high")
#: Their names as store columns and export fields.
TIME_COLUMNS = tuple(f"time_{key}_us" for key in STATS)

#: Run statuses. "incomplete": the sweep stopped early (crash, timeout,
#: interrupt) and holds only the sizes measured before; "failed": the core
#: reported a validation failure or an error, or never started measuring.
STATUSES = ("complete", "incomplete", "failed")

# Field metadata: which Run fields are stored as JSON text.
_JSON = {"json": True}


@dataclass(frozen=True)
class Pair:
    """The rank pair a point of the pairs benchmark measured, and what: a sweep axis, so
    (src, dst, metric) is part of the point's identity (`key`). Hosts, cores and the
    schedule position say where it ran; they come from the core's record, never guessed."""

    src: int
    dst: int
    metric: str  # latency | bw | bibw
    src_host: str | None = None
    dst_host: str | None = None
    src_cpu: int | None = None
    dst_cpu: int | None = None
    round: int | None = None
    slot: int | None = None

    @property
    def key(self) -> tuple[int, int, str]:
        return self.src, self.dst, self.metric

    @classmethod
    def of(cls, record: dict | None) -> Pair | None:
        """From a core record's "pair" (or a stored one); None when there is none."""
        if not record:
            return None
        return cls(**{name: record.get(name) for name in _PAIR_FIELDS})

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in _PAIR_FIELDS}


_PAIR_FIELDS = ("src", "dst", "metric", "src_host", "dst_host", "src_cpu", "dst_cpu", "round", "slot")


@dataclass
class Point:
    """The measurements at one message size (and window, for mbw_mr -V; and pair, for
    the pairs benchmark)."""

    size: int | None  # None for benchmarks without a message size (barrier)
    metrics: dict[str, Any] = field(default_factory=dict)  # name -> number (or "Pass"/"Fail")
    window: int | None = None
    iterations: int | None = None
    warmup: int | None = None
    batch: int | None = None
    samples: int | None = None
    stats: dict[str, float] = field(default_factory=dict)  # STATS keys, microseconds
    validation_errors: int | None = None  # None: not validated
    pair: Pair | None = None  # pairs benchmark: which pair and metric

    @property
    def validation(self) -> str | None:
        """"Pass"/"Fail" as OMB prints it, or None when the point was not validated."""
        if self.validation_errors is not None:
            return "Pass" if self.validation_errors == 0 else "Fail"
        return self.metrics.get("validation")


@dataclass
class Run:
    """One size sweep of one benchmark, with everything known about where it came from."""

    benchmark: str
    status: str = "complete"
    status_reason: str | None = None
    description: str | None = None
    flags: list[str] = field(default_factory=list, metadata=_JSON)
    ranks: int | None = None
    nodes: int | None = None
    placement: str | None = None  # requested placement hint
    label: str | None = None
    repeat_index: int = 0
    started_at: str | None = None
    ended_at: str | None = None
    launcher_argv: list[str] | None = field(default=None, metadata=_JSON)
    tool_name: str | None = None
    tool_version: str | None = None
    tool_git_commit: str | None = None
    mpi_library: str | None = None
    mpi_version: str | None = None
    mpi_library_version: str | None = None  # MPI_Get_library_version, verbatim
    hosts: list[dict] | None = field(default=None, metadata=_JSON)  # [{"name", "ranks": [...]}]
    cpu_model: str | None = None
    compiler: str | None = None
    job_id: str | None = None
    environment: dict[str, str] | None = field(default=None, metadata=_JSON)
    options: dict[str, Any] | None = field(default=None, metadata=_JSON)
    provenance: dict[str, Any] | None = field(default=None, metadata=_JSON)  # anything else a source told
    notes: list[str] | None = field(default=None, metadata=_JSON)
    source_format: str | None = None  # imports: omb, imb, commscope-json, table
    source_file: str | None = None
    # Not columns of `runs`: kept in their own tables or filled in when loading.
    points: list[Point] = field(default_factory=list, metadata={"stored": False})
    raw: dict[str, bytes] = field(default_factory=dict, metadata={"stored": False})
    system: str | None = field(default=None, metadata={"stored": False})
    id: int | None = field(default=None, metadata={"stored": False})
    invocation_id: int | None = field(default=None, metadata={"stored": False})
    commscope_version: str | None = field(default=None, metadata={"stored": False})
    commscope_git_commit: str | None = field(default=None, metadata={"stored": False})


#: The Run fields that are columns of the `runs` table, in order.
RUN_COLUMNS = tuple(f.name for f in fields(Run) if f.metadata.get("stored", True))
RUN_JSON_COLUMNS = frozenset(f.name for f in fields(Run) if f.metadata.get("json"))


def point_from_core(record: dict, metric_kind: str) -> Point:
    """A Point from one commscope-bench result record (result.schema.json $defs/record).

    `metric_kind` is the benchmark's metric ("latency" or "bandwidth"); it names
    the -z percentiles the way the OMB readers do (p99_us, p99_MBps).
    """
    metrics = dict(record["metrics"])
    suffix = "us" if metric_kind == "latency" else "MBps"
    for percentile in record.get("percentiles", []):
        metrics[percentile_metric(percentile["p"], suffix)] = percentile["value"]
    stats = record["stats"]
    validation = record.get("validation")
    return Point(
        size=record["size"], window=record["window"], iterations=record["iterations"],
        warmup=record["warmup"], batch=record["batch"], samples=stats["samples"],
        stats={key: stats[key] for key in STATS}, metrics=metrics,
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
