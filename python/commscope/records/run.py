"""The harness's own records: a Run (one benchmark's curve over message sizes with its provenance) and its Points.

Both the live runner and the importer build these, the store saves and loads
them, and the table renderer and exporter read them, so every path agrees on
one shape.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple, TypeVar

from commscope.records.metrics import CORE_METRICS, STATS

#: The largest whole number a record holds (a size, a count, an id): SQLite's integers are
#: 64-bit signed.
LARGEST_INTEGER = 2**63 - 1

# Field metadata: which Run fields are stored as JSON text.
_JSON = {"json": True}


@dataclass(frozen=True)
class Axes:
    """The sweep axes of a point besides its size and window: what else the core varies
    within one run. None means "not swept" (or not known, for older results and imports
    whose file does not say). The names are the core's record keys; a new axis (memory
    kind, pair) is a new field here, a column in a store migration, and nothing else."""

    # collectives -T: MPI_CHAR, MPI_INT, ...
    datatype: str | None = field(default=None, metadata={"title": "Datatype"})
    # one-sided -w: create, allocate, dynamic
    window_creation: str | None = field(default=None, metadata={"title": "Window creation"})
    # one-sided -s: lock, pscw, fence, flush, flush_local, lock_all
    synchronization: str | None = field(default=None, metadata={"title": "Synchronization"})
    # congestion: the canary test (rr_lat, rr_bw, rr_bw_sync, allreduce; None: congestors only)
    canary: str | None = field(default=None, metadata={"title": "Canary test"})
    # congestion: the congestor beside it (alltoall, incast, put-incast, bcast, get-bcast)
    congestor: str | None = field(default=None, metadata={"title": "Congestor"})

    @classmethod
    def of(cls, values: dict) -> Axes:
        """The axes a mapping (a core record, a parsed table's parameters) names."""
        return cls(**{name: values.get(name) for name in AXES})

    def only(self, names: tuple[str, ...]) -> Axes:
        """These axes with every axis not in `names` unset."""
        # asked for every point of every run an analysis reads, mostly with no axis or all
        if not names:
            return NO_AXES
        if names == AXES:
            return self
        return Axes(**{name: getattr(self, name) for name in names})

    def values(self) -> tuple[str | None, ...]:
        """Every axis's value, in AXES order (store columns, export cells)."""
        return tuple(getattr(self, name) for name in AXES)

    def items(self) -> list[tuple[str, str]]:
        """(name, value) of the axes that are set, in AXES order."""
        return [(name, getattr(self, name)) for name in AXES if getattr(self, name) is not None]

    def label(self) -> str:
        """ "MPI_INT", "allocate, fence": the values that are set, for legends and headings."""
        return ", ".join(value for _, value in self.items())

    def suffix(self) -> str:
        """ " [MPI_INT]" to append to a curve's name, or "" when no axis is set."""
        return f" [{self.label()}]" if self.label() else ""


#: The sweep axes' names, in the order the core nests its loops (outermost first).
AXES = tuple(f.name for f in fields(Axes))
#: No axis set: one shared value (Axes is frozen) for the points of runs that sweep none.
NO_AXES = Axes()
#: How OSU tables (OMB's and the core's) name the one-sided modes, by the core's option words.
ONE_SIDED_CALLS = {
    "window_creation": {
        "create": "MPI_Win_create",
        "allocate": "MPI_Win_allocate",
        "dynamic": "MPI_Win_create_dynamic",
    },
    "synchronization": {
        "lock": "MPI_Win_lock/unlock",
        "pscw": "MPI_Win_post/start/complete/wait",
        "fence": "MPI_Win_fence",
        "flush": "MPI_Win_flush",
        "flush_local": "MPI_Win_flush_local",
        "lock_all": "MPI_Win_lock_all/unlock_all",
    },
}
#: How people read an axis name in a table header.
AXIS_TITLES = {f.name: f.metadata["title"] for f in fields(Axes)}


class PointKey(NamedTuple):
    """A point's identity within a run: size, window and the other sweep axes. Built by
    Point.key only; analysis may blank parts that do not vary (see analysis.compare)."""

    size: int | None
    window: int | None
    axes: Axes
    pair: tuple[int, int, str] | None = None  # the pairs benchmark's (src, dst, metric): Pair.key


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
    """The measurements at one message size (and window, for mbw_mr -V, and the other
    sweep axes: datatype for collectives, window creation and synchronisation for
    one-sided benchmarks; and pair, for the pairs benchmark)."""

    size: int | None  # None for benchmarks without a message size (barrier)
    metrics: dict[str, Any] = field(default_factory=dict)  # name -> number (or "Pass"/"Fail")
    window: int | None = None
    axes: Axes = field(default_factory=Axes)
    iterations: int | None = None
    warmup: int | None = None
    batch: int | None = None
    samples: int | None = None
    stats: dict[str, float] = field(default_factory=dict)  # STATS keys, microseconds
    validation_errors: int | None = None  # None: not validated
    pair: Pair | None = None  # pairs benchmark: which pair and metric

    @property
    def validation(self) -> str | None:
        """ "Pass"/"Fail" as OMB prints it, or None when the point was not validated."""
        if self.validation_errors is not None:
            return "Pass" if self.validation_errors == 0 else "Fail"
        return self.metrics.get("validation")

    @property
    def key(self) -> PointKey:
        return PointKey(self.size, self.window, self.axes, self.pair.key if self.pair is not None else None)

    def column_values(self) -> tuple:
        """size, window, the axes, iterations, warmup, batch, samples, the STATS and the
        CORE_METRICS: the columns a point starts with in the store and in an export."""
        return (
            self.size,
            self.window,
            *self.axes.values(),
            self.iterations,
            self.warmup,
            self.batch,
            self.samples,
            *map(self.stats.get, STATS),
            *map(self.metrics.get, CORE_METRICS),
        )


_T = TypeVar("_T")


@dataclass
class Run:
    """One curve of one benchmark over message sizes, with everything known about where it came from."""

    benchmark: str
    #: complete; incomplete: the sweep stopped early (crash, timeout, interrupt) and holds
    #: only the sizes measured before; failed: the core reported a validation failure or an
    #: error, or never started measuring.
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
    #: The run's kind and, for a link sweep, its mode (records.run_kinds): filled in when the
    #: run is stored, read back with it.
    kind: str | None = None
    sweep_mode: str | None = None
    # Not columns of `runs`: kept in their own tables or filled in when loading.
    points: list[Point] = field(default_factory=list, metadata={"stored": False})
    raw: dict[str, bytes] = field(default_factory=dict, metadata={"stored": False})
    system: str | None = field(default=None, metadata={"stored": False})
    id: int | None = field(default=None, metadata={"stored": False})
    invocation_id: int | None = field(default=None, metadata={"stored": False})
    commscope_version: str | None = field(default=None, metadata={"stored": False})
    commscope_git_commit: str | None = field(default=None, metadata={"stored": False})

    def derived(self, question: str, detail: object, compute: Callable[[], _T]) -> _T:
        """What the analysis works out from the points (their metrics, axis values, points by
        key: analysis.compare), computed when first asked and kept with the run while its
        points are the same list of the same length; a run whose points list is replaced or
        grows is answered afresh. Every analysis asks these of each run it is given, some
        eight times in a report, and they are a pure function of the points."""
        kept = self.__dict__.get("_derived")
        if kept is None or kept[0] is not self.points or kept[1] != len(self.points):
            kept = self.__dict__["_derived"] = (self.points, len(self.points), {})
        answers = kept[2]
        if (question, detail) not in answers:
            answers[question, detail] = compute()
        return answers[question, detail]


#: The Run fields that are columns of the `runs` table, in order.
RUN_COLUMNS = tuple(f.name for f in fields(Run) if f.metadata.get("stored", True))
RUN_JSON_COLUMNS = frozenset(f.name for f in fields(Run) if f.metadata.get("json"))
