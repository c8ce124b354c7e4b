"""`commscope schedule`: health checks at fixed times (scrontab, or cron without Slurm)."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click

from commscope import ui
from commscope.cli.common import (
    CONTEXT,
    GivenPath,
    RunCommand,
    bind_option,
    db_option,
    name_value_pairs,
    transport_option,
)
from commscope.cli.night_locate import check_locate_hosts, check_locate_words, locate_words, night_locate
from commscope.cli.publish import publish, publish_options
from commscope.cluster import slurm
from commscope.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, CommscopeError, UsageError
from commscope.execute.core import find_core, list_benchmarks
from commscope.records.invocation import now
from commscope.records.suite import builtin_suites, suite_path

SCHEDULE_EPILOG = """\b
Each entry runs `commscope schedule run FOLDER --baseline B -- SUITE --label L ...`: the
suite's runs are kept as files in a new job folder of the entry's folder (as `submit`'s
jobs keep theirs) and judged as `check --baseline B` judges them, against the baseline's
runs that `schedule` copied into the entry's folder; the database is not opened where the
entry runs. `commscope collect`, on the host that holds the database, stores the runs
and refreshes the copied baseline. With Slurm's scrontab the entry is a batch job of the
size its #SCRON lines ask for (--nodes, --ntasks-per-node, --partition, --time); without
it, a crontab entry runs the same on this machine. Only the entries between commscope's
marks are touched; `commscope history` follows what `collect` stored.

With --on-failure locate, a check that fails (exit 1) is followed in the same job by
`commscope sweep locate` on the job's nodes (--drain passed on when given), its run kept
beside the check's; with --textfile or --push, each night's runs and verdict are published
as metrics (commscope_check_failed, commscope_check_end_timestamp_seconds, the runs' own,
and each host's drift over the entry's stored sweeps, commscope_drifting) without the
database. A publication that fails is said once in the job's log and
leaves the check's exit status as it is (0 pass, 1 regression, 2 no baseline).

\b
Examples:
  commscope schedule pt2pt --every 1d --nodes 2 --ntasks-per-node 1 --baseline accepted
  commscope schedule pt2pt --every 1d --nodes 16 --baseline accepted \\
      --on-failure locate --drain --textfile /var/lib/node_exporter/textfile
  commscope schedule --list
  commscope schedule --remove pt2pt
  commscope collect                    # store what the entries ran
"""


def _slurm_options(name, nodes, ntasks_per_node, partition, time, account, qos, log_dir: Path) -> list[str]:
    """The entry's #SCRON lines (sbatch's options), each value one safe word."""
    from commscope.cluster.script import check_directive

    given = [("partition", partition), ("time", time), ("account", account), ("qos", qos)]
    for flag, value in given:
        check_directive(f"--{flag}", value)
    check_directive("--output", str(log_dir))
    options = [f"--job-name=commscope-{name}", f"--output={log_dir}/commscope-{name}-%j.out"]
    options += [f"--nodes={nodes}"] if nodes else []
    options += [f"--ntasks-per-node={ntasks_per_node}"] if ntasks_per_node else []
    return options + [f"--{flag}={value}" for flag, value in given if value]


#: The group an entry publishes under unless --group says: the entry's name.
ENTRY_GROUP = "ENTRY"


def night_options(command):
    """What the entry does after the check, the same options on `schedule` and on the
    `schedule run` it writes: --on-failure locate [--drain] [--locate-args], and the
    publication's --textfile, --push and --group."""

    @click.option(
        "--locate-args",
        metavar="'ARGS'",
        help="More options of `sweep locate` after a failed check, split as a shell would "
        "(e.g. '--metric latency --detect 30', or '--hostfile FILE' where the entry runs without Slurm).",
    )
    @click.option("--drain", is_flag=True, help="With --on-failure locate: pass --drain to `sweep locate`.")
    @click.option(
        "--on-failure",
        type=click.Choice(["locate"]),
        help="locate: after a failed check (exit 1), run `commscope sweep locate` on the job's nodes "
        "(at least 6) in the same job; its run is kept and collected with the check's, same label.",
    )
    @publish_options(ENTRY_GROUP)
    @functools.wraps(command)
    def wrapped(*args, **kwargs):
        return command(*args, **kwargs)

    return wrapped


def _night_options(ctx: click.Context, on_failure, drain, locate_args, textfile, push, group) -> list:
    """The entry's `schedule run` options, as (flag, value) pairs."""
    if (drain or locate_args) and on_failure != "locate":
        raise UsageError(f"{'--drain' if drain else '--locate-args'} goes with --on-failure locate")
    options: list[tuple[str, str | None]] = [("--on-failure", on_failure)] if on_failure else []
    options += [("--drain", None)] if drain else []
    options += [("--locate-args", locate_args)] if locate_args else []
    options += [("--textfile", str(textfile.resolve()))] if textfile else []
    options += [("--push", push)] if push else []
    if (textfile or push) and ctx.get_parameter_source("group") is not click.core.ParameterSource.DEFAULT:
        options.append(("--group", group))
    return options


class _EntryRunCommand(RunCommand):
    """`schedule run`: what follows `--` is `commscope run`'s command line, core flags and all."""

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [*click.Command.collect_usage_pieces(self, ctx), "-- SUITE|BENCH [RUN_OPTIONS] [-- CORE_FLAGS]"]


@click.command(cls=_EntryRunCommand, context_settings=CONTEXT)
@click.argument("folder", type=GivenPath(file_okay=False, path_type=Path))
@click.option("--baseline", required=True, metavar="NAME", help="The baseline kept in FOLDER to judge the runs by.")
@night_options
@click.pass_context
def schedule_run(
    ctx: click.Context, folder: Path, baseline: str, on_failure, drain, locate_args, textfile, push, group
) -> None:
    """What an entry runs: `commscope run RUN_ARGS` into a new job folder of the entry's
    FOLDER (its runs as files; the database is not opened), then the runs judged against
    the baseline's runs kept in FOLDER as `commscope check --baseline` judges them; after a
    failed check, `sweep locate` (--on-failure locate); then the metrics published (--textfile,
    --push). Exit status: run's when it fails, else check's (0 pass, 1 regression, 2 no
    baseline), whatever the locate and the publication did. `commscope collect` stores the
    runs later.
    """
    from commscope.cluster import nightly

    if not (folder / nightly.ENTRY_FILE).is_file():
        raise UsageError(
            f"{folder} is not a scheduled check's folder (no {nightly.ENTRY_FILE}): see `commscope schedule`"
        )
    words = locate_words(locate_args)
    if ctx.get_parameter_source("group") is click.core.ParameterSource.DEFAULT:
        group = folder.name.replace(".", "_")  # an entry's name, as a group name may be written
    job = nightly.new_job(folder, sys.argv)
    ui.note(f"job folder {job}")
    code = nightly.run_suite(job, ctx.meta.get("core_flags", []))
    try:
        status = _night(job, folder, baseline, code, (on_failure, drain, words), (textfile, push, group))
    finally:
        nightly.ended(job, code)
    ctx.exit(status)


def _night(job: Path, folder: Path, baseline: str, code: int, locating: tuple, publishing: tuple) -> int:
    """The night after `run`: the check, the locate after a failed one, the publication;
    check.json written with what each did. Returns the entry's exit status."""

    from commscope.analysis.check import Policy
    from commscope.analysis.monitoring import check_samples
    from commscope.cluster import host_drift, nightly
    from commscope.kinds import check as judge
    from commscope.kinds import monitoring
    from commscope.output.ci import check_json
    from commscope.output.verdicts import show_check

    on_failure, drain, words = locating
    textfile, push, group = publishing
    label = nightly.read_entry(folder).get("label") or folder.name
    runs = _kept_runs(job, code)
    status, document = code, None
    if code == 0:
        try:
            base_runs = nightly.load_baseline(folder, baseline)
        except UsageError as exc:
            ui.error(str(exc))
            status = EXIT_USAGE
        else:
            result = judge(baseline, base_runs, runs, Policy())
            document = json.loads(check_json(result))
            show_check(result)
            status = EXIT_OK if result.passed else EXIT_FAILED
    if document is not None and status == EXIT_FAILED and on_failure == "locate":
        ui.note(f"the check failed: sweep locate on the job's nodes{' (--drain)' if drain else ''}")
        document["locate"] = night_locate(job, label, drain, words)
        runs = _kept_runs(job, code)  # the locate's run among them
    if document is not None:
        nightly.write_verdict(job, document)
    if textfile is not None or push is not None:
        system = next((run.system for run in runs if run.system), None)
        samples = monitoring(runs, lambda run: None) + check_samples(system, label, baseline, status == 0, now())
        try:
            samples += host_drift.night_samples(folder, runs)  # the hosts over the entry's sweeps
            published = publish(samples, textfile, push, group)
        except CommscopeError as exc:  # a --textfile folder missing on this node: said, the night stands
            ui.error(str(exc))
            published = False
        if document is not None:  # said in the log already; kept with the verdict for `collect`'s reader
            nightly.write_verdict(job, {**document, "published": published})
    return status


def _kept_runs(job: Path, code: int) -> list:
    """The runs in the job folder, read as `collect` reads them (no database opened), the
    job's state that of `run`'s exit status."""
    from commscope.cluster.collect import runs_of
    from commscope.cluster.nightly import job_row

    state = slurm.COMPLETED if code == 0 else slurm.FAILED
    return runs_of(job_row(job), slurm.JobInfo("", state, state.upper(), exit_code=f"{code}:0", source="folder"))


@click.command(cls=RunCommand, context_settings=CONTEXT, epilog=SCHEDULE_EPILOG, delegated={"run": schedule_run})
@click.argument("suite", required=False, metavar="[SUITE|BENCH]")
@click.option("--every", metavar="PERIOD", help="How often: 30m, 6h, 1d, 2d, 1w.")
@click.option(
    "--at", "at", default="02:00", show_default=True, metavar="HH:MM", help="Time of day (its minute, for hours)."
)
@click.option("--baseline", metavar="NAME", help="Baseline each run is checked against (`commscope baseline set`).")
@click.option("--name", metavar="NAME", help="The entry's name (default: the suite's); --remove takes it.")
@click.option("--label", metavar="TEXT", help="Label of the runs it stores (default: the entry's name).")
@click.option("--nodes", "-N", type=click.IntRange(min=1), metavar="N", help="Slurm: nodes to allocate.")
@click.option("--ntasks-per-node", type=click.IntRange(min=1), metavar="K", help="Slurm: MPI tasks per node.")
@click.option("--partition", "-p", metavar="P", help="Slurm: partition.")
@click.option("--time", "-t", default="1:00:00", show_default=True, metavar="T", help="Slurm: time limit.")
@click.option("--account", "-A", metavar="A", help="Slurm: account to charge.")
@click.option("--qos", metavar="Q", help="Slurm: quality of service.")
@transport_option("As for `commscope run`.")
@bind_option()
@click.option(
    "--env", "env", multiple=True, metavar="K=V", callback=name_value_pairs, help="Export K=V for the run (repeatable)."
)
@click.option(
    "--scheduler",
    type=click.Choice(["auto", "scrontab", "cron"]),
    default="auto",
    show_default=True,
    help="auto: scrontab where Slurm's is installed, else cron.",
)
@click.option("--list", "list_", is_flag=True, help="List commscope's scheduled checks.")
@click.option("--remove", metavar="NAME", help="Remove the scheduled check NAME.")
@click.option("--dry-run", is_flag=True, help="Print the table as it would be written; change nothing.")
@night_options
@db_option()
@click.pass_context
def schedule(
    ctx: click.Context,
    suite,
    every,
    at,
    baseline,
    name,
    label,
    nodes,
    ntasks_per_node,
    partition,
    time,
    account,
    qos,
    transport,
    bind,
    env,
    scheduler,
    list_,
    remove,
    dry_run,
    on_failure,
    drain,
    locate_args,
    textfile,
    push,
    group,
    db: Path,
) -> None:
    """Run SUITE at fixed times and gate it with `check --baseline`: a Slurm
    scrontab entry, or a cron entry where there is no scrontab."""
    from commscope.cluster import nightly
    from commscope.cluster import schedule as table
    from commscope.cluster.script import check_env

    chosen = table.scheduler(scheduler)
    current = chosen.read()
    if list_ or remove:
        if suite or every:
            raise UsageError("--list and --remove take no suite or --every")
        if list_:
            # as read: a table's own escape sequences are not the terminal's business to drop
            click.echo(table.to_bytes(table.block(current)), nl=False, color=True)
            if not table.entries(current):
                ui.note(f"no scheduled checks in {Path(chosen.program).name}'s table")
            return
        new = table.without_entry(current, remove)
    else:
        if not suite or not every or not baseline:
            raise UsageError("give SUITE, --every and --baseline (or --list, --remove NAME)")
        _check_target(suite)
        name = table.check_name(name or Path(suite).stem, "--name" if name else f"the name of {suite!r} (give --name)")
        pairs = [tuple(item.split("=", 1)) for item in env]
        check_env(pairs)
        night = _night_options(ctx, on_failure, drain, locate_args, textfile, push, group)
        if on_failure == "locate":
            check_locate_hosts(nodes, locate_words(locate_args), chosen.slurm)
            check_locate_words(locate_args or "", locate_words(locate_args), nodes)
        log_dir = nightly.schedule_dir()
        run_options = [*(["--transport", transport] if transport else []), "--bind", bind]
        entry = table.Entry(
            name,
            suite,
            every,
            table.cron_times(every, at),
            baseline,
            db.resolve(),
            label or name,
            # checked with cron too, where they go unused: the entry may move to a login node
            _slurm_options(name, nodes, ntasks_per_node, partition, time, account, qos, log_dir),
            run_options,
            list(ctx.meta.get("core_flags", [])),
            pairs,
            folder=log_dir / name,
            log=None if chosen.slurm else log_dir / f"{name}.log",
            night_options=night,
        )
        new = table.with_entry(current, name, entry.lines(chosen.slurm))
        if not dry_run:
            nightly.write_entry(entry.folder, name, entry.database, baseline, suite, entry.label)
            _keep_baseline(db, baseline, entry.folder)
    if dry_run:  # exactly the bytes that would be written, escape sequences and all
        click.echo(table.to_bytes(new), nl=False, color=True)
        return
    chosen.write(new)
    ui.note(f"{'removed' if remove else 'scheduled'} {remove or name} in {Path(chosen.program).name}'s table")


def _check_target(suite: str) -> None:
    """A suite (by name or file) or a benchmark of the core the entry will run: a name that
    is neither would fail every night."""

    if suite_path(suite) is not None:
        return
    suites = ", ".join(builtin_suites())
    try:
        benchmarks = list_benchmarks(find_core())
    except CommscopeError as exc:
        raise UsageError(f"{suite!r} is not a suite ({suites}), and no core tells its benchmarks: {exc}") from None
    if suite not in benchmarks:
        raise UsageError(f"{suite!r} is neither a suite ({suites}) nor a benchmark ({', '.join(sorted(benchmarks))})")


def _keep_baseline(db: Path, baseline: str, folder: Path) -> None:
    """The baseline's runs copied into the entry's folder, where the entry's jobs judge
    their runs without the database. The database is made here if it is new, on the host
    that writes it, so that `collect` has one to store the first nights into. Until the
    baseline has runs each check exits 2: say so now rather than at 2 am."""
    from commscope.cluster import nightly
    from commscope.store.db import Store

    with Store(db) as store:
        runs = [store.run(run_id) for run_id in store.baseline_run_ids(baseline) or []]
    nightly.keep_baseline(folder, baseline, runs)
    if not runs:
        ui.warn(
            f"baseline {baseline!r} has no runs in {db} yet: checks exit 2 until `commscope baseline set "
            f"{baseline} ...` and then `commscope collect` (or this command again) copies it beside the entry"
        )
