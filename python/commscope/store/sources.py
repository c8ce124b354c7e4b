"""Imported files, stored once each however many runs they hold.

A file of 900 concatenated OMB tables is 900 runs; keeping a compressed copy of the whole
file with every run made the import time and the database grow with the square of the
number of tables (1 MB: 92 s and 121 MB; 4 MB: 549 s and 1.9 GB). The `sources` table
keeps each file's contents once, keyed by their SHA-256, and runs point at it.
"""

from __future__ import annotations

import hashlib
import sqlite3
import zlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """A file's contents, ready to store: hash and size of the data, zlib-compressed data."""

    sha256: str
    size: int
    compressed: bytes


def make_source(data: bytes) -> Source:
    return Source(hashlib.sha256(data).hexdigest(), len(data), zlib.compress(data))


def source_id(conn: sqlite3.Connection, source: Source) -> int:
    """The id of `source` in the store, inserting it unless the same contents are there."""
    row = conn.execute("SELECT id FROM sources WHERE sha256 = ?", (source.sha256,)).fetchone()
    if row is not None:
        return row[0]
    return conn.execute(
        "INSERT INTO sources (sha256, size, data) VALUES (?, ?, ?)", (source.sha256, source.size, source.compressed)
    ).lastrowid


def source_of_run(conn: sqlite3.Connection, run_id: int) -> bytes | None:
    row = conn.execute(
        "SELECT sources.data FROM sources JOIN runs ON runs.source_id = sources.id WHERE runs.id = ?", (run_id,)
    ).fetchone()
    return None if row is None else zlib.decompress(row[0])


#: Run after deleting runs: a source no run points at any more goes too.
DELETE_UNUSED = "DELETE FROM sources WHERE id NOT IN (SELECT source_id FROM runs WHERE source_id IS NOT NULL)"
