"""A run as the rows that store it, and a point back from its row. Making rows needs no
database, so a bulk import makes them in worker processes (RunRows)."""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import dataclass
from typing import Any

from commscope.records.metrics import CORE_METRICS, STATS, TIME_COLUMNS
from commscope.records.redact import redact_environment, redact_json_text, secret_names
from commscope.records.run import AXES, RUN_COLUMNS, RUN_JSON_COLUMNS, Axes, Pair, Point, Run
from commscope.records.run_kinds import kind_name, sweep_mode_of
from commscope.store.sources import Source

#: A pair's ranks and metric, beside its JSON: what a sweep's history reads (store.pairs).
PAIR_COLUMNS = ("pair_src", "pair_dst", "pair_metric")
POINT_COLUMNS = (
    "size",
    "window_size",
    *AXES,
    "iterations",
    "warmup",
    "batch",
    "samples",
    *TIME_COLUMNS,
    *CORE_METRICS,
    "other_metrics",
    "validation_errors",
    "pair",
    *PAIR_COLUMNS,
)


def to_json(value) -> str | None:
    return None if value is None else json.dumps(value)


def from_json(text: str | None):
    return None if text is None else json.loads(text)


def _point_row(point: Point) -> tuple:
    """The POINT_COLUMNS values of a point (map() because bulk imports store millions of them)."""
    other = {name: value for name, value in point.metrics.items() if name not in CORE_METRICS}
    return (
        *point.column_values(),
        to_json(other) if other else None,
        point.validation_errors,
        *((None, None, None) if point.pair is None else (to_json(point.pair.as_dict()), *point.pair.key)),
    )


@dataclass(frozen=True)
class RunRows:
    """A run as the values of its rows, ready to INSERT. Making them needs no database, so a
    bulk import makes them in worker processes and the importing process only inserts."""

    run: dict[str, Any]  # the RUN_COLUMNS, JSON ones as text
    system: str | None
    point_columns: tuple[str, ...]  # the POINT_COLUMNS that some point fills
    points: list[tuple]  # per point, the values of point_columns
    raw: list[tuple[str, bytes]]  # (kind, zlib-compressed data)
    source: Source | None = None  # the imported file, shared by the runs it holds


def rows_of(run: Run, source: Source | None = None) -> RunRows:
    """The rows that store `run` (imported from `source`). Secret-looking environment
    values are redacted here, on the one way into the store, in the raw outputs too."""
    values = {column: getattr(run, column) for column in RUN_COLUMNS}
    # the kind, worked out once here (records.run_kinds) and read back ever after
    values["sweep_mode"] = run.sweep_mode or sweep_mode_of(run.provenance)
    values["kind"] = run.kind or kind_name(run.benchmark, values["sweep_mode"])
    values["environment"] = redact_environment(run.environment)
    secrets = secret_names(run.environment)
    for column in RUN_JSON_COLUMNS:
        values[column] = to_json(values[column])
    # Only the point columns that hold a value are named. sqlite3 looks for an adapter for
    # every None it binds, which made storing rows of mostly NULLs (an imported OMB table
    # has 2-4 values in 31 columns) five times slower than the values alone; a column left
    # out is NULL just the same, as no points column has a DEFAULT.
    columns = list(zip(*map(_point_row, run.points)))  # one tuple per POINT_COLUMNS entry
    filled = [index for index, column in enumerate(columns) if column.count(None) < len(column)]
    points = list(zip(*(columns[index] for index in filled))) if filled else [()] * len(run.points)
    return RunRows(
        run=values,
        system=run.system,
        point_columns=tuple(POINT_COLUMNS[index] for index in filled),
        points=points,
        source=source,
        raw=[(kind, zlib.compress(redact_json_text(data, secrets))) for kind, data in run.raw.items()],
    )


def point_from_row(row: sqlite3.Row | dict) -> Point:
    metrics = {name: row[name] for name in CORE_METRICS if row[name] is not None}
    metrics.update(from_json(row["other_metrics"]) or {})
    stats = {key: row[column] for key, column in zip(STATS, TIME_COLUMNS) if row[column] is not None}
    return Point(
        size=row["size"],
        window=row["window_size"],
        axes=Axes(*(row[name] for name in AXES)),
        iterations=row["iterations"],
        warmup=row["warmup"],
        batch=row["batch"],
        samples=row["samples"],
        stats=stats,
        metrics=metrics,
        validation_errors=row["validation_errors"],
        pair=Pair.of(from_json(row["pair"])),
    )
