"""Slurm commands: submit, status, collect, config."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from commscope import ui
from commscope.cli.common import (
    CONTEXT,
    EXIT_STATUS_HELP,
    GivenPath,
    RunCommand,
    db_option,
    name_value_pairs,
    repeat_option,
    seconds_range,
    suite_file_option,
    timeout_option,
    transport_option,
    utf8_text,
)
from commscope.cli.run import TOOL_RUNS
from commscope.cli.values import time_limit_option
from commscope.errors import EXIT_FAILED, EXIT_OK, UsageError
from commscope.execute.limits import POINT_S, START_S
from commscope.records.suite import MAX_RANKS

SUBMIT_EPILOG = (
    """\b
Placement presets (--placement), after the job scripts of SJTU's OSU page:
  intra-node   1 node x 2 tasks       (two ranks sharing a node)
  inter-node   2 nodes x 1 task       (-n 2 --ntasks-per-node=1)
  collective   N nodes x K tasks      (--nodes N --ntasks-per-node K, default 2 x 1)
Without one, the suite's entries decide: an inter-node entry asks for 2 nodes,
intra-node entries for their ranks on one node.

\b
Site defaults (partition, account, modules, launcher, extra #SBATCH lines) come
from the configuration file: see `commscope config`. A flag wins over it.
"""
    + EXIT_STATUS_HELP
)


@click.command(cls=RunCommand, epilog=SUBMIT_EPILOG)
@click.argument("targets", metavar="[SUITE|BENCH]...", nargs=-1)
@suite_file_option("Run the suite in this YAML file (repeatable).")
@click.option("--nodes", "-N", type=click.IntRange(min=1), metavar="N", help="Nodes to allocate.")
@click.option("--ntasks-per-node", type=click.IntRange(min=1), metavar="K", help="MPI tasks per node.")
@click.option(
    "--placement",
    type=click.Choice(["intra-node", "inter-node", "collective"]),
    help="Allocation preset (see below); --nodes and --ntasks-per-node override it.",
)
@click.option(
    "--partition",
    "-p",
    metavar="P",
    help="Slurm partition (default: the configuration's, else the cluster's default partition).",
)
@click.option("--time", "-t", metavar="T", help="Time limit, in Slurm's format (30, 1:00:00, 1-0).")
@click.option("--account", "-A", metavar="A", help="Account to charge.")
@click.option("--qos", metavar="Q", help="Quality of service.")
@click.option(
    "--exclusive/--shared", default=None, help="Whole nodes for the job (default: the configuration's, else shared)."
)
@click.option("--constraint", "-C", metavar="C", help="Node features the job needs.")
@click.option(
    "--module",
    "modules",
    multiple=True,
    metavar="M",
    help="`module load M` before the run, after the configuration's modules (repeatable).",
)
@click.option(
    "--env",
    "env",
    multiple=True,
    metavar="K=V",
    callback=name_value_pairs,
    help="Export K=V in the job (repeatable); values are quoted, never run.",
)
@click.option(
    "--launcher",
    type=click.Choice(["auto", "srun", "mpirun", "mpiexec"]),
    help="How the job starts ranks (default: the configuration's, else auto = srun in the job).",
)
@transport_option("As for `commscope run`: how ranks sharing a node talk.")
@click.option("--label", metavar="TEXT", callback=utf8_text, help="Label for the runs the job stores.")
@click.option(
    "--np",
    type=click.IntRange(min=1, max=MAX_RANKS),
    metavar="N",
    help=f"MPI ranks for every benchmark (default: the suite's; at most {MAX_RANKS:,}, as for `run`).",
)
@repeat_option("Run the list K times in the job.")
@timeout_option(
    "Stop one benchmark that runs longer than this (its sizes are kept); default: "
    f"{START_S:g} s to start plus {POINT_S:g} s for each point it plans."
)
@time_limit_option(
    "As for `commscope run`: what the job's benchmarks may take together; the job's Slurm --time, "
    "unless given, is this and 5 minutes."
)
@click.option(
    "--output-dir",
    type=GivenPath(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Where the job's folder is made (default: the configuration's jobs_dir, else jobs/ in "
    "commscope's data folder). It must be visible from the compute nodes.",
)
@click.option("--wait", is_flag=True, help="Wait for the job to end, then collect it into the database.")
@click.option(
    "--start-timeout",
    type=seconds_range(min=0),
    metavar="SECONDS",
    help="With --wait: give up waiting when the job has not started after this long (default: the "
    "configuration's start_timeout, else 600). The job is left queued; collect it later.",
)
@click.option("--dry-run", is_flag=True, help="Print the job script; submit nothing, make no folder.")
@db_option()
@click.pass_context
def submit(
    ctx: click.Context,
    targets,
    suite_files,
    nodes,
    ntasks_per_node,
    placement,
    partition,
    time,
    account,
    qos,
    exclusive,
    constraint,
    modules,
    env,
    launcher,
    transport,
    label,
    np,
    repeat,
    timeout,
    time_limit,
    output_dir,
    wait,
    start_timeout,
    dry_run,
    db: Path,
) -> None:
    """Submit benchmarks as a Slurm batch job.

    Renders a job script that runs `commscope run SUITE|BENCH... --no-store
    --output-dir FOLDER/runs` on the allocation, submits it with `sbatch
    --parsable`, and records the job in the database. The job id is printed on
    stdout. `commscope status` follows the job; `commscope collect` (or
    --wait) stores its runs with the job id, node list, partition and
    cluster name. A job that is cancelled or times out keeps the sizes it
    measured: they are stored as incomplete runs.

    Flags after `--` go to every benchmark, as for `commscope run`.

    `submit hpl` and `submit storage` run `commscope run hpl|storage` on the
    allocation instead, on every task (--np: nodes x tasks per node); their own
    options go after `--` (`submit hpl --nodes 4 --ntasks-per-node 48 -- --n
    80000 --nb 192`), checked here before anything is submitted.
    """
    from commscope.cluster import config as site
    from commscope.cluster.script import render
    from commscope.cluster.submit import DEFAULT_START_TIMEOUT, SubmitOptions, build_request
    from commscope.cluster.submit import submit as do_submit

    config = site.load()
    core_flags = ctx.meta.get("core_flags", [])
    tool = _tool_run(targets, suite_files, transport, repeat, time_limit, core_flags)
    options = SubmitOptions(
        targets=targets,
        suite_files=suite_files,
        nodes=nodes,
        ntasks_per_node=ntasks_per_node,
        placement=placement,
        partition=partition,
        time=time,
        account=account,
        qos=qos,
        exclusive=exclusive,
        constraint=constraint,
        modules=modules,
        env=env,
        launcher=launcher,
        transport=transport,
        label=label,
        np=np,
        repeat=repeat,
        timeout=timeout,
        time_limit=time_limit,
        output_dir=output_dir,
        core_flags=() if tool else core_flags,
        tool=tool,
    )
    request = build_request(options, config)
    script = render(request)
    if dry_run:
        click.echo(script, nl=False)
        return
    job = do_submit(request, script, db, sys.argv)
    click.echo(job["job_id"])
    ui.note(
        f"submitted job {job['job_id']}: {request.nodes} node(s) x {request.ntasks_per_node} task(s); "
        f"folder {request.folder}"
    )
    if not wait:
        ui.note(
            f"follow it with `commscope status {job['job_id']}`; store it with `commscope collect "
            f"{job['job_id']}` when it has ended"
        )
        return
    from commscope.cluster.collect import collect
    from commscope.cluster.submit import wait_for
    from commscope.store.db import Store

    limit = start_timeout if start_timeout is not None else (config.start_timeout or DEFAULT_START_TIMEOUT)
    info = wait_for(job, limit)
    ui.note(f"job {job['job_id']} ended: {info.state}" + (f" ({info.reason})" if info.reason else ""))
    with Store(db) as store:
        outcome = collect(store, [job["job_id"]], sys.argv)
        ctx.exit(_report_collected(store, outcome))


def _tool_run(targets, suite_files, transport, repeat, time_limit, flags) -> tuple[str, ...]:
    """(name, *options) when the job is to run `run hpl` or `run storage`, its options
    checked as that command checks them; () for benchmarks and suites."""

    if not targets or targets[0] not in TOOL_RUNS:
        return ()
    name = targets[0]
    if len(targets) > 1 or suite_files:
        raise UsageError(f"submit {name} runs {name} alone: give no other benchmark, suite or --suite-file")
    for given, option in ((transport, "--transport"), (repeat > 1, "--repeat"), (time_limit, "--time-limit")):
        if given:
            raise UsageError(f"{option} applies to benchmarks, not to submit {name}")
    taken = {"--np", "--launcher", "--no-store", "--output-dir", "--db", "--label", "--timeout", "--dry-run"}
    clash = sorted({flag.split("=", 1)[0] for flag in flags} & taken)
    if clash:
        raise UsageError(f"{clash[0]} after -- is the job's to set: give submit's own option instead")
    # the options as `run NAME` reads them: a mistake is a usage error now, not a failed job
    TOOL_RUNS[name].make_context(f"commscope run {name}", list(flags))
    return (name, *flags)


def _report_collected(store, outcome) -> int:
    """Print what collect stored; exit 1 when a stored run did not complete."""
    incomplete = False
    for job_id, ids in outcome.stored.items():
        runs = [store.run(run_id) for run_id in ids]
        bad = [run for run in runs if run.status != "complete"]
        incomplete = incomplete or bool(bad)
        ui.note(
            f"job {job_id}: stored {len(ids)} run(s): {', '.join(map(str, ids))}"
            + (f"; {len(bad)} not complete" if bad else "")
        )
        for run in runs:
            # what the operator must hear of a run that completed all the same: a start that
            # failed before it, a congestor the core skipped
            for said in [*(run.notes or []), *([run.status_reason] if run.status_reason and run not in bad else [])]:
                ui.warn(f"run {run.id} {run.benchmark}: {said}")
        for run in bad:
            ui.warn(f"run {run.id} {run.benchmark}: {run.status}: {run.status_reason}")
    for job_id, ids in outcome.already.items():
        ui.note(f"job {job_id}: collected before (runs {', '.join(map(str, ids)) or 'none'}); nothing stored")
    for job_id, state in outcome.waiting.items():
        ui.note(f"job {job_id}: still {state}; collect it when it has ended")
    for said in outcome.damaged:
        ui.error(said)
    return EXIT_FAILED if incomplete or outcome.damaged else EXIT_OK


@click.command()
@click.argument("job_ids", metavar="[JOB]...", nargs=-1)
@db_option()
def status(job_ids, db: Path) -> None:
    """State of submitted jobs: pending, running, completed, failed, cancelled,
    timeout (or unknown, when Slurm has forgotten a job that left no exit status).

    JOB is a Slurm job id that `commscope submit` printed. Without one, every
    job not yet collected is shown. States come from `scontrol show job`, and
    from `sacct` where Slurm keeps accounting.
    """
    from commscope.cluster.collect import statuses
    from commscope.output.views import rich_table
    from commscope.store.db import Store

    with Store(db, create=False) as store:
        found = statuses(store, job_ids)
    if not found:
        ui.note(f"no jobs waiting to be collected in {db}")
        return
    header = ["job", "state", "reason", "nodes", "node list", "submitted", "collected", "folder"]
    rows = [
        [
            s.job["job_id"],
            s.info.state,
            s.info.reason or "",
            f"{s.job['nodes']}x{s.job['ntasks_per_node']}",
            s.info.node_list or s.job["node_list"] or "",
            s.job["submitted_at"][:16].replace("T", " "),
            "runs " + ", ".join(map(str, s.job["run_ids"])) if s.job["collected_at"] else "no",
            s.job["folder"],
        ]
        for s in found
    ]

    ui.table_console().print(rich_table(header, rows, left=len(header)))


@click.command()
@click.argument("job_ids", metavar="[JOB]...", nargs=-1)
@db_option()
@click.pass_context
def collect(ctx: click.Context, job_ids, db: Path) -> None:
    """Store the runs of finished jobs.

    JOB is a Slurm job id that `commscope submit` printed; without one, every
    finished job not yet collected. A job is stored once: collecting it again
    stores nothing. A cancelled, failed or timed-out job is stored as
    incomplete runs with the sizes they measured, the reason and the tail of
    the job's log. Jobs still pending or running are left for later.

    \b
    Exit status: 0 stored (or nothing to store); 1 a stored run did not
    complete, a job's folder was damaged (said, skipped; the others stored),
    or an error; 2 usage error (unknown job).
    """
    from commscope.cluster.collect import collect as do_collect
    from commscope.store.db import Store

    with Store(db, create=False) as store:
        outcome = do_collect(store, job_ids, sys.argv)
        if not (outcome.stored or outcome.already or outcome.waiting or outcome.damaged):
            ui.note(f"no jobs to collect in {db}")
        ctx.exit(_report_collected(store, outcome))


@click.group(context_settings=CONTEXT, invoke_without_command=True)
@click.option("--show", is_flag=True, help="Show the file and its settings (what `commscope config` alone does).")
@click.pass_context
def config(ctx: click.Context, show) -> None:
    """Site defaults for `commscope submit`, in a YAML file.

    \b
    The file is $COMMSCOPE_CONFIG, else config.yaml in the user's
    configuration folder. Keys:
      partition, account, qos, time, constraint   #SBATCH defaults
      exclusive                                   true: whole nodes
      launcher, transport                         as for `commscope run`
      modules: [M, ...]                           module load before the run
      env: {NAME: VALUE}                          exported in the job
      sbatch: ["--mem=0", ...]                    extra #SBATCH lines
      setup: ["source /opt/venv/bin/activate"]    shell lines before the run
      commscope: /opt/venv/bin/commscope          the command on compute nodes
      jobs_dir: /scratch/me/commscope-jobs        where job folders go
      start_timeout: 600                          submit --wait: seconds in the queue
    A flag of `commscope submit` wins over the file.
    """
    if ctx.invoked_subcommand is None:
        _show_config()


def _show_config() -> None:
    from commscope.cluster import config as site

    path = site.config_path()
    settings = site.load(path)
    exists = "" if path.exists() else " (does not exist: built-in defaults apply)"
    click.echo(f"# {path}{exists}")
    for key, value in settings.items():
        if value in (None, [], {}):
            click.echo(f"# {key}: (not set)")
        else:
            import yaml

            click.echo(yaml.safe_dump({key: value}, default_flow_style=None, allow_unicode=True).strip())


@config.command(name="set")
@click.argument("key")
@click.argument("values", nargs=-1, required=True)
def config_set(key, values) -> None:
    """Set KEY to VALUE (list keys take several values; env takes NAME=VALUE pairs).
    Comments in the file are not kept."""
    from commscope.cluster import config as site

    path = site.config_path()
    path = site.save(site.set_key(site.load(path), key, list(values)), path)
    ui.note(f"{key} set in {path}")


@config.command(name="unset")
@click.argument("key")
def config_unset(key) -> None:
    """Remove KEY from the file (its built-in default applies again)."""
    from commscope.cluster import config as site

    if key not in site.KEYS:
        raise UsageError(f"unknown configuration key {key!r}; known keys: {', '.join(site.KEYS)}")
    path = site.config_path()
    settings = site.load(path)
    setattr(settings, key, [] if key in site.LIST_KEYS else {} if key == "env" else None)
    site.save(settings, path)
    ui.note(f"{key} removed from {path}")


@config.command(name="path")
def config_path() -> None:
    """Print the configuration file's path."""
    from commscope.cluster import config as site

    click.echo(site.config_path())
