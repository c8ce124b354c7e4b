"""The pairs a sweep measured, as columns: for `history --hosts` over dozens of sweeps of
thousands of hosts, where a Run of Points per sweep (50,000 Pair objects each) would cost
more than everything else together. Only the ranks, the metric and the value are read, from
their own columns (schema version 10); the hosts come from the run's rank list."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from commscope.records.metrics import CORE_METRICS


@dataclass(frozen=True)
class PairValues:
    """One run's pairs of one metric: the two ranks of each and its value, each column as
    SQLite writes it, comma-separated (numpy reads them in C: a Python object per value
    would take longer than the rest of `history --hosts`)."""

    src: str
    dst: str
    values: str


def pair_values(conn: sqlite3.Connection, run_ids: Sequence[int], metric: str, column: str) -> dict[int, PairValues]:
    """Per run, its pairs that measured `metric` (latency, bw, bibw) with a value in
    `column` (one of the core's metric columns); runs without any are left out."""
    if column not in CORE_METRICS:  # a column name is written into the SQL: only ours
        raise ValueError(f"{column!r} is not a metric column")
    found = {}
    for run_id in run_ids:
        # one row: the aggregates of one query read the same rows in the same order
        src, dst, values = conn.execute(
            f"SELECT group_concat(pair_src), group_concat(pair_dst), group_concat({column}) FROM points "
            f"WHERE run_id = ? AND pair_metric = ? AND {column} IS NOT NULL AND pair_src IS NOT NULL "
            "AND pair_dst IS NOT NULL",
            (run_id, metric),
        ).fetchone()
        if src:
            found[run_id] = PairValues(src, dst, values)
    return found


def pair_metrics(conn: sqlite3.Connection, run_ids: Sequence[int]) -> set[str]:
    """The metrics the pairs of these runs measured."""
    found: set[str] = set()
    for run_id in run_ids:
        found |= {
            row[0]
            for row in conn.execute(
                "SELECT DISTINCT pair_metric FROM points WHERE run_id = ? AND pair_metric IS NOT NULL",
                (run_id,),
            )
            if row[0] is not None
        }
    return found


def rank_hosts(conn: sqlite3.Connection, run_id: int) -> dict[int, str]:
    """The host of each rank as the run's pairs name it (for runs whose rank list does not)."""
    found: dict[int, str] = {}
    for end in ("src", "dst"):
        for rank, host in conn.execute(
            f"SELECT DISTINCT json_extract(pair, '$.{end}'), json_extract(pair, '$.{end}_host') FROM points "
            "WHERE run_id = ? AND pair IS NOT NULL",
            (run_id,),
        ):
            if isinstance(rank, int) and isinstance(host, str):
                found[rank] = host
    return found
