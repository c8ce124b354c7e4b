"""A scheduled check's folder: what `schedule` keeps beside an entry, and the job folders the
entry leaves each time it runs. The database is never opened where an entry runs (a
compute node, with the database on a network file system SQLite's WAL mode cannot share):
the baseline's runs are copied here on the host that owns the database, the runs are kept
as files as `submit`'s jobs keep them, and `commscope collect` stores them there later.

    <data>/commscope/schedule/NAME/
        entry.json          the entry: name, database, baseline, suite, label (`schedule`)
        baseline/           the baseline's runs kept whole (records.unsaved), baseline.json
                            naming them (`schedule`, refreshed by every `collect`)
        jobs/STAMP-XXXXXX/  one per time the entry ran: runs/ as in a `submit` job folder,
                            job.json (where and when), check.json (the verdict, and the
                            locate run after a failed check), locate.json (its verdict),
                            exit-status (of `run`, written last: the job has ended)

With --on-failure locate a failed check is followed, in the same job and process, by `sweep
locate` on the job's nodes (workflow/nightly.py): its run is kept as files in runs/, beside
the check's, where `collect` finds and stores it with them; no database is opened.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import shutil
import socket
import stat
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

import platformdirs

from commscope.errors import CommscopeError, UsageError
from commscope.execute.process import run_attached
from commscope.execute.signals import StopSignals
from commscope.records import unsaved
from commscope.records.inputs import SETTINGS_LIMIT, read_inside
from commscope.records.invocation import now
from commscope.records.run import Run

ENTRY_FILE = "entry.json"
BASELINE_DIR = "baseline"
MANIFEST = "baseline.json"
JOBS_DIR = "jobs"
JOB_FILE = "job.json"
EXIT_STATUS = "exit-status"
VERDICT = "check.json"
LOCATE_JSON = "locate.json"
#: Slurm's variables a job folder keeps: where the entry's job ran.
_SLURM = {
    "job_id": "SLURM_JOB_ID",
    "cluster": "SLURM_CLUSTER_NAME",
    "partition": "SLURM_JOB_PARTITION",
    "node_list": "SLURM_JOB_NODELIST",
    "nodes": "SLURM_JOB_NUM_NODES",
    "ntasks_per_node": "SLURM_NTASKS_PER_NODE",
}


def schedule_dir() -> Path:
    """Where entries keep their folders and cron entries their logs."""
    return platformdirs.user_data_path("commscope") / "schedule"


def _write_json(path: Path, document: dict) -> None:
    """Whole or not at all: a reader on another host never sees half a file."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    partial.replace(path)


def _read_json(path: Path) -> dict:
    """A JSON object of the entry's folder, read only as a regular file (never through a
    symbolic link, never waiting on a pipe), up to a limit."""
    try:
        document = json.loads(read_inside(path.parent, path, SETTINGS_LIMIT))
    except (OSError, ValueError) as exc:
        raise CommscopeError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not isinstance(document, dict):
        raise CommscopeError(f"{path} is not a JSON object")
    return document


def write_entry(folder: Path, name: str, database: Path, baseline: str, suite: str, label: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    entry = {"name": name, "database": str(database), "baseline": baseline, "suite": suite, "label": label}
    _write_json(folder / ENTRY_FILE, entry)


def read_entry(folder: Path) -> dict:
    return _read_json(folder / ENTRY_FILE)


def keep_baseline(folder: Path, baseline: str, runs: Sequence[Run]) -> None:
    """The baseline's runs as files in `folder`/baseline (none: no folder, so that a check
    says the baseline has no runs). Written beside and renamed into place: a check that
    starts meanwhile reads the old baseline or the new one, whole."""
    target = folder / BASELINE_DIR
    fresh = folder / f".{BASELINE_DIR}.{os.getpid()}.{secrets.token_hex(3)}"
    old = folder / f".{BASELINE_DIR}.old.{os.getpid()}"
    if runs:
        fresh.mkdir(parents=True)
        kept = []
        for run in runs:  # the measured points are what a check needs; raw output is left out
            jsonl = unsaved.keep(dataclasses.replace(run, raw={}), {"argv": ["commscope", "schedule"]}, fresh)
            kept.append({"id": run.id, "file": jsonl.name})
        _write_json(fresh / MANIFEST, {"baseline": baseline, "written_at": now(), "runs": kept})
    if target.exists():
        target.rename(old)
    if runs:
        fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def load_baseline(folder: Path, baseline: str) -> list[Run]:
    """The baseline's runs kept in the entry's folder; a UsageError (exit 2, as `check`)
    when there are none."""
    manifest_path = folder / BASELINE_DIR / MANIFEST
    if not manifest_path.is_file():
        raise UsageError(
            f"no baseline {baseline!r} kept in {folder}: it had no runs when the entry was written or last "
            f"collected; after `commscope baseline set {baseline} ...` run `commscope collect` (or schedule the "
            "entry again) on the host that holds the database"
        )
    manifest = _read_json(manifest_path)
    if manifest.get("baseline") != baseline:
        raise UsageError(f"{folder} keeps baseline {manifest.get('baseline')!r}, not {baseline!r}")
    runs = []
    for kept in manifest.get("runs", []):
        jsonl = manifest_path.parent / kept["file"]
        try:
            run = unsaved.load(jsonl, jsonl.read_bytes(), imported=False)
        except (OSError, unsaved.UnsavedError) as exc:
            raise CommscopeError(f"cannot read baseline run {jsonl}: {exc}") from None
        run.id = kept["id"]
        runs.append(run)
    return runs


def new_job(folder: Path, argv: Sequence[str]) -> Path:
    """A new job folder of the entry, with job.json: when it started, on which host, and
    Slurm's job (a scrontab entry's job keeps its id from one night to the next)."""
    # named so that they sort in the order they started, to the microsecond
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-%f")
    job = folder / JOBS_DIR / f"{stamp}-{secrets.token_hex(3)}"
    (job / "runs").mkdir(parents=True)
    slurm = {key: os.environ[name] for key, name in _SLURM.items() if os.environ.get(name)}
    _write_json(job / JOB_FILE, {"started_at": now(), "host": socket.gethostname(), "argv": list(argv), **slurm})
    return job


def commscope_argv(command: Sequence[str], options: Sequence[str]) -> list[str]:
    """`commscope COMMAND` with the entry's own `options` before the core's flags (`--`)."""
    argv = [sys.executable, "-m", "commscope", *command]
    split = argv.index("--") if "--" in argv else len(argv)
    argv[split:split] = options
    return argv


def run_commscope(argv: Sequence[str]) -> int:
    """A commscope command of the night, its output in the job's log; its exit status
    (started through execute/process: stopped whole when the job is)."""
    with StopSignals() as signals:
        return run_attached(argv, signals)


def run_suite(job: Path, run_args: Sequence[str]) -> int:
    """`commscope run RUN_ARGS --no-store --output-dir JOB/runs`, as `submit`'s job script
    runs it; its exit status is returned (`ended` writes it when the job is done)."""
    return run_commscope(commscope_argv(["run", *run_args], ["--no-store", "--output-dir", str(job / "runs")]))


def ended(job: Path, code: int) -> None:
    """The job is done: `run`'s exit status written, last, so that `collect` stores the
    job's runs only once all of them (a locate after the check too) are in its folder."""
    (job / EXIT_STATUS).write_text(f"{code}\n")


def write_verdict(job: Path, document: dict) -> None:
    _write_json(job / VERDICT, document)


def job_row(job: Path) -> dict:
    """A job folder as `collect` stores a `submit` job: the fields of the store's jobs table."""
    entry = read_entry(job.parent.parent)
    facts = _read_json(job / JOB_FILE)
    return {
        "job_id": facts.get("job_id", ""),
        "cluster": facts.get("cluster"),
        "submitted_at": facts.get("started_at") or now(),
        "label": entry.get("label"),
        "targets": [entry.get("suite", "")],
        "nodes": _number(facts.get("nodes")),
        "ntasks_per_node": _number(facts.get("ntasks_per_node")),
        "partition": facts.get("partition"),
        "node_list": facts.get("node_list"),
        "folder": str(job),
        "script": " ".join(facts.get("argv", [])),
        "state": "unknown",
    }


def _number(text: str | None) -> int | None:
    # SLURM_NTASKS_PER_NODE may read "2(x3)" on uneven allocations: the first count
    digits = (text or "").split("(")[0]
    return int(digits) if digits.isdigit() else None


def is_job(folder: Path) -> bool:
    """Whether a job folder is a scheduled check's (its state is the folder's, not Slurm's:
    a scrontab entry's job id is that of the entry's next night too)."""
    return _regular(folder / JOB_FILE) and _regular(folder.parent.parent / ENTRY_FILE)


def _regular(path: Path) -> bool:
    """Whether `path` is a regular file itself, not a link to one (nor a pipe)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def entries_of(database: Path) -> list[tuple[Path, dict]]:
    """The entries' folders (and entry.json) whose runs go into `database`."""
    found = []
    for path in sorted(schedule_dir().glob(f"*/{ENTRY_FILE}")):
        try:
            entry = _read_json(path)
        except CommscopeError:
            continue  # a folder being written, or not an entry's: nothing to collect from it
        if Path(entry.get("database", "")).resolve() == database.resolve():
            found.append((path.parent, entry))
    return found


def ended_jobs(folder: Path) -> tuple[list[Path], list[str]]:
    """The entry's job folders whose run has ended: those with an exit status, and those
    without one that a later job followed (Slurm or a reboot ended them: the next one
    started; a scrontab entry's job never runs twice at once). And what is wrong with the
    folders among them that are no job's as `schedule run` makes one (no job.json, or
    one that is not a file), each said: such a folder is skipped, never taken for one."""
    jobs = sorted((folder / JOBS_DIR).glob("*"))
    ended, damaged = [], []
    for number, job in enumerate(jobs):
        done = _regular(job / EXIT_STATUS) or number < len(jobs) - 1
        if os.path.islink(job):
            damaged.append(f"job folder {job} is a symbolic link; skipped")
            continue
        if _regular(job / JOB_FILE):
            if done:
                ended.append(job)
        elif done and not job.name.startswith("."):  # the newest may be one being made
            what = "a symbolic link or not a file" if os.path.lexists(job / JOB_FILE) else "missing"
            damaged.append(f"job folder {job}: its {JOB_FILE} is {what}; skipped")
    return ended, damaged
