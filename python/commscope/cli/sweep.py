"""`commscope sweep MODE`: a subcommand for every mode of the registry (sweep/modes/), made here
from what the mode says: its help, the options every mode takes (their help as the mode
means them), its own options, and --drain's where its verdict names bad nodes. An option of
another mode is still accepted by the parser but refused by name, with the modes it belongs
to: `sweep all-pairs --np 4` says where --np applies instead of "no such option", and
`--help` lists only the mode's own options.
"""

from __future__ import annotations

from pathlib import Path

import click

from commscope.cli.common import (
    EXIT_STATUS_HELP,
    FiniteRange,
    GivenPath,
    RunCommand,
    RunId,
    analysis_store,
    bind_option,
    db_option,
    hosts_options,
    label_system_options,
    launcher_option,
    timeout_option,
)
from commscope.cli.drain import DRAIN_OPTIONS, recheck
from commscope.cli.values import time_limit_option
from commscope.cluster.drain import plan_drain
from commscope.errors import UsageError
from commscope.sweep.modes import MODES
from commscope.sweep.modes.base import (
    DIR,
    FILE,
    FLAG,
    FLOAT,
    INT,
    STORED_SWEEP,
    TEXT,
    TOPOLOGY,
    Option,
    SweepMode,
    SweepRequest,
)

#: More starts than this are not a retry but a loop: something is wrong that another start will not mend.
MAX_RETRIES = 10


def _click_type(option: Option) -> dict:
    """How click reads an option of a mode (sweep/modes/base's kinds)."""
    if option.kind == FLAG:
        return {"is_flag": True}
    if option.kind == INT:
        return {"type": click.IntRange(min=option.low, max=option.high)}
    if option.kind == FLOAT:
        return {"type": FiniteRange(min=option.low, max=option.high)}
    if option.kind in (FILE, TOPOLOGY):
        return {"type": GivenPath(dir_okay=False, path_type=Path)}
    if option.kind == DIR:
        return {"type": GivenPath(file_okay=False, path_type=Path)}
    if option.kind == STORED_SWEEP:
        return {"type": RunId()}
    assert option.kind == TEXT, option.kind
    return {}


def _takes(mode: SweepMode) -> tuple[Option, ...]:
    """The mode's own options, and --drain's where its verdict names bad nodes."""
    return (*mode.options, *(DRAIN_OPTIONS if mode.drains else ()))


#: Every option some mode takes as its own, once, with the modes that take it.
_OWNERS: dict[str, tuple[Option, list[SweepMode]]] = {}
for _mode in MODES:
    for _option in _takes(_mode):
        _OWNERS.setdefault(_option.flag, (_option, []))[1].append(_mode)


def _where(flag: str) -> str:
    """The modes an option applies to, as a refusal says it."""
    takers = _OWNERS[flag][1]
    if len(takers) == 1:
        return f"{takers[0].name} only"
    family = [mode for mode in MODES if mode.family == takers[0].family]
    if takers == family and len(family) < len(MODES):
        others = [mode.name for mode in MODES if mode not in family]
        return f"{family[0].family}s, not {' or '.join(others)}"
    return f"{' and '.join(mode.name for mode in takers)} only"


def _own_options(mode: SweepMode):
    def decorate(command):
        for option in reversed(_takes(mode)):
            command = click.option(
                option.flag,
                option.dest,
                help=option.help,
                metavar=option.metavar,
                **_click_type(option),
            )(command)
        return command

    return decorate


def _refused(mode: SweepMode):
    """The other modes' options, hidden, each refused by name when given."""

    def refuse(ctx: click.Context, param: click.Parameter, value):
        if value not in (None, False):
            flag = param.opts[0]
            why = mode.why_not.get(flag)
            ctx.meta.setdefault("refused", []).append(
                f"{flag} does not apply to {mode.name}: it applies to {_where(flag)}{f' ({why})' if why else ''}"
            )
        return value

    def decorate(command):
        own = {option.flag for option in _takes(mode)}
        for flag, (option, _) in _OWNERS.items():
            if flag not in own:
                command = click.option(
                    flag,
                    f"refused_{option.dest}",
                    hidden=True,
                    expose_value=False,
                    callback=refuse,
                    metavar=option.metavar,
                    **_click_type(option),
                )(command)
        return command

    return decorate


def _nodes_options(command):
    command = click.option(
        "--time", metavar="LIMIT", help="--nodes outside a job: salloc's time limit (default: the site's)."
    )(command)
    command = click.option(
        "--partition", metavar="NAME", help="--nodes outside a job: salloc's partition (default: the site's)."
    )(command)
    return click.option(
        "--nodes",
        type=click.IntRange(min=1),
        metavar="N",
        help="The hosts are N Slurm nodes: inside a job, its first N; outside, salloc asks for them "
        "and the sweep runs inside that allocation.",
    )(command)


def _shared(mode: SweepMode):
    """The options of every mode, their help as `mode` means them."""

    def decorate(command):
        for option in reversed(
            [
                hosts_options(mode.hosts_help, "The hosts, one a line (first word; '#' comments)."),
                _nodes_options,
                click.option("--metric", "metrics", metavar="LIST", help=mode.metric_help),
                click.option(
                    "--rules",
                    type=GivenPath(exists=True, dir_okay=False, path_type=Path),
                    metavar="FILE",
                    help="YAML thresholds of the flags per metric (see docs/sweep.md).",
                ),
                click.option(
                    "--json",
                    "json_out",
                    type=GivenPath(dir_okay=False, path_type=Path),
                    metavar="FILE",
                    help=mode.json_help,
                ),
                launcher_option("How to start the ranks (as for `run`)."),
                bind_option("intra pins every rank whatever this says."),
                label_system_options(
                    "Label stored with the sweep's runs.", "System (cluster) name stored with the runs."
                ),
                timeout_option(mode.timeout_help),
                time_limit_option(
                    "What the sweep's launches may take together: each gets its share and sizes the pairs' "
                    "iterations to it from the warm-up; said before anything starts."
                ),
                click.option(
                    "--retries",
                    type=click.IntRange(min=0, max=MAX_RETRIES),
                    default=1,
                    show_default=True,
                    metavar="N",
                    help="Start a launch stopped at --timeout, or one whose rank died or whose launcher failed "
                    "before it measured anything, again up to N times (0: never). Open MPI's TCP start-up "
                    "fails now and then, the more often the more hosts.",
                ),
                db_option(),
            ]
        ):
            command = option(command)
        return command

    return decorate


_MODES_LIST = "\n".join(f"{mode.name:<11} {mode.summary}" for mode in MODES)


@click.group(
    help=f"""Measure every pair of hosts in one job and name the bad node or link; or
name the bad nodes in a few rounds (locate).

\b
{_MODES_LIST}

The sweep is stored as one run, every pair a point. Suspect pairs (far from
the other pairs by median and MAD, and beyond a margin: bandwidth below 90 %
of the median, latency above twice the minimum) are measured again one at a
time; what is still bad alone is flagged: a host bad with most partners is
a bad node, a single bad pair a bad link. Flags after `--` go to
commscope-bench pairs (e.g. -- --bw-size 4M -i 50).

Hosts: --hosts, --hostfile, or --nodes N for N Slurm nodes (inside a job
its first N; outside, `salloc` asks for them and the sweep runs there,
ranks started with srun).

The rules and the retest run are recorded with the sweep run: `commscope
report` and `commscope plot` show the stored sweep as judged here.
`commscope sweep MODE --help` lists a mode's options.
"""
)
def sweep() -> None:
    pass


def _command(mode: SweepMode) -> click.Command:
    """The subcommand of `mode`."""

    @click.pass_context
    def command(ctx: click.Context, **options) -> None:
        _sweep(ctx, mode, options)

    for decorate in (_refused(mode), _own_options(mode), _shared(mode)):
        command = decorate(command)
    epilog = f"{mode.epilog}\n\n{EXIT_STATUS_HELP}"
    return click.command(mode.name, cls=RunCommand, help=mode.description, epilog=epilog)(command)


#: Each mode's subcommand.
COMMANDS = {mode: _command(mode) for mode in MODES}
for _command_of_mode in COMMANDS.values():
    sweep.add_command(_command_of_mode)
sweep.add_command(recheck)


def _sweep(ctx: click.Context, mode: SweepMode, options: dict) -> None:
    """What every mode does with its options: check them, build the request, run it in this
    process (on Slurm's nodes for --nodes), drain what it found where asked, and finish."""
    from commscope.workflow.sweep import drained, swept

    request = request_of(ctx, mode, options)
    plan = plan_drain(options["drain"], options["max_drain"], options["dry_run"]) if mode.drains else None
    outcome = swept(request, options["db"])
    ctx.exit(outcome.finish(*drained(plan, outcome)))


def request_of(ctx: click.Context, mode: SweepMode, options: dict):
    """The mode's SweepRequest of its options, every one checked; nothing asked of Slurm."""
    from commscope.analysis.sweep import PAIR_METRICS, Policy
    from commscope.sweep.run import check_nodes

    chosen = mode.metrics(options["metrics"], PAIR_METRICS)
    refused = ctx.meta.get("refused")
    if refused:
        raise UsageError(refused[0])
    if options["rules"] is not None:
        from commscope.analysis.sweep_rules import load_rules

        policy = load_rules(options["rules"])
    else:
        policy = Policy()
    db = options["db"]
    request = SweepRequest(
        mode=mode,
        hosts=options["hosts"],
        hostfile=options["hostfile"],
        nodes=options["nodes"],
        partition=options["partition"],
        time=options["time"],
        metrics=chosen,
        policy=policy,
        launcher=options["launcher"],
        bind=options["bind"],
        label=options["label"],
        system=options["system"],
        timeout=options["timeout"],
        time_limit=options["time_limit"],
        retries=options["retries"],
        json_out=options["json_out"],
        core_flags=ctx.meta.get("core_flags", []),
    )
    for option in mode.options:
        value = options[option.dest]
        if value not in (None, False):
            request = option.applied(request, _baseline_sweep(db, value) if option.kind == STORED_SWEEP else value)
    check_nodes(request)
    return request


def _baseline_sweep(db: Path, run_id: int | str):
    """The --baseline run, read before measuring: a stored link sweep (as `check` would
    judge against), not its retest nor a run of another kind."""
    from commscope.analysis.sweep_verdicts import retest_of
    from commscope.kinds import kind_of
    from commscope.kinds.link_sweep import LINK_SWEEP

    if run_id == "last":
        raise UsageError("--baseline needs a run id")
    with analysis_store(db) as store:
        try:
            run = store.run(run_id)
        except UsageError as exc:
            raise UsageError(f"--baseline {run_id}: {exc}") from None
    kind = kind_of(run)
    if kind is not LINK_SWEEP:
        raise UsageError(f"--baseline {run_id}: run {run_id} is a {kind.name} run, not a link sweep")
    if retest_of(run) is not None:
        raise UsageError(
            f"--baseline {run_id}: run {run_id} is the serial retest of sweep run {retest_of(run)}, not a sweep"
        )
    return run
