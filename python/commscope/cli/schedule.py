"""`commscope schedule`: health checks at fixed times (scrontab, or cron without Slurm)."""

from __future__ import annotations

from pathlib import Path

import click
import platformdirs

from commscope import ui
from commscope.cli.common import (
    CONTEXT,
    RunCommand,
    analysis_store,
    bind_option,
    db_option,
    name_value_pairs,
    transport_option,
)
from commscope.errors import CommscopeError, UsageError

SCHEDULE_EPILOG = """\b
Each entry runs `commscope run SUITE --label L ... && commscope check --last-invocation
--baseline B` and stores its runs in the database like any run. With Slurm's scrontab the
entry is a batch job of the size its #SCRON lines ask for (--nodes, --ntasks-per-node,
--partition, --time); without it, a crontab entry runs the same on this machine. Only the
entries between commscope's marks are touched; `commscope history` follows what they store.

\b
Examples:
  commscope schedule pt2pt --every 1d --nodes 2 --ntasks-per-node 1 --baseline accepted
  commscope schedule --list
  commscope schedule --remove pt2pt
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


@click.command(cls=RunCommand, context_settings=CONTEXT, epilog=SCHEDULE_EPILOG)
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
    from commscope.cluster import schedule as table
    from commscope.cluster.script import check_env

    chosen = table.scheduler(scheduler)
    current = chosen.read()
    if list_ or remove:
        if suite or every:
            raise UsageError("--list and --remove take no suite or --every")
        if list_:
            click.echo(table.block(current), nl=False)
            if not table.entries(current):
                ui.note(f"no scheduled checks in {Path(chosen.program).name}'s table")
            return
        new = table.without_entry(current, remove)
    else:
        if not suite or not every or not baseline:
            raise UsageError("give SUITE, --every and --baseline (or --list, --remove NAME)")
        name = name or Path(suite).stem
        pairs = [tuple(item.split("=", 1)) for item in env]
        check_env(pairs)
        log_dir = platformdirs.user_data_path("commscope") / "schedule"
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
            log=None if chosen.slurm else log_dir / f"{name}.log",
        )
        new = table.with_entry(current, name, entry.lines(chosen.slurm))
        if not dry_run:
            log_dir.mkdir(parents=True, exist_ok=True)
            _warn_without_baseline(db, baseline)
    if dry_run:
        click.echo(new, nl=False)
        return
    chosen.write(new)
    ui.note(f"{'removed' if remove else 'scheduled'} {remove or name} in {Path(chosen.program).name}'s table")


def _warn_without_baseline(db: Path, baseline: str) -> None:
    """Until the baseline exists each check exits 2: say so now rather than at 2 am."""
    try:
        with analysis_store(db) as store:
            if store.baseline_run_ids(baseline):
                return
    except CommscopeError:  # no database yet: the first scheduled run makes it
        pass
    ui.warn(
        f"baseline {baseline!r} has no runs in {db} yet: checks exit 2 until `commscope baseline set {baseline} ...`"
    )
