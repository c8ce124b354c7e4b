"""`sweep locate|all-pairs --drain` and `commscope sweep recheck`: the command line's side of
taking bad nodes out of service through Slurm (cluster/drain.py, cluster/recheck.py)."""

from __future__ import annotations

from pathlib import Path

import click

from commscope import ui
from commscope.cli.common import EXIT_STATUS_HELP, RunCommand, db_option, launcher_option, seconds_range
from commscope.cluster.drain import MAX_DRAIN_SHARE, check_can_drain, default_max_drain, drain_nodes
from commscope.errors import CommscopeError, UsageError
from commscope.sweep.modes.base import FLAG, INT, TEXT, Option

DRAIN_HELP = (
    "Take each bad node named out of service: `scontrol update NodeName=H State=DRAIN "
    'Reason="commscope: EVIDENCE, run N"` (never the hosts under a bad switch: those are for the network '
    "team). Slurm is asked before measuring whether it answers and lets this user drain."
)
MAX_DRAIN_HELP = (
    f"Drain nothing, and say why, when more than N nodes are named: a broken switch or spine makes many "
    f"hosts look bad and must not empty a partition (default: {MAX_DRAIN_SHARE:.0%} of the hosts swept, "
    "rounded down, at least 1)."
)
DRY_RUN_HELP = "With --drain: print the scontrol commands it would run, and run none."


#: --drain and its options, taken by the modes whose verdict names bad nodes (SweepMode.drains).
DRAIN_OPTIONS = (
    Option("--drain", "drain", FLAG, DRAIN_HELP),
    Option("--max-drain", "max_drain", INT, MAX_DRAIN_HELP, metavar="N", low=0),
    Option("--dry-run", "dry_run", FLAG, DRY_RUN_HELP),
    Option(
        "--stored-as",
        "stored_as",
        TEXT,
        "What a drain's reason names instead of `run N`: the nightly entry passes `job N`, since "
        "its locate run goes to a scratch database and `commscope collect` stores it under that job.",
        metavar="TEXT",
        hidden=True,
    ),
)


def drain_action(drain: bool, max_drain: int | None, dry_run: bool, stored_as: str | None = None):
    """What --drain does with the bad nodes of a stored sweep (None without --drain), Slurm
    checked first (before measuring) unless this is a dry run. The reasons name the stored
    run ("run N"), or `stored_as` where the run's database is a scratch one (the nightly
    entry's, whose runs `collect` stores later under their job)."""

    if not drain:
        if max_drain is not None or dry_run:
            raise UsageError(f"{'--max-drain' if max_drain is not None else '--dry-run'} goes with --drain")
        return None

    if not dry_run:
        check_can_drain()

    def act(outcome) -> list[str]:
        limit = max_drain if max_drain is not None else default_max_drain(len(outcome.hosts))
        drained = drain_nodes(outcome.bad_nodes, stored_as or f"run {outcome.run_id}", limit, dry_run)
        return [] if dry_run else drained  # a dry run printed what it would drain, and drained none

    return act


def drain_outcome(act, outcome) -> tuple[list[str] | None, Exception | None]:
    """`act` (drain_action's) on a sweep's outcome: the hosts drained (None: not asked), and
    its refusal, raised once the --json is written (which says `drained: []` then). A run
    kept as files is drained by nobody: a reason names a stored run."""

    if act is None:
        return None, None
    if not outcome.stored:
        ui.warn("not drained: a drain's reason names a stored run; `commscope import` it, then drain")
        return None, None
    try:
        return act(outcome), None
    except CommscopeError as exc:
        return [], exc


@click.command(
    "recheck",
    cls=RunCommand,
    epilog="Exit status 1 when a node stays drained.\n\n" + EXIT_STATUS_HELP,
)
@click.option(
    "--partners",
    type=click.IntRange(min=2),
    default=3,
    show_default=True,
    metavar="N",
    help="Idle nodes in service that the drained nodes are measured with.",
)
@click.option(
    "--minutes",
    type=click.IntRange(min=1),
    default=30,
    show_default=True,
    metavar="MIN",
    help="How long the maintenance reservation and the allocation last.",
)
@click.option("--partition", metavar="NAME", help="salloc's partition (default: the site's).")
@click.option(
    "--rules",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="YAML thresholds of the sweep (see docs/sweep.md).",
)
@click.option("--metric", "metrics", default="bw", show_default=True, metavar="LIST", help="What each pair measures.")
@launcher_option("How to start the ranks (default: srun inside the allocation).")
@click.option(
    "--bind", type=click.Choice(["core", "none"]), help="The sweep's rank binding (as for `sweep all-pairs`)."
)
@click.option(
    "--timeout",
    type=seconds_range(min=0, min_open=True),
    metavar="SECONDS",
    help="The sweep's launch time limit (as for `sweep all-pairs`).",
)
@click.option("--dry-run", is_flag=True, help="Print the Slurm commands it would run, and run none.")
@db_option()
@click.pass_context
def recheck(ctx: click.Context, partners, minutes, partition, rules, metrics, launcher, bind, timeout, dry_run, db):
    """Measure the nodes commscope drained and return to service those that pass.

    The nodes out of service with a reason beginning "commscope:" and --partners
    idle nodes in service are held by a maintenance reservation (scontrol create
    reservation ReservationName=commscope-recheck ... Flags=MAINT,IGNORE_JOBS,
    for this user alone); the drained nodes are resumed inside it, where no
    other job can land, and `commscope sweep all-pairs` runs over them all in
    `salloc --reservation=commscope-recheck`, stored as a sweep run. A drained
    node no flag names is back in service (State=RESUME); one still named is
    drained again with the new evidence and the run in its reason. On an error
    or Ctrl-C the nodes not judged are drained again with their old reasons;
    the reservation is deleted in every case. Flags after `--` go to
    commscope-bench pairs.
    """
    from commscope.cluster.recheck import recheck as run_recheck

    args = ["--metric", metrics]
    for flag, value in (("--rules", rules), ("--bind", bind), ("--timeout", timeout)):
        if value is not None:
            args += [flag, str(value)]
    if launcher != "auto":
        args += ["--launcher", launcher]
    core_flags = ctx.meta.get("core_flags", [])
    args += ["--", *core_flags] if core_flags else []
    ctx.exit(run_recheck(partners, minutes, partition, args, db, dry_run))
