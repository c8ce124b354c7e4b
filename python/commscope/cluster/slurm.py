"""Talking to Slurm through its commands: sbatch, scontrol, sacct, scancel.

Job states come from `scontrol show job` while the controller remembers the job
(MinJobAge, 300 s by default, after it ends), then from `sacct` where accounting
is set up (it needs slurmdbd; without it sacct says "accounting storage is
disabled" and is not asked again). Every command runs with a time limit, so a
controller that does not answer is reported, never waited on for ever.
"""

from __future__ import annotations

import functools
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from commscope.errors import CommscopeError, UsageError
from commscope.execute.process import NoAnswer, run_command
from commscope.execute.signals import StopSignals

#: Seconds one Slurm command may take. sbatch and scontrol retry an unreachable
#: controller for about MessageTimeout (10 s) times a few attempts on their own.
COMMAND_TIMEOUT = 60.0

# Slurm's job states (JobState, squeue %T, sacct State) as commscope reports them.
PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, UNKNOWN = (
    "pending",
    "running",
    "completed",
    "failed",
    "cancelled",
    "timeout",
    "unknown",
)
_STATES = {
    "PENDING": PENDING,
    "REQUEUED": PENDING,
    "REQUEUE_HOLD": PENDING,
    "REQUEUE_FED": PENDING,
    "RESV_DEL_HOLD": PENDING,
    "SPECIAL_EXIT": PENDING,
    "CONFIGURING": RUNNING,
    "RUNNING": RUNNING,
    "COMPLETING": RUNNING,
    "SUSPENDED": RUNNING,
    "STOPPED": RUNNING,
    "RESIZING": RUNNING,
    "SIGNALING": RUNNING,
    "STAGE_OUT": RUNNING,
    "COMPLETED": COMPLETED,
    "FAILED": FAILED,
    "NODE_FAIL": FAILED,
    "BOOT_FAIL": FAILED,
    "OUT_OF_MEMORY": FAILED,
    "CANCELLED": CANCELLED,
    "PREEMPTED": CANCELLED,
    "REVOKED": CANCELLED,
    "TIMEOUT": TIMEOUT,
    "DEADLINE": TIMEOUT,
}
FINISHED = (COMPLETED, FAILED, CANCELLED, TIMEOUT)


@dataclass
class JobInfo:
    """What Slurm says of one job."""

    job_id: str
    state: str  # one of PENDING ... UNKNOWN
    slurm_state: str  # Slurm's own word, e.g. CANCELLED, NODE_FAIL
    reason: str | None = None  # why it waits or ended (Reason=), None for "None"
    exit_code: str | None = None  # "0:0", "1:0", "0:15"
    node_list: str | None = None
    partition: str | None = None
    cluster: str | None = None
    account: str | None = None
    source: str = "scontrol"  # scontrol | sacct | folder
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.state in FINISHED


def job_state(slurm_state: str) -> str:
    """commscope's word for a Slurm state ("CANCELLED by 0" -> cancelled)."""
    word = slurm_state.split()[0].rstrip("+").upper() if slurm_state.strip() else ""
    return _STATES.get(word, UNKNOWN)


# `scontrol show job` prints Key=Value pairs separated by spaces (one line each with -o);
# a value may itself hold spaces (Command=, WorkDir=, Comment=), so a value runs up to
# the next " Key=" and keys are what Slurm uses: letters, digits, '/', ':' and '_'.
_PAIR = re.compile(r"(?:^|\s)([A-Za-z][\w/:]*)=(.*?)(?=\s+[A-Za-z][\w/:]*=|\s*$)", re.S)


def parse_scontrol_jobs(text: str) -> dict[str, dict[str, str]]:
    """JobId -> its fields, from `scontrol show job [-o]` (several jobs are separated by a
    blank line, or one a line with -o)."""
    jobs: dict[str, dict[str, str]] = {}
    blocks = re.split(r"\n\s*\n", text.strip()) if "\n\n" in text else text.strip().splitlines()
    for block in blocks:
        pairs = {key: value.strip() for key, value in _PAIR.findall(" ".join(block.split("\n")))}
        if "JobId" in pairs:
            jobs[pairs["JobId"]] = pairs
    return jobs


def _none(value: str | None) -> str | None:
    return None if value in (None, "", "None", "(null)") else value


def info_from_scontrol(fields: dict[str, str]) -> JobInfo:
    return JobInfo(
        job_id=fields["JobId"],
        state=job_state(fields.get("JobState", "")),
        slurm_state=fields.get("JobState", ""),
        reason=_none(fields.get("Reason")),
        exit_code=_none(fields.get("ExitCode")),
        node_list=_none(fields.get("NodeList")),
        partition=_none(fields.get("Partition")),
        cluster=_none(fields.get("ClusterName")),
        account=_none(fields.get("Account")),
        source="scontrol",
        fields=fields,
    )


_SACCT_FIELDS = ("JobID", "State", "ExitCode", "NodeList", "Partition", "Cluster", "Account", "Reason")


def parse_sacct(text: str) -> dict[str, JobInfo]:
    """Jobs from `sacct -n -P -X -o JobID,State,ExitCode,NodeList,Partition,Cluster,Account,Reason`."""
    jobs = {}
    for line in text.splitlines():
        values = line.split("|")
        if len(values) < len(_SACCT_FIELDS):
            continue
        row = dict(zip(_SACCT_FIELDS, values))
        jobs[row["JobID"]] = JobInfo(
            job_id=row["JobID"],
            state=job_state(row["State"]),
            slurm_state=row["State"],
            reason=_none(row["Reason"]),
            exit_code=_none(row["ExitCode"]),
            node_list=_none(row["NodeList"]),
            partition=_none(row["Partition"]),
            cluster=_none(row["Cluster"]),
            account=_none(row["Account"]),
            source="sacct",
            fields=row,
        )
    return jobs


def command_path(name: str) -> str:
    """The path of a Slurm command; a clear error where Slurm's client is not installed."""
    program = shutil.which(name)
    if program is None:
        raise CommscopeError(
            f"no {name} on PATH: commscope submits and follows jobs with Slurm's commands "
            f"(Debian package slurm-client); run it where they are installed, such as a "
            "login node"
        )
    return program


@dataclass(frozen=True)
class Answer:
    """What a Slurm command said: its exit status, its output and (the end of) its error
    output, decoded with replacement."""

    returncode: int
    stdout: str
    stderr: str

    def said(self) -> str:
        """Its error output (else its output) on one line, or its exit status."""
        return " ".join((self.stderr or self.stdout).split()) or f"exit status {self.returncode}"


def run_slurm(
    argv: list[str],
    timeout: float | None = COMMAND_TIMEOUT,
    cwd: Path | None = None,
    signals: StopSignals | None = None,
) -> Answer:
    """Run a Slurm command; a missing command, one that hangs or one that floods is a
    CommscopeError. `signals` (salloc waiting for nodes, timeout None): a stop signal ends
    it, with the exit status it ended with; by default only the timeout does."""
    program = command_path(argv[0])
    try:
        done = run_command([program, *argv[1:]], timeout, signals, cwd=cwd, name=" ".join(argv[:4]))
    except NoAnswer as exc:
        raise NoAnswer(f"{exc}: is the Slurm controller (slurmctld) up and reachable?") from None
    return Answer(done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"))


def _slurm_message(done: Answer) -> str:
    lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    return "; ".join(lines[-3:]) or f"exit status {done.returncode}"


def _controller_down(message: str) -> bool:
    return (
        "Unable to contact slurm controller" in message
        or "Socket timed out" in message
        or "Connection refused" in message
    )


def sbatch(script: Path, extra: Iterable[str] = (), cwd: Path | None = None) -> tuple[str, str | None]:
    """Submit a job script; returns (job id, cluster name or None). sbatch's own reason
    (invalid partition, unknown account, bad time limit...) becomes the error message."""
    done = run_slurm(["sbatch", "--parsable", *extra, str(script)], cwd=cwd)
    if done.returncode != 0:
        message = _slurm_message(done)
        if _controller_down(message):
            raise CommscopeError(f"the Slurm controller does not answer; nothing was submitted ({message})")
        raise UsageError(f"sbatch refused the job: {message}")
    answer = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    job_id, _, cluster = answer.partition(";")
    if not job_id.isdigit():
        raise CommscopeError(f"sbatch --parsable answered {answer!r}, not a job id")
    return job_id, cluster or None


def scontrol_jobs(job_ids: Iterable[str]) -> dict[str, JobInfo]:
    """What the controller says of each job it still remembers (the others are left out)."""
    found: dict[str, JobInfo] = {}
    for job_id in job_ids:
        done = run_slurm(["scontrol", "-o", "show", "job", str(job_id)])
        if done.returncode != 0:
            message = _slurm_message(done)
            if "Invalid job id" in message:
                continue  # finished longer ago than MinJobAge: ask sacct
            if _controller_down(message):
                raise CommscopeError(
                    f"the Slurm controller does not answer, so the state of job {job_id} is "
                    f"not known; nothing was changed ({message})"
                )
            raise CommscopeError(f"scontrol cannot tell the state of job {job_id}: {message}")
        for key, fields in parse_scontrol_jobs(done.stdout).items():
            found[key] = info_from_scontrol(fields)
    return found


@functools.lru_cache(maxsize=1)
def _sacct_works() -> bool:
    try:
        done = run_slurm(["sacct", "-n", "-X", "-j", "1", "-o", "JobID"])
    except CommscopeError:
        return False
    return done.returncode == 0


def sacct_jobs(job_ids: Iterable[str]) -> dict[str, JobInfo]:
    ids = [str(job_id) for job_id in job_ids]
    if not ids or not _sacct_works():
        return {}
    done = run_slurm(["sacct", "-n", "-P", "-X", "-j", ",".join(ids), "-o", ",".join(_SACCT_FIELDS)])
    return parse_sacct(done.stdout) if done.returncode == 0 else {}


def job_infos(job_ids: Iterable[str]) -> dict[str, JobInfo]:
    """Slurm's view of each job it still knows: scontrol first, sacct for the rest."""
    ids = [str(job_id) for job_id in job_ids]
    found = scontrol_jobs(ids)
    found.update(sacct_jobs([job_id for job_id in ids if job_id not in found]))
    return found


def cluster_name() -> str | None:
    """The ClusterName of the Slurm configuration (a cheap call: no job is looked up)."""
    try:
        done = run_slurm(["scontrol", "show", "config"])
    except CommscopeError:
        return None
    match = re.search(r"^ClusterName\s*=\s*(\S+)", done.stdout, re.M)
    return match.group(1) if match else None
