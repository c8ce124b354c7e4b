"""`commscope schedule`: health checks at fixed times (scrontab, or cron without Slurm)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from commscope import ui
from commscope.cli.common import (
    CONTEXT,
    RunCommand,
    bind_option,
    db_option,
    name_value_pairs,
    transport_option,
)
from commscope.errors import EXIT_FAILED, EXIT_OK, CommscopeError, UsageError

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

\b
Examples:
  commscope schedule pt2pt --every 1d --nodes 2 --ntasks-per-node 1 --baseline accepted
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


class _EntryRunCommand(RunCommand):
    """`schedule run`: what follows `--` is `commscope run`'s command line, core flags and all."""

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [*click.Command.collect_usage_pieces(self, ctx), "-- SUITE|BENCH [RUN_OPTIONS] [-- CORE_FLAGS]"]


@click.command(cls=_EntryRunCommand, context_settings=CONTEXT)
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--baseline", required=True, metavar="NAME", help="The baseline kept in FOLDER to judge the runs by.")
@click.pass_context
def schedule_run(ctx: click.Context, folder: Path, baseline: str) -> None:
    """What an entry runs: `commscope run RUN_ARGS` into a new job folder of the entry's
    FOLDER (its runs as files; the database is not opened), then the runs judged against
    the baseline's runs kept in FOLDER as `commscope check --baseline` judges them. Exit
    status: run's when it fails, else check's (0 pass, 1 regression, 2 no baseline).
    `commscope collect` stores the runs later.
    """
    from commscope.analysis.check import Policy
    from commscope.cluster import nightly
    from commscope.cluster.collect import runs_of
    from commscope.cluster.submit import folder_info
    from commscope.kinds import check as judge
    from commscope.output.ci import check_json
    from commscope.output.verdicts import show_check

    if not (folder / nightly.ENTRY_FILE).is_file():
        raise UsageError(
            f"{folder} is not a scheduled check's folder (no {nightly.ENTRY_FILE}): see `commscope schedule`"
        )
    job = nightly.new_job(folder, sys.argv)
    ui.note(f"job folder {job}")
    code = nightly.run_suite(job, ctx.meta.get("core_flags", []))
    if code != 0:
        ctx.exit(code)
    base_runs = nightly.load_baseline(folder, baseline)
    row = nightly.job_row(job)
    result = judge(baseline, base_runs, runs_of(row, folder_info(row)), Policy())
    (job / nightly.VERDICT).write_text(check_json(result))
    show_check(result)
    ctx.exit(EXIT_OK if result.passed else EXIT_FAILED)


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
            click.echo(table.block(current), nl=False, color=True)
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
        )
        new = table.with_entry(current, name, entry.lines(chosen.slurm))
        if not dry_run:
            nightly.write_entry(entry.folder, name, entry.database, baseline, suite, entry.label)
            _keep_baseline(db, baseline, entry.folder)
    if dry_run:  # exactly the text that would be written, escape sequences and all
        click.echo(new, nl=False, color=True)
        return
    chosen.write(new)
    ui.note(f"{'removed' if remove else 'scheduled'} {remove or name} in {Path(chosen.program).name}'s table")


def _check_target(suite: str) -> None:
    """A suite (by name or file) or a benchmark of the core the entry will run: a name that
    is neither would fail every night."""
    from commscope.execute.core import find_core, list_benchmarks
    from commscope.records.suite import builtin_suites, suite_path

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
