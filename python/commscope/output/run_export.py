"""`commscope export`: stored runs as CSV (one row per point) or JSON (runs with their points).

Both formats are versioned and their column names are kept stable, because
scripts downstream depend on them. Text cells of the CSV that a spreadsheet would run as a
formula get a leading apostrophe; secret-looking environment values are redacted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from commscope.analysis.peaks import percent_of_peak, run_peak
from commscope.output.export.csv import csv_text
from commscope.output.export.json import json_text
from commscope.output.export.table import Cell, Column, Table
from commscope.records.metrics import CORE_METRICS, TIME_COLUMNS
from commscope.records.redact import redact_environment
from commscope.records.run import AXES, Run

EXPORT_FORMAT = "commscope-export"
EXPORT_VERSION = 1

_RUN_CSV_COLUMNS = (
    "run_id",
    "benchmark",
    "label",
    "system",
    "status",
    "ranks",
    "nodes",
    "mpi_library",
    "mpi_version",
    "started_at",
)
# Every sweep axis has a column, empty where the run did not sweep it.
_POINT_CSV_COLUMNS = (
    "size",
    "window",
    *AXES,
    "iterations",
    "warmup",
    "batch",
    "samples",
    *TIME_COLUMNS,
    *CORE_METRICS,
    "validation_errors",
    "validation",
)
#: What the export works out for every point beside what is stored: a key of each JSON
#: point and a CSV column, from derived_points() alone, so both formats say the same.
DERIVED_POINT_COLUMNS = ("percent_of_peak",)


def derived_points(run: Run) -> tuple[dict, list[dict[str, float | None]]]:
    """The run's theoretical peak (JSON's `peak`) and, per point, the DERIVED_POINT_COLUMNS."""
    peak = run_peak(run)
    limit = peak.for_benchmark(run.benchmark)
    values = [{"percent_of_peak": percent_of_peak(point.metrics.get("bandwidth_MBps"), limit)} for point in run.points]
    return {"GBps_one_way": peak.gbs, "MBps_for_benchmark": limit, "basis": peak.basis}, values


def to_json(runs: Sequence[Run]) -> str:
    documents = []
    for run in runs:
        document = dataclasses.asdict(run)
        del document["raw"]
        document["environment"] = redact_environment(run.environment)  # runs stored before redaction
        document["peak"], derived = derived_points(run)
        for point, values in zip(document["points"], derived):
            point.update(values)
        documents.append(document)
    return json_text({"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "runs": documents})


def to_csv(runs: Sequence[Run]) -> str:
    """One row per point; metrics other than the core's get extra columns, in order of appearance."""
    extra = list(
        dict.fromkeys(
            name
            for run in runs
            for point in run.points
            for name in point.metrics
            if name not in CORE_METRICS and name != "validation"
        )
    )
    rows = []
    for run in runs:
        run_cells = [
            run.id,
            run.benchmark,
            run.label,
            run.system,
            run.status,
            run.ranks,
            run.nodes,
            run.mpi_library,
            run.mpi_version,
            run.started_at,
        ]
        for point, derived in zip(run.points, derived_points(run)[1]):
            values = [
                *run_cells,
                *point.column_values(),
                point.validation_errors,
                point.validation,
                *(derived[name] for name in DERIVED_POINT_COLUMNS),
                *(point.metrics.get(name) for name in extra),
            ]
            rows.append([Cell(value) for value in values])
    columns = [Column(name) for name in (*_RUN_CSV_COLUMNS, *_POINT_CSV_COLUMNS, *DERIVED_POINT_COLUMNS, *extra)]
    return csv_text([Table(columns, rows)])


FORMATS = {"csv": to_csv, "json": to_json}
