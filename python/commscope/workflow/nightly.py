"""The nightly loop's locate: after a failed check, `sweep locate` on the job's nodes in the same
job and process (workflow/sweep.py), its run kept as files in the job's runs/ folder,
beside the check's, where `commscope collect` stores them together; no database is opened
on the node. With --drain the bad nodes are drained with a reason naming the Slurm job,
under which `collect` stores the run.

What check.json keeps of it comes from the sweep's typed outcome: its exit status, its
file, the bad nodes and undecided hosts of its verdict, what was drained.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from commscope import ui
from commscope.cluster.drain import plan_drain
from commscope.cluster.nightly import LOCATE_JSON
from commscope.errors import CommscopeError
from commscope.sweep.modes.base import SweepRequest
from commscope.workflow.sweep import drained, swept

#: What the locate run carries, so that `collect` ties it to the check it followed.
ROLE = {"schedule": {"role": "locate"}}


def skipped(drain: bool, why: str | None) -> dict:
    """What check.json records of a locate that did not run, and why (None: said already)."""
    return {"drain": drain, "json": LOCATE_JSON, **({"skipped": why} if why else {})}


def locate(job: Path, request: SweepRequest, drain: bool) -> dict:
    """`sweep locate` of `request` (its hosts, or the job's --nodes), with --drain when asked;
    what check.json records of it."""
    record = skipped(drain, None)
    runs = job / "runs"
    before = set(runs.glob("*.jsonl"))
    request = dataclasses.replace(request, json_out=job / LOCATE_JSON, provenance=ROLE)
    slurm_job = os.environ.get("SLURM_JOB_ID")
    outcome, found = None, None
    try:
        plan = plan_drain(drain, None, False)
        outcome = swept(request, None, runs)
        found, refused = drained(plan, outcome, f"job {slurm_job}" if slurm_job else f"job folder {job.name}")
        record["exit_status"] = outcome.finish(found, refused)
    except CommscopeError as exc:  # said in the job's log; the night goes on to publish
        ui.error(str(exc))
        record["exit_status"] = exc.exit_code
    record["files"] = sorted(path.name for path in set(runs.glob("*.jsonl")) - before)
    for name in record["files"]:
        ui.note(f"kept the locate run as {runs / name}: `commscope collect` stores it with the check's")
    if outcome is not None:
        verdict = outcome.document(found)
        record["bad_nodes"] = [node["host"] for node in verdict["bad_nodes"]]
        record["undecided"] = verdict["undecided"]
        for key in ("drained", "bad_switches"):  # as the sweep's --json says them, where it does
            if key in verdict:
                record[key] = verdict[key]
    return record
