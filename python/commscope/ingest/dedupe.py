"""Importing the same results twice stores them once.

Files are known by the SHA-256 of their bytes (the `sources` table keeps each file once, by
that hash), whatever their name or place. JUBE prints the same rows in several layouts
(`jube result -a` gives the pretty table and the csv one; result/*.dat and a csv export
hold the same rows in different bytes), so a JUBE run is also known by what it measured:
a hash of its benchmark, ranks, nodes, system, job ids and points, kept in its provenance.
"""

from __future__ import annotations

import hashlib
import json

from commscope.store.db import RunRows, Store

#: The provenance key of a JUBE run's rows hash.
ROWS_KEY = "rows_sha256"


def rows_key(rows: RunRows) -> str:
    """The hash of what a run measured, the same whichever layout of a table it came from."""
    identity = [rows.run[name] for name in ("benchmark", "ranks", "nodes", "job_id")] + [rows.system]
    return hashlib.sha256(json.dumps([identity, rows.point_columns, rows.points], default=str).encode()).hexdigest()


def _ids(ids: list[int]) -> str:
    return f"run{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))}"


class SeenSources:
    """The files and JUBE rows already stored, in the database or earlier in this import."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.this_import: dict[str, str] = {}  # hash -> the file of this import that had it
        self.rows_this_import: dict[str, str] = {}  # rows hash -> the file of this import that had them

    def earlier(self, sha256: str) -> str | None:
        """What already holds these bytes ("same content as runs 3, 4", "... as FILE, earlier
        in this import"), None if new."""
        if sha256 in self.this_import:
            return f"same content as {self.this_import[sha256]}, earlier in this import"
        stored = self.store.runs_from_source(sha256)
        return f"same content as {_ids(stored)}" if stored else None

    def add(self, sha256: str, name: str) -> None:
        self.this_import.setdefault(sha256, name)

    def new_rows(self, name: str, runs: list[RunRows], force: bool) -> tuple[list[RunRows], str | None]:
        """The JUBE runs of file `name` whose rows are new (all of them with `force`), each
        keeping its rows hash; and what holds the others, None when there are none."""
        keys = {id(rows): rows_key(rows) for rows in runs if rows.run["source_format"] == "jube"}
        if not keys:
            return runs, None
        stored = self.store.runs_with_provenance(ROWS_KEY, set(keys.values()))
        kept, in_file, in_store, in_import = [], 0, set(), set()
        seen_here: set[str] = set()
        for rows in runs:
            key = keys.get(id(rows))
            if key is not None:
                provenance = json.loads(rows.run["provenance"] or "{}")
                rows.run["provenance"] = json.dumps({**provenance, ROWS_KEY: key})
            if key is None or force:
                kept.append(rows)
            elif key in seen_here:
                in_file += 1
            elif key in stored:
                in_store.update(stored[key])
            elif key in self.rows_this_import:
                in_import.add(self.rows_this_import[key])
            else:
                kept.append(rows)
            if key is not None:
                seen_here.add(key)
                self.rows_this_import.setdefault(key, name)
        said = []
        if in_store:
            said.append(f"the same rows as {_ids(sorted(in_store))}")
        if in_import:
            said.append(f"the same rows as {', '.join(sorted(in_import))}, earlier in this import")
        if in_file:
            said.append(f"{in_file} of its runs repeat the rows of others in it (a table printed twice)")
        return kept, "; ".join(said) or None
