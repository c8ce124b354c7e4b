"""How many ranks a benchmark named directly (`run allreduce`, not a suite entry) starts on.

Outside a Slurm allocation it is the suite entries' default, two. Inside one (a job
`submit` wrote, an salloc shell), a benchmark that uses every rank (collectives,
congestion, multi-pair, one-to-all, start-up) runs on every task of the allocation: a job
of 8 nodes that measured an allreduce of 2 ranks measured nothing it was asked. Point-to-
point benchmarks, which OMB runs on exactly two ranks (records/benchmarks.py), keep two.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from commscope.records.benchmarks import TWO_RANK_BENCHMARKS
from commscope.records.suite import Entry


def allocation_tasks(environ: Mapping[str, str] = os.environ) -> int | None:
    """The tasks of the Slurm allocation this process runs in; None outside one."""
    if not environ.get("SLURM_JOB_ID"):
        return None
    tasks = environ.get("SLURM_NTASKS") or environ.get("SLURM_NPROCS") or ""
    return int(tasks) if tasks.isdigit() and int(tasks) > 0 else None


def uses_every_rank(benchmark: str) -> bool:
    return benchmark not in TWO_RANK_BENCHMARKS


def direct_ranks(benchmark: str, environ: Mapping[str, str] = os.environ) -> int:
    """Ranks of a benchmark named directly: the allocation's tasks for one that uses every
    rank inside an allocation of at least two, else the entries' default."""
    tasks = allocation_tasks(environ)
    if tasks is not None and tasks >= 2 and uses_every_rank(benchmark):
        return tasks
    return Entry.ranks
