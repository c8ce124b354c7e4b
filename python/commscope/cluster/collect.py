"""`commscope status` and `commscope collect`: what became of submitted jobs, and storing
their results.

A finished job's folder holds runs/NNN-BENCH/ per launch (see execute.runner: meta.json,
core.jsonl, stdout, stderr, result.json). A launch with result.json ended on its own and
is judged as `commscope run` judges it; one without was killed with its job (scancel,
time limit, node failure), and is stored as incomplete with the job's state as reason,
the sizes it measured, and the tail of the job's log. Each run gets the job's Slurm
provenance: job id, cluster, partition, node list, state and exit code.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from commscope.cluster import nightly, slurm
from commscope.cluster.submit import folder_info
from commscope.errors import CommscopeError
from commscope.execute.launch_files import META, RESULT, run_from_files
from commscope.records import unsaved
from commscope.records.invocation import invocation
from commscope.records.run import Run
from commscope.store.db import Store

LOG_TAIL_LINES = 20
_ENDED_BY = {
    slurm.CANCELLED: "the job was cancelled",
    slurm.TIMEOUT: "the job reached its time limit",
    slurm.FAILED: "the job failed",
    slurm.UNKNOWN: "the job ended without a word",
}


@dataclass
class JobStatus:
    job: dict
    info: slurm.JobInfo


def statuses(store: Store, job_ids: Sequence[str] = ()) -> list[JobStatus]:
    """The current state of the named jobs (default: every job not collected yet), asked of
    Slurm once for all of them and remembered in the store."""
    jobs = store.jobs(job_ids, uncollected=not job_ids)
    asked = [job for job in jobs if job["collected_at"] is None and not nightly.is_job(Path(job["folder"]))]
    infos = slurm.job_infos([job["job_id"] for job in asked]) if asked else {}
    found = []
    for job in jobs:
        info = infos.get(job["job_id"]) if job in asked else None
        if info is None:
            info = (
                folder_info(job)
                if job["collected_at"] is None
                else slurm.JobInfo(
                    job["job_id"],
                    job["state"],
                    job["state"].upper(),
                    reason=job["state_reason"],
                    node_list=job["node_list"],
                    source="store",
                )
            )
        if info.source != "store" and (info.state, info.reason, info.node_list) != (
            job["state"],
            job["state_reason"],
            job["node_list"],
        ):
            store.update_job(
                job["id"], state=info.state, state_reason=info.reason, node_list=info.node_list or job["node_list"]
            )
        found.append(JobStatus(job, info))
    return found


def log_tail(folder: Path, job_id: str, lines: int = LOG_TAIL_LINES) -> tuple[list[str], bytes]:
    """The last lines of the job's log (slurm-JOBID.out) and the whole log."""
    path = folder / f"slurm-{job_id}.out"
    try:
        data = path.read_bytes()
    except OSError:
        return [], b""
    return data.decode(errors="replace").rstrip().splitlines()[-lines:], data


def slurm_provenance(job: dict, info: slurm.JobInfo) -> dict:
    return {
        key: value
        for key, value in {
            "job_id": job["job_id"],
            "cluster": info.cluster or job["cluster"],
            "partition": info.partition or job["partition"],
            "node_list": info.node_list or job["node_list"],
            "state": info.slurm_state,
            "exit_code": info.exit_code,
            "reason": info.reason,
            "account": info.account,
            "nodes": job["nodes"],
            "ntasks_per_node": job["ntasks_per_node"],
            "folder": job["folder"],
            "state_source": info.source,
        }.items()
        if value is not None
    }


def runs_of(job: dict, info: slurm.JobInfo) -> list[Run]:
    """The runs a finished job left in its folder."""
    folder = Path(job["folder"])
    tail, log = log_tail(folder, job["job_id"])
    provenance = slurm_provenance(job, info)
    ended = _ENDED_BY.get(info.state)
    runs = []
    for launch in sorted(path for path in (folder / "runs").glob("*") if (path / META).is_file()):
        meta = json.loads((launch / META).read_text())
        result = json.loads((launch / RESULT).read_text()) if (launch / RESULT).is_file() else None
        if result is not None:
            run = run_from_files(meta, launch, result["returncode"], result["stopped"], result["ended_at"])
            if run.status != "complete" and ended:
                # scancel and the time limit signal the launcher too, which may end first:
                # the job's fate is the reason, what the launch saw the detail.
                run.status_reason = f"{ended} (Slurm state {info.slurm_state}): {run.status_reason}"
        else:
            reason = f"{ended or 'the job ended'} (Slurm state {info.slurm_state}) while it ran"
            run = run_from_files(meta, launch, None, reason)
        _add_job_context(run, job, provenance, tail, log)
        runs.append(run)
    for sidecar in sorted((folder / "runs").glob(f"*{unsaved.SIDECAR_SUFFIX}")):
        # `run hpl` and `run storage` keep each run whole as files (records.unsaved)
        jsonl = sidecar.with_name(sidecar.name.removesuffix(unsaved.SIDECAR_SUFFIX) + ".jsonl")
        try:
            run = unsaved.load(jsonl, jsonl.read_bytes(), imported=False)
        except OSError as exc:
            raise CommscopeError(f"job {job['job_id']}: cannot read {jsonl}: {exc.strerror or exc}") from None
        except unsaved.UnsavedError as exc:
            raise CommscopeError(f"job {job['job_id']}: {jsonl} line {exc.args[0]}: {exc.args[1]}") from None
        _add_job_context(run, job, provenance, tail, log)
        runs.append(run)
    if not runs:
        # The job ended before its first benchmark started (a module that does not load,
        # commscope not found on the nodes...): one failed run keeps the reason and the log.
        reason = (
            f"job {job['job_id']} ended ({info.slurm_state}, exit code {info.exit_code or '?'}) before "
            "any benchmark started"
        )
        run = Run(
            benchmark=" ".join(Path(target).stem for target in job["targets"]),
            status="failed",
            status_reason=reason,
            label=job["label"],
            system=info.cluster or job["cluster"],
        )
        _add_job_context(run, job, provenance, tail, log)
        runs.append(run)
    return runs


def _add_job_context(run: Run, job: dict, provenance: dict, tail: list[str], log: bytes) -> None:
    run.job_id = run.job_id or job["job_id"]
    run.provenance = {**(run.provenance or {}), "slurm": provenance}
    if run.status != "complete" and tail:
        run.notes = [*(run.notes or []), "last lines of the job's log:", *tail]
    if log:
        run.raw["job_log"] = log


@dataclass
class Collected:
    stored: dict[str, list[int]] = field(default_factory=dict)  # job id -> new run ids
    already: dict[str, list[int]] = field(default_factory=dict)  # job id -> runs stored before
    waiting: dict[str, str] = field(default_factory=dict)  # job id -> state (pending, running)


def collect(store: Store, job_ids: Sequence[str], argv: Sequence[str]) -> Collected:
    """Store every finished job of `job_ids` (default: all not yet collected, the scheduled
    checks' ended jobs among them), once each."""
    if not job_ids:
        add_scheduled_jobs(store)
    outcome = Collected()
    invocation_id = None
    for status in statuses(store, job_ids):
        job, info = status.job, status.info
        name = _job_name(job)
        if job["collected_at"] is not None:
            outcome.already[name] = job["run_ids"] or []
            continue
        if not info.finished and info.state != slurm.UNKNOWN:
            outcome.waiting[name] = info.state
            continue
        if not Path(job["folder"]).is_dir():
            raise CommscopeError(f"job {name}: its folder {job['folder']} is gone; nothing to collect")
        runs = runs_of(job, info)
        if nightly.is_job(Path(job["folder"])):
            _scheduled(runs, job)
        if invocation_id is None:
            invocation_id = store.add_invocation(invocation("collect", argv))
        ids = store.collect_job(job["id"], runs, invocation_id)
        if ids is None:  # another collect stored it meanwhile
            again = [row for row in store.jobs([], uncollected=False) if row["id"] == job["id"]]
            outcome.already[name] = again[0]["run_ids"] or []
        else:
            outcome.stored[name] = ids
    return outcome


def add_scheduled_jobs(store: Store) -> None:
    """Remember the ended jobs of the scheduled checks that store into this database, as
    `submit` remembers its jobs, and refresh the baseline each entry's jobs are judged
    against (it may have been set again since)."""
    known = {job["folder"] for job in store.jobs([], uncollected=False)}
    for folder, entry in nightly.entries_of(store.path):
        base_ids = store.baseline_run_ids(entry["baseline"]) or []
        nightly.keep_baseline(folder, entry["baseline"], [store.run(run_id) for run_id in base_ids])
        for job in nightly.ended_jobs(folder):
            if str(job) not in known:
                store.add_job(nightly.job_row(job))


def _job_name(job: dict) -> str:
    """How collect names a job: its Slurm id; a scheduled check's job also by its entry and
    folder, since a scrontab entry's job keeps its id from one night to the next."""
    if not nightly.is_job(Path(job["folder"])):
        return job["job_id"]
    entry = Path(job["folder"]).parent.parent.name
    return f"{job['job_id'] or 'cron'} of scheduled check {entry} ({Path(job['folder']).name})"


def _scheduled(runs: list[Run], job: dict) -> None:
    """A scheduled check's runs name their entry and job folder (what ties the check's runs
    to the locate run that followed a failed check: role locate); a cron entry's have no
    Slurm job."""
    for run in runs:
        entry = {"entry": Path(job["folder"]).parent.parent.name, "folder": job["folder"]}
        run.provenance["schedule"] = {**run.provenance.get("schedule", {}), **entry}
        if not job["job_id"]:
            run.job_id = None
            run.provenance.pop("slurm", None)
