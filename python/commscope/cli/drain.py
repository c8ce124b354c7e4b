"""`sweep locate|all-pairs --drain` and `commscope sweep recheck`: the command line's side of
taking bad nodes out of service through Slurm (cluster/drain.py, workflow/recheck.py)."""

from __future__ import annotations

from pathlib import Path

import click

from commscope.cli.common import EXIT_STATUS_HELP, RunCommand, db_option, launcher_option, seconds_range
from commscope.cluster.drain import MAX_DRAIN_SHARE
from commscope.sweep.modes.all_pairs import ALL_PAIRS
from commscope.sweep.modes.base import FLAG, INT, Option, SweepRequest

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
)


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
    drained again with the new evidence and the run in its reason. On an error,
    Ctrl-C, SIGTERM, SIGHUP or SIGQUIT the allocation is given back, the nodes
    not judged are drained again with their old reasons and the reservation is
    deleted (exit status 3 for a signal); a node that cannot be drained again is
    said by name. Flags after `--` go to commscope-bench pairs.
    """
    from commscope.analysis.sweep import PAIR_METRICS, Policy
    from commscope.workflow.recheck import recheck as run_recheck

    if rules is not None:
        from commscope.analysis.sweep_rules import load_rules

        policy = load_rules(rules)
    else:
        policy = Policy()
    request = SweepRequest(
        mode=ALL_PAIRS,
        metrics=ALL_PAIRS.metrics(metrics, PAIR_METRICS),
        policy=policy,
        launcher=launcher,
        bind=bind or "core",
        timeout=timeout,
        core_flags=ctx.meta.get("core_flags", []),
    )
    ctx.exit(run_recheck(request, partners, minutes, partition, db, dry_run))
