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
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from commscope.cluster import host_drift, nightly, slurm
from commscope.cluster.submit import folder_info
from commscope.errors import CommscopeError
from commscope.execute.launch_files import META, RESULT, run_from_files
from commscope.records import unsaved
from commscope.records.inputs import read_inside
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


class JobDamaged(CommscopeError):
    """A job folder whose files are not as commscope writes them (a symbolic link out of it,
    a pipe, a file that is not JSON...): the job is said and skipped, the others collected."""


@dataclass
class JobStatus:
    job: dict
    info: slurm.JobInfo
    damaged: str | None = None  # why the job's own folder could not tell its state


def statuses(store: Store, job_ids: Sequence[str] = ()) -> list[JobStatus]:
    """The current state of the named jobs (default: every job not collected yet), asked of
    Slurm once for all of them and remembered in the store."""
    jobs = store.jobs(job_ids, uncollected=not job_ids)
    asked = [job for job in jobs if job["collected_at"] is None and not nightly.is_job(Path(job["folder"]))]
    infos = slurm.job_infos([job["job_id"] for job in asked]) if asked else {}
    found = []
    for job in jobs:
        info = infos.get(job["job_id"]) if job in asked else None
        damaged = None
        if info is None and job["collected_at"] is None:
            try:
                info = folder_info(job)
            except OSError as exc:  # an exit-status that is a pipe, a link out of the folder
                damaged = exc.strerror or str(exc)
                info = slurm.JobInfo(job["job_id"], slurm.UNKNOWN, "UNKNOWN", reason=damaged, source="folder")
        if info is None:
            info = slurm.JobInfo(
                job["job_id"],
                job["state"],
                job["state"].upper(),
                reason=job["state_reason"],
                node_list=job["node_list"],
                source="store",
            )
        if info.source != "store" and (info.state, info.reason, info.node_list) != (
            job["state"],
            job["state_reason"],
            job["node_list"],
        ):
            store.update_job(
                job["id"], state=info.state, state_reason=info.reason, node_list=info.node_list or job["node_list"]
            )
        found.append(JobStatus(job, info, damaged))
    return found


def read_job_file(folder: Path, path: Path) -> bytes:
    """A file of the job folder `folder`, read only as a regular file inside it
    (records.inputs.read_inside); FileNotFoundError when it is missing, JobDamaged when it
    may not be read."""
    try:
        return read_inside(folder, path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise JobDamaged(exc.strerror or str(exc)) from None


def _job_json(folder: Path, path: Path, missing_ok: bool = False) -> dict | None:
    try:
        document = json.loads(read_job_file(folder, path))
    except FileNotFoundError:
        if missing_ok:
            return None
        raise JobDamaged(f"{path} is missing") from None
    except ValueError as exc:  # not UTF-8 or not JSON
        raise JobDamaged(f"{path} is not JSON: {exc}") from None
    if not isinstance(document, dict):
        raise JobDamaged(f"{path} is not a JSON object")
    return document


def log_tail(folder: Path, job_id: str, lines: int = LOG_TAIL_LINES) -> tuple[list[str], bytes]:
    """The last lines of the job's log (slurm-JOBID.out) and the whole log."""
    try:
        data = read_job_file(folder, folder / f"slurm-{job_id}.out")
    except FileNotFoundError:
        return [], b""
    return data.decode(errors="replace").rstrip().splitlines()[-lines:], data


def _launches(folder: Path) -> list[Path]:
    """The launch folders of runs/ (those with a meta.json), sorted; anything in runs/ that
    is a symbolic link or neither a folder nor a file makes the job damaged."""
    runs = folder / "runs"
    try:
        entries = sorted(os.scandir(runs), key=lambda entry: entry.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise JobDamaged(f"{runs}: {exc.strerror or exc}") from None
    launches = []
    for entry in entries:
        if entry.is_symlink() or not (entry.is_dir() or entry.is_file()):
            raise JobDamaged(f"{entry.path} is a symbolic link or not a file; not read")
        if entry.is_dir() and os.path.lexists(Path(entry.path) / META):
            launches.append(Path(entry.path))
    return launches


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
    """The runs a finished job left in its folder, each file read only as a regular file
    inside it. Raises JobDamaged when one cannot be read as commscope wrote it."""
    folder = Path(job["folder"])
    tail, log = log_tail(folder, job["job_id"])
    provenance = slurm_provenance(job, info)
    ended = _ENDED_BY.get(info.state)
    runs = []
    for launch in _launches(folder):
        meta = _job_json(folder, launch / META)
        result = _job_json(folder, launch / RESULT, missing_ok=True)

        def read(name: str, launch: Path = launch) -> bytes:
            try:
                return read_job_file(folder, launch / name)
            except FileNotFoundError:
                return b""

        try:
            if result is not None:
                run = run_from_files(
                    meta, launch, result["returncode"], result["stopped"], result["ended_at"], read=read
                )
                if run.status != "complete" and ended:
                    # scancel and the time limit signal the launcher too, which may end first:
                    # the job's fate is the reason, what the launch saw the detail.
                    run.status_reason = f"{ended} (Slurm state {info.slurm_state}): {run.status_reason}"
            else:
                reason = f"{ended or 'the job ended'} (Slurm state {info.slurm_state}) while it ran"
                run = run_from_files(meta, launch, None, reason, read=read)
        except (KeyError, TypeError, AttributeError) as exc:
            raise JobDamaged(f"{launch}: {META} or {RESULT} does not describe a launch ({exc!r})") from None
        _add_job_context(run, job, provenance, tail, log)
        runs.append(run)
    for sidecar in sorted((folder / "runs").glob(f"*{unsaved.SIDECAR_SUFFIX}")):
        # `run hpl` and `run storage` keep each run whole as files (records.unsaved)
        jsonl = sidecar.with_name(sidecar.name.removesuffix(unsaved.SIDECAR_SUFFIX) + ".jsonl")
        try:
            run = unsaved.load(
                jsonl, read_job_file(folder, jsonl), imported=False, read=lambda path: read_job_file(folder, path)
            )
        except FileNotFoundError:
            raise JobDamaged(f"{jsonl} is missing beside its {unsaved.SIDECAR_SUFFIX}") from None
        except unsaved.UnsavedError as exc:
            raise JobDamaged(f"{jsonl} line {exc.args[0]}: {exc.args[1]}") from None
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
    damaged: list[str] = field(default_factory=list)  # jobs skipped: what is wrong, each job named


def collect(store: Store, job_ids: Sequence[str], argv: Sequence[str]) -> Collected:
    """Store every finished job of `job_ids` (default: all not yet collected, the scheduled
    checks' ended jobs among them), once each."""
    outcome = Collected()
    if not job_ids:
        outcome.damaged += add_scheduled_jobs(store)
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
        try:
            if status.damaged:
                raise JobDamaged(status.damaged)
            if not Path(job["folder"]).is_dir():
                raise JobDamaged(f"its folder {job['folder']} is gone; nothing to collect")
            runs = runs_of(job, info)
        except JobDamaged as exc:
            outcome.damaged.append(f"job {name}: {exc}; skipped")
            continue
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
    if not job_ids:  # the nights just stored among them: each entry's hosts over its sweeps
        for folder, entry in nightly.entries_of(store.path):
            host_drift.keep(folder, store, entry.get("label") or folder.name)
    return outcome


def add_scheduled_jobs(store: Store) -> list[str]:
    """Remember the ended jobs of the scheduled checks that store into this database, as
    `submit` remembers its jobs (each folder once, however many collects run at once), and
    refresh the baseline each entry's jobs are judged against (it may have been set again
    since). Returns what is wrong with the job folders it skipped."""
    known = {job["folder"] for job in store.jobs([], uncollected=False)}
    damaged = []
    for folder, entry in nightly.entries_of(store.path):
        base_ids = store.baseline_run_ids(entry["baseline"]) or []
        nightly.keep_baseline(folder, entry["baseline"], [store.run(run_id) for run_id in base_ids])
        ended, skipped = nightly.ended_jobs(folder)
        damaged += skipped
        for job in ended:
            if str(job) in known:
                continue
            try:
                row = nightly.job_row(job)
            except CommscopeError as exc:
                damaged.append(f"job folder {job}: {exc}; skipped")
                continue
            store.claim_job(row)
    return damaged


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
