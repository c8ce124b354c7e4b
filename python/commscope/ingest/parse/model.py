"""The neutral data model every reader produces."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from commscope.ingest.parse.errors import ParseError
from commscope.records.metrics import unit_of, value_problem
from commscope.records.run import Run

#: What a metric value can be: a number, or a status word such as "Pass"/"Fail".
Value = float | int | str

#: The source formats a run can come from.
SOURCE_FORMATS = (
    "omb",
    "imb",
    "commscope-json",
    "table",
    "hpl",
    "hpcc",
    "fio",
    "iozone",
    "jube",
    "nccl-tests",
    "nccl-tests-json",
)


@dataclass
class Point:
    """One row of a result table: the metrics measured at one message size.

    ``size`` is in bytes, or ``None`` for benchmarks without a message size
    (barrier, osu_init). ``line`` is the 1-based line of the source file the
    row came from. ``stats`` holds the full sample statistics where the source
    has them (commscope JSON), otherwise ``None``.
    """

    size: int | None
    values: dict[str, Value]
    line: int
    stats: dict[str, Any] | None = None

    def get(self, metric: str, default: Value | None = None) -> Value | None:
        return self.values.get(metric, default)


@dataclass
class ParsedRun:
    """One benchmark series read from a foreign (or commscope) result file.

    A run is one size sweep of one benchmark, on one system: a multi-column
    table comparing three clusters gives three runs, an IMB file with ten
    ``# Benchmarking`` sections gives ten.

    Attributes:
        benchmark: normalised name (``latency``, ``bw``, ``bibw``, ``mbw_mr``,
            ``allreduce``, ``iallreduce``, ``put_latency``, ``imb_pingpong``...).
        source_format: one of :data:`SOURCE_FORMATS`.
        source: the path or source name the run was read from.
        line: 1-based line where the run starts (its title, or its table).
        metrics: metric name -> unit, in the order of the source's columns.
        points: the rows, in increasing size.
        tool: the program that produced the numbers (``OMB``, ``commscope``,
            ``IMB-MPI1``, ``commscope-bench``), when known.
        tool_version: its version as printed, without a leading ``v``.
        title: the title line as printed (without ``#``), when there is one.
        label: the column header that names this run in a side-by-side
            table (e.g. a cluster name), or ``window 8``/``group 1`` for
            OMB's ``-V`` matrices and IMB's ``-multi`` groups.
        ranks: number of MPI processes, when the source tells.
        nodes: number of nodes (or storage clients' hosts), when the source tells.
        parameters: run settings the source printed (datatype, window size,
            pairs, window creation, synchronisation, buffer locations...).
        provenance: everything else known about where the numbers come from
            (commscope JSON: tool, argv, MPI library, hosts, CPU, times,
            environment, options, status; IMB: its preamble).
        notes: things worth knowing that are not numbers, such as OMB's
            ``DATA VALIDATION ERROR`` or IMB's ``out-of-mem.`` rows.
        text: the run's own table as the file has it (its title line, then
            its lines up to its last row), where it has one of its own (an
            OMB table; not a column of a side-by-side table).
        run: the Run itself, where the file holds commscope-bench's own records
            (a ``--format json`` document): read as `commscope run` reads them
            (records/core_record.py), every axis kept; the points above are
            its rows for those who read tables.
        job_id: the scheduler's job ids of the run, comma-separated, when the source tells.
        system: the system (cluster) the source says it ran on.
        rejected_rows: (line, problem) of rows of the run's table that could not be read
            (a job that failed and left empty cells), on the table's first run.
        hosts: the hosts the ranks ran on, as Run.hosts has them (``{"name", "ranks"}``),
            when the source lists them (nccl-tests' device lines).
    """

    benchmark: str
    source_format: str
    source: str
    line: int
    metrics: dict[str, str]
    points: list[Point]
    tool: str | None = None
    tool_version: str | None = None
    title: str | None = None
    label: str | None = None
    ranks: int | None = None
    nodes: int | None = None
    parameters: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    text: str | None = None
    run: Run | None = None
    job_id: str | None = None
    system: str | None = None
    rejected_rows: list[tuple[int, str]] = field(default_factory=list)
    hosts: list[dict[str, Any]] | None = None

    @property
    def sizes(self) -> list[int | None]:
        return [point.size for point in self.points]

    def point(self, size: int | None) -> Point:
        """The point measured at ``size``; ``KeyError`` if there is none."""
        for candidate in self.points:
            if candidate.size == size:
                return candidate
        raise KeyError(size)

    def value(self, size: int | None, metric: str) -> Value:
        """The value of ``metric`` at ``size``; ``KeyError`` if either is missing."""
        return self.point(size).values[metric]

    def series(self, metric: str) -> list[tuple[int | None, Value]]:
        """``(size, value)`` pairs of one metric, skipping points without it."""
        return [(p.size, p.values[metric]) for p in self.points if metric in p.values]

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON-serialisable) copy of the run."""
        return asdict(self)


def check_values(runs: list[ParsedRun]) -> list[ParsedRun]:
    """`runs`, or ParseError at the first value no measurement has: NaN, an infinity, a
    negative time, bandwidth or rate (the check of a table's cells, records.metrics)."""
    for run in runs:
        for point in run.points:
            for metric, value in point.values.items():
                if isinstance(value, bool) or not isinstance(value, int | float):
                    continue
                # a whole number is finite, only its sign counts (and it may be too large for a float)
                number = value if isinstance(value, float) else float(max(-1, min(value, 1)))
                problem = value_problem(number, unit_of(metric) or run.metrics.get(metric) or "")
                if problem:
                    shown = f"{value:g}" if isinstance(value, float) else str(value)
                    raise ParseError(run.source, point.line, f"{metric} {shown} {problem}")
    return runs
