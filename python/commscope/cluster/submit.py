"""`commscope submit`: make a job folder and script, hand it to sbatch, remember the job."""

from __future__ import annotations

import math
import secrets
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import platformdirs

from commscope import ui
from commscope.cluster import slurm
from commscope.cluster.config import SiteConfig
from commscope.cluster.script import JobRequest, check_env, shape
from commscope.errors import UsageError
from commscope.records.inputs import SETTINGS_LIMIT, read_inside
from commscope.records.invocation import invocation, now
from commscope.records.suite import Entry, expand, suite_path
from commscope.store.db import Store

DEFAULT_START_TIMEOUT = 600.0
#: Seconds between two looks at a waited-for job: short at first (a job on an idle
#: cluster starts and ends within seconds), longer later so a long queue is not hammered.
POLL_INTERVALS = (1, 1, 2, 2, 3, 5, 5, 10)


@dataclass
class SubmitOptions:
    """`commscope submit`'s command line; None where the user gave nothing (config decides)."""

    targets: Sequence[str] = ()
    suite_files: Sequence[str] = ()
    nodes: int | None = None
    ntasks_per_node: int | None = None
    placement: str | None = None
    partition: str | None = None
    time: str | None = None
    account: str | None = None
    qos: str | None = None
    exclusive: bool | None = None
    constraint: str | None = None
    modules: Sequence[str] = ()
    env: Sequence[str] = ()  # NAME=VALUE
    launcher: str | None = None
    transport: str | None = None
    label: str | None = None
    np: int | None = None
    repeat: int = 1
    timeout: float | None = None
    time_limit: float | None = None  # --time-limit, seconds
    output_dir: Path | None = None
    core_flags: Sequence[str] = ()
    #: A tool run instead of benchmarks: its name and options (`submit hpl -- --n 2000`).
    tool: Sequence[str] = ()
    argv: Sequence[str] = field(default_factory=lambda: list(sys.argv))


def entries_of(targets: Sequence[str], suite_files: Sequence[str]) -> tuple[list[str], list[Entry]]:
    """The targets as the job's `commscope run` gets them (suite files made absolute, since
    the job runs in its own folder) and the suite entries they stand for. A target that is
    no suite is taken as a benchmark name: the core on the compute nodes decides."""
    names: list[str] = []
    entries: list[Entry] = []
    for name in suite_files:
        path = Path(name)
        if not path.is_file():
            raise UsageError(f"suite file {name} does not exist")
        names.append(str(path.absolute()))
        entries += expand(path)
    for target in targets:
        path = suite_path(target)
        if path is not None:
            names.append(str(Path(target).absolute()) if Path(target).is_file() else target)
            entries += expand(path)
        else:
            names.append(target)
            entries.append(Entry(benchmark=target))
    if not names:
        names, entries = ["quick"], expand(suite_path("quick"))
    return names, entries


def _env_pairs(values: Sequence[str], where: str) -> list[tuple[str, str]]:
    pairs = []
    for value in values:
        name, sep, text = value.partition("=")
        if not sep:
            raise UsageError(f"{where} {value!r}: give NAME=VALUE")
        pairs.append((name, text))
    check_env(pairs)
    return pairs


def job_folder(options: SubmitOptions, config: SiteConfig, names: Sequence[str]) -> Path:
    """A new, unique folder for the job: --output-dir, else jobs_dir of the configuration,
    else jobs/ in the user's data folder (beside the result database)."""
    base = options.output_dir or (
        Path(config.jobs_dir).expanduser() if config.jobs_dir else platformdirs.user_data_path("commscope") / "jobs"
    )
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    first = Path(names[0]).stem if names else "quick"
    slug = "".join(char if char.isalnum() or char in "-_." else "_" for char in first)[:30]
    return base.absolute() / f"{stamp}-{slug}-{secrets.token_hex(3)}"


#: What a job's Slurm time adds to its --time-limit: the allocation's start, the inventory of
#: its hosts, a launch's start-up past the limit.
JOB_TIME_MARGIN_S = 300.0


def job_time(time_limit: float | None) -> str | None:
    """Slurm's --time (minutes) of a job that runs to `time_limit`; None without one (Slurm's
    default, or the configuration's, applies)."""
    return str(math.ceil((time_limit + JOB_TIME_MARGIN_S) / 60)) if time_limit else None


def build_request(options: SubmitOptions, config: SiteConfig) -> JobRequest:
    """The job from the command line over the configuration over the defaults."""
    names, entries = (options.tool[:1], []) if options.tool else entries_of(options.targets, options.suite_files)
    nodes, tasks = shape(entries, options.placement, options.nodes, options.ntasks_per_node)
    env = [
        *_env_pairs([f"{k}={v}" for k, v in config.env.items()], "env of the configuration"),
        *_env_pairs(options.env, "--env"),
    ]
    commscope = shlex.split(config.commscope) if config.commscope else [sys.executable, "-m", "commscope"]
    exclusive = options.exclusive if options.exclusive is not None else bool(config.exclusive)
    return JobRequest(
        targets=names,
        folder=job_folder(options, config, names),
        nodes=nodes,
        ntasks_per_node=tasks,
        partition=options.partition or config.partition,
        account=options.account or config.account,
        qos=options.qos or config.qos,
        time=options.time or config.time or job_time(options.time_limit),
        constraint=options.constraint or config.constraint,
        exclusive=exclusive,
        modules=[*config.modules, *options.modules],
        env=env,
        sbatch_lines=config.sbatch,
        setup=config.setup,
        launcher=options.launcher or config.launcher or "auto",
        transport=options.transport or config.transport,
        label=options.label,
        np=options.np,
        repeat=options.repeat,
        timeout=options.timeout,
        time_limit=options.time_limit,
        core_flags=options.core_flags,
        tool=options.tool,
        commscope=commscope,
        submitted_at=now(),
        benchmarks=[target for target in options.targets if suite_path(target) is None],
    )


def submit(request: JobRequest, script: str, db: Path, argv: Sequence[str]) -> dict:
    """Write the job folder and script, sbatch it, record it; returns the job's row."""
    try:
        request.folder.mkdir(parents=True)
        request.runs_dir.mkdir()
        path = request.folder / "job.sh"
        path.write_text(script)
    except OSError as exc:
        raise UsageError(f"cannot make the job folder {request.folder}: {exc.strerror or exc}") from exc
    try:
        job_id, cluster = slurm.sbatch(path, cwd=request.folder)
    except BaseException:
        _remove_unsubmitted(request.folder)
        raise
    job = {
        "job_id": job_id,
        "cluster": cluster or slurm.cluster_name(),
        "submitted_at": request.submitted_at,
        "label": request.label,
        "targets": list(request.targets),
        "nodes": request.nodes,
        "ntasks_per_node": request.ntasks_per_node,
        "partition": request.partition,
        "folder": str(request.folder),
        "script": script,
        "state": slurm.PENDING,
    }
    with Store(db) as store:
        job["invocation_id"] = store.add_invocation(invocation("submit", argv))
        job["id"] = store.add_job(job)
    return job


def _remove_unsubmitted(folder: Path) -> None:
    """A job sbatch refused leaves no folder behind (it holds only the script)."""
    for path in sorted(folder.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    folder.rmdir()


def wait_for(job: dict, start_timeout: float, sleep=time.sleep) -> slurm.JobInfo:
    """Poll until the job has ended. A job still pending after `start_timeout` seconds is
    left queued and reported (a UsageError naming why it waits); a job that started is
    waited for until it ends (its time limit bounds that)."""
    job_id = job["job_id"]
    begin = time.monotonic()
    started = False
    for poll in range(10**9):
        info = slurm.job_infos([job_id]).get(job_id)
        if info is None:
            info = folder_info(job)  # the controller forgot it already: the folder tells
        if info.finished:
            return info
        if info.state == slurm.RUNNING and not started:
            started = True
            ui.note(f"job {job_id} runs on {info.node_list}")
        if not started and time.monotonic() - begin > start_timeout:
            why = f" (Slurm's reason: {info.reason})" if info.reason else ""
            raise UsageError(
                f"job {job_id} did not start within {start_timeout:g} s{why}; it is left "
                f"queued: see `commscope status {job_id}`, store it later with `commscope collect "
                f"{job_id}`, or cancel it with `scancel {job_id}`"
            )
        sleep(POLL_INTERVALS[min(poll, len(POLL_INTERVALS) - 1)])
    raise AssertionError("unreachable")


def folder_info(job: dict) -> slurm.JobInfo:
    """A job's state from its folder, for a job Slurm no longer remembers: the script writes
    exit-status when commscope ends; without it the job was killed (or never ran)."""
    folder = Path(job["folder"])
    try:  # written by whoever ran the job: never through a link out of it, never a pipe
        code = read_inside(folder, folder / "exit-status", SETTINGS_LIMIT).decode(errors="replace").strip()
    except FileNotFoundError:
        code = None
    if code is not None:
        state = slurm.COMPLETED if code == "0" else slurm.FAILED
        return slurm.JobInfo(job["job_id"], state, state.upper(), exit_code=f"{code}:0", source="folder")
    return slurm.JobInfo(
        job["job_id"],
        slurm.UNKNOWN,
        "UNKNOWN",
        reason="Slurm no longer knows the job and it left no exit status",
        source="folder",
    )
