"""The result store: one SQLite file in WAL mode, versioned with migrations (schema.py).

Store is the one way in: it opens the file (connection.py, integrity.py) and hands each
job to the module of its aggregate: runs and invocations (runs.py, with their rows in
rows.py and imported files in sources.py), a sweep's pairs as columns (pairs.py), Slurm
jobs (jobs.py), baselines (baselines.py).

A database that cannot be written (read-only file, folder or mount) is opened read-only
for reading; a damaged one is refused before anything is written (see integrity.py).
Every SQLite error leaves a Store method as a StoreError that says what happened, so no
caller needs to know the store is SQLite.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from commscope.errors import StoreError
from commscope.records.run import Run
from commscope.store import baselines as baseline_sets
from commscope.store import integrity
from commscope.store import jobs as batch_jobs
from commscope.store import pairs as sweep_pairs
from commscope.store import runs as stored_runs
from commscope.store.connection import connect, connect_read_only, set_journal_mode, writable
from commscope.store.rows import RunRows
from commscope.store.runs import RunSummary
from commscope.store.schema import check_read_only_version, migrate, schema_version


def _store_errors(doing: str):
    """Turn the SQLite errors of a Store method into a StoreError that says what happened."""

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self: Store, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except (sqlite3.Error, UnicodeError, OSError) as exc:
                raise integrity.describe(exc, self.path, doing) from None

        return wrapper

    return decorate


class Store:
    """An open result database. Use as a context manager, or call close().

    With `readonly`, a database that cannot be written is opened read-only (a writable
    one is still opened for writing, so an old one is brought to the current schema);
    without it, one that cannot be written is refused at once, before a run measures
    anything it could not store."""

    def __init__(self, path: Path, *, create: bool = True, readonly: bool = False) -> None:
        self.path = Path(path)
        self.conn: sqlite3.Connection | None = None
        if not self.path.exists():
            if not create or readonly:
                raise StoreError(
                    f"no result database at {self.path}: nothing has been stored there yet "
                    "(use `commscope run` or `commscope import`, or pass --db)"
                )
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise integrity.describe(exc, self.path, "create") from None
        else:
            integrity.check_header(self.path)
        try:
            if self.path.exists() and not writable(self.path):
                if not readonly:
                    raise StoreError(
                        f"cannot write to result database {self.path}: it is read-only "
                        "(file, folder or mount); reading it still works"
                    )
                self.conn = connect_read_only(self.path)
                check_read_only_version(self.conn, self.path)
                return
            self.conn = connect(self.path)
            schema_version(self.conn)  # refuses a foreign or damaged file before WAL changes it
            set_journal_mode(self.conn, self.path)
            if not readonly:
                integrity.quick_check(self.conn, self.path)
            migrate(self.conn)
        except (sqlite3.Error, OSError) as exc:
            self.close()
            raise integrity.describe(exc, self.path) from None
        except StoreError:
            self.close()
            raise

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc_info) -> None:
        self.close()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    # -- runs -------------------------------------------------------------------------

    @_store_errors("write to")
    def add_invocation(self, info: dict) -> int:
        return stored_runs.add_invocation(self.conn, info)

    @_store_errors("write to")
    def add_runs(self, runs: Sequence[Run], invocation_id: int) -> list[int]:
        """Store runs with their points and raw outputs: all of them or, on error, none."""
        return stored_runs.add_runs(self.conn, runs, invocation_id)

    def add_run(self, run: Run, invocation_id: int) -> int:
        return self.add_runs([run], invocation_id)[0]

    @_store_errors("write to")
    def add_run_groups(self, groups: Sequence[Sequence[RunRows]], invocation_id: int) -> list[list[int]]:
        """Store groups of runs, made into rows by rows_of() (an import stores each file's runs
        as a group), in one transaction, each group all or nothing as if each had its own
        add_runs(): when one fails, the groups before it are still stored and the error is
        raised. One commit for many groups is what makes a bulk import fast; callers keep the
        groups few enough that the write lock is held briefly."""
        return stored_runs.add_run_groups(self.conn, groups, invocation_id)

    @_store_errors("write to")
    def add_provenance(self, run_id: int, entries: dict[str, Any]) -> None:
        """Add entries to a stored run's provenance (a key given replaces its value). For what
        is known only after the run was stored: a sweep's retest run id. Provenance is JSON
        text in its column, so no migration is needed for new entries."""
        stored_runs.add_provenance(self.conn, self.path, run_id, entries)

    @_store_errors("write to")
    def delete_runs(self, run_ids: Iterable[int]) -> int:
        """Delete runs with their points, raw outputs and sources no other run has; returns
        how many existed."""
        return stored_runs.delete_runs(self.conn, run_ids)

    @_store_errors("read")
    def summaries(
        self,
        *,
        benchmark: str | None = None,
        label: str | None = None,
        status: str | None = None,
        limit: int | None = None,
        system: str | None = None,
        invocation_id: int | None = None,
        run_id: int | None = None,
        job_id: str | None = None,
    ) -> list[RunSummary]:
        """What listings and selections need of each matching run, newest first."""
        return stored_runs.summaries(
            self.conn,
            limit,
            benchmark=benchmark,
            label=label,
            status=status,
            system=system,
            invocation_id=invocation_id,
            run_id=run_id,
            job_id=job_id,
        )

    @_store_errors("read")
    def has_run(self, run_id: int) -> bool:
        return stored_runs.has_run(self.conn, run_id)

    @_store_errors("read")
    def run_counts(self) -> dict[str, int]:
        """Stored runs per benchmark."""
        return stored_runs.run_counts(self.conn)

    @_store_errors("read")
    def last_run_id(self) -> int | None:
        return stored_runs.last_run_id(self.conn)

    @_store_errors("read")
    def last_invocation_id(self, command: str = "run") -> int | None:
        """The newest invocation of `command` that stored runs (a dry run or a run stopped
        before its first benchmark stores none)."""
        return stored_runs.last_invocation_id(self.conn, command)

    @_store_errors("read")
    def run(self, run_id: int) -> Run:
        """One run with its points (raw outputs are loaded on demand by raw_outputs())."""
        return stored_runs.run(self.conn, self.path, run_id)

    @_store_errors("read")
    def runs(self, run_ids: Sequence[int]) -> list[Run]:
        """Runs with their points, in the order of `run_ids`: what run() gives for each, read
        with a query per 900 runs instead of two per run (a report of hundreds)."""
        return stored_runs.runs_at_sizes(self.conn, self.path, run_ids)

    @_store_errors("read")
    def runs_at_sizes(self, run_ids: Sequence[int], sizes: Iterable[int | None]) -> list[Run]:
        """Runs with only their points at these message sizes (None: points without one), for
        commands that look at a few sizes of thousands of runs (history)."""
        return stored_runs.runs_at_sizes(self.conn, self.path, run_ids, sizes)

    @_store_errors("read")
    def point_sizes(self, run_ids: Sequence[int]) -> dict[int, set[int | None]]:
        """The message sizes each run has points at."""
        return stored_runs.point_sizes(self.conn, run_ids)

    @_store_errors("read")
    def pair_values(self, run_ids: Sequence[int], metric: str, column: str) -> dict[int, sweep_pairs.PairValues]:
        """Per run, the ranks and values of its pairs that measured `metric` (latency, bw,
        bibw), the values from `column`: a sweep's pairs without a Run of Points."""
        return sweep_pairs.pair_values(self.conn, run_ids, metric, column)

    @_store_errors("read")
    def pair_metrics(self, run_ids: Sequence[int]) -> set[str]:
        """The metrics the pairs of these runs measured."""
        return sweep_pairs.pair_metrics(self.conn, run_ids)

    @_store_errors("read")
    def rank_hosts(self, run_id: int) -> dict[int, str]:
        """The host of each rank of a pairs run, as its pairs name them."""
        return sweep_pairs.rank_hosts(self.conn, run_id)

    @_store_errors("read")
    def runs_from_source(self, sha256: str) -> list[int]:
        """Ids of the runs imported from a file with these bytes (SHA-256 in hex)."""
        return stored_runs.runs_from_source(self.conn, sha256)

    @_store_errors("read")
    def runs_with_provenance(self, key: str, values: set[str]) -> dict[str, list[int]]:
        """Ids of the runs whose provenance has `key` set to one of `values`, by value."""
        return stored_runs.runs_with_provenance(self.conn, key, values)

    @_store_errors("read")
    def raw_outputs(self, run_id: int) -> dict[str, bytes]:
        return stored_runs.raw_outputs(self.conn, run_id)

    @_store_errors("read")
    def invocation(self, invocation_id: int) -> dict:
        return stored_runs.invocation(self.conn, invocation_id)

    # -- batch jobs -------------------------------------------------------------------

    @_store_errors("write to")
    def add_job(self, job: dict) -> int:
        """Record a submitted job (the JOB_COLUMNS keys; targets as a list)."""
        return batch_jobs.add_job(self.conn, job)

    @_store_errors("write to")
    def claim_job(self, job: dict) -> int | None:
        """Record a job found in its folder (a scheduled check's) unless a job of that folder
        is recorded already, in one transaction: collects running at once record it once.
        Returns the new row's id, or None."""
        return batch_jobs.claim_job(self.conn, job)

    @_store_errors("read")
    def jobs(self, job_ids: Sequence[str] = (), *, uncollected: bool = False) -> list[dict]:
        """Jobs by Slurm job id (the newest record of each id, in the order asked), or all
        jobs (oldest first), or only those not collected yet."""
        return batch_jobs.jobs(self.conn, self.path, job_ids, uncollected)

    @_store_errors("write to")
    def update_job(self, row_id: int, **fields) -> None:
        """Remember what Slurm last said of a job (state, state_reason, node_list...)."""
        batch_jobs.update_job(self.conn, row_id, fields)

    @_store_errors("write to")
    def collect_job(self, row_id: int, runs: Sequence[Run], invocation_id: int) -> list[int] | None:
        """Store a finished job's runs and mark it collected, in one transaction: a job is
        stored once however often (or however many processes at once) collect it. Returns
        the new run ids, or None when the job was collected before."""
        return batch_jobs.collect_job(self.conn, row_id, runs, invocation_id)

    # -- baselines --------------------------------------------------------------------

    @_store_errors("write to")
    def set_baseline(self, name: str, run_ids: Sequence[int]) -> list[int] | None:
        """Make `name` stand for exactly these runs; returns the runs it stood for before, or
        None when it is new."""
        return baseline_sets.set_baseline(self.conn, name, run_ids)

    @_store_errors("read")
    def baseline_run_ids(self, name: str) -> list[int] | None:
        """The runs a baseline stands for, or None when there is no baseline of that name."""
        return baseline_sets.baseline_run_ids(self.conn, name)

    @_store_errors("read")
    def baselines(self) -> list[tuple[str, str, list[int]]]:
        """(name, created_at, run ids) of every baseline, by name."""
        return baseline_sets.baselines(self.conn)

    @_store_errors("write to")
    def delete_baseline(self, name: str) -> bool:
        return baseline_sets.delete_baseline(self.conn, name)
