"""`commscope sweep MODE`: one subcommand per sweep mode, each with its own options.

The options every mode takes are written once (`_shared`); a mode adds its own. An option
of another mode is still accepted by the parser but refused by name (`_refused`), with the
mode it belongs to: `sweep all-pairs --np 4` says where --np applies instead of "no such
option", as it always has, and `--help` lists only the mode's own options.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import click

from commscope.cli.common import (
    EXIT_STATUS_HELP,
    FiniteRange,
    GivenPath,
    RunCommand,
    RunId,
    bind_option,
    db_option,
    hosts_options,
    label_system_options,
    launcher_option,
    timeout_option,
)
from commscope.cli.drain import DRAIN_HELP, DRY_RUN_HELP, MAX_DRAIN_HELP, drain_action, recheck
from commscope.errors import UsageError
from commscope.execute.limits import POINT_S, START_S

LINK_MODES = ("one-to-all", "all-pairs", "intra")

#: Each mode's own options that others refuse: the flag, its parameter, how click reads
#: it, its help, and the modes that take it.
_OWN = {
    "--from": (
        "source",
        {"metavar": "HOST"},
        "The host measured to every other (default: the first host).",
        ("one-to-all",),
    ),
    "--np": (
        "np",
        {"type": click.IntRange(min=2), "metavar": "N"},
        "Ranks on the host, each pinned to a core (default: this machine's cores).",
        ("intra",),
    ),
    "--oracle": (
        "oracle",
        {"metavar": "'CMD ...'"},
        "Measure each round by running CMD instead of commscope-bench: it reads "
        '{"round": R, "metric": M, "pairs": [[H1, H2], ...]} on stdin and writes '
        '{"values": [[H1, H2, VALUE], ...]} (MB/s or us) on stdout. `python -m commscope.sweep.simulate '
        "NETWORK.json` simulates a network with planted faults. Split like a shell would, never run by one.",
        ("locate",),
    ),
    "--seed": (
        "seed",
        {"type": click.IntRange(min=0), "metavar": "N"},
        "The seed of the random pairing (default: a fresh one).",
        ("locate",),
    ),
    "--topology": (
        "topology",
        {"type": GivenPath(dir_okay=False, path_type=Path), "metavar": "FILE"},
        "The fabric's switches in Slurm's topology.conf format (tree plugin: SwitchName=, Nodes=, "
        "Switches=), so that a slow uplink is named as its switch, not as the hosts under it "
        "(default: inside a Slurm allocation, what `scontrol show topology` says; else none).",
        ("locate", "all-pairs"),
    ),
    "--detect": (
        "detect",
        {"type": FiniteRange(min=1, max=90), "metavar": "PCT"},
        "The smallest slowdown to find: the verdict is certain once every host and uplink is "
        "cleared of being PCT % slower or more (at 95 % confidence) or named (default: the rules "
        "file's locate.detect, 20). Smaller takes more rounds.",
        ("locate",),
    ),
    "--no-retest": (
        "no_retest",
        {"is_flag": True},
        "Flag the suspects as found, without measuring them again alone.",
        LINK_MODES,
    ),
    "--baseline": (
        "baseline",
        {"type": RunId(), "metavar": "RUN"},
        "A stored sweep to compare with, pair by pair.",
        LINK_MODES,
    ),
    "--drain": ("drain", {"is_flag": True}, DRAIN_HELP, ("locate", "all-pairs")),
    "--max-drain": (
        "max_drain",
        {"type": click.IntRange(min=0), "metavar": "N"},
        MAX_DRAIN_HELP,
        ("locate", "all-pairs"),
    ),
    "--dry-run": ("dry_run", {"is_flag": True}, DRY_RUN_HELP, ("locate", "all-pairs")),
    "--stored-as": (
        "stored_as",
        {"metavar": "TEXT", "hidden": True},
        "What a drain's reason names instead of `run N`: the nightly entry passes `job N`, since "
        "its locate run goes to a scratch database and `commscope collect` stores it under that job.",
        ("locate",),
    ),
    "--plot": (
        "plot",
        {"type": GivenPath(file_okay=False, path_type=Path), "metavar": "DIR"},
        "Write a heatmap per metric (PNG) into DIR.",
        LINK_MODES,
    ),
}
#: Why, where it helps.
_WHY = {
    ("--np", "one-to-all"): " (one rank per host)",
    ("--np", "all-pairs"): " (one rank per host)",
    ("--baseline", "locate"): " (a stored locate run is compared with `commscope check --baseline`)",
}


def _own(*flags: str):
    """The mode's own options among _OWN."""

    def decorate(command):
        for flag in reversed(flags):
            name, kwargs, help_text, _ = _OWN[flag]
            command = click.option(flag, name, help=help_text, **kwargs)(command)
        return command

    return decorate


def _refused(mode: str):
    """The other modes' options of _OWN, hidden, each refused by name when given."""

    def refuse(ctx: click.Context, param: click.Parameter, value):
        if value not in (None, False):
            flag = param.opts[0]
            modes = _OWN[flag][3]
            if len(modes) == 1:
                where = f"{modes[0]} only"
            elif set(modes) == set(LINK_MODES):
                where = "link sweeps, not locate"
            else:
                where = f"{' and '.join(modes)} only"
            ctx.meta.setdefault("refused", []).append(
                f"{flag} does not apply to {mode}: it applies to {where}{_WHY.get((flag, mode), '')}"
            )
        return value

    def decorate(command):
        for flag, (name, kwargs, _, modes) in _OWN.items():
            if mode not in modes:
                shown = {key: value for key, value in kwargs.items() if key != "hidden"}
                command = click.option(
                    flag, f"refused_{name}", hidden=True, expose_value=False, callback=refuse, **shown
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


def _shared(metric_help: str, json_help: str, timeout_help: str, hosts_help: str):
    """The options of every mode."""

    def decorate(command):
        for option in reversed(
            [
                hosts_options(hosts_help, "The hosts, one a line (first word; '#' comments)."),
                _nodes_options,
                click.option("--metric", "metrics", metavar="LIST", help=metric_help),
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
                    help=json_help,
                ),
                launcher_option("How to start the ranks (as for `run`)."),
                bind_option("intra pins every rank whatever this says."),
                label_system_options(
                    "Label stored with the sweep's runs.", "System (cluster) name stored with the runs."
                ),
                timeout_option(timeout_help),
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


LINK_METRIC_HELP = "What each pair measures: latency, bw, bibw (comma-separated; default all)."
LINK_JSON_HELP = "Write the matrix, the flags and their evidence as JSON."
#: A launch's time limit, as every mode says it (execute/limits.py derives the default).
DEFAULT_LIMIT = f"default: {START_S:g} s to start plus {POINT_S:g} s for each point planned"
LINK_TIMEOUT_HELP = f"Stop a launch that runs longer, then start it again (--retries; {DEFAULT_LIMIT})."
#: More starts than this are not a retry but a loop: something is wrong that another start will not mend.
MAX_RETRIES = 10
LINK_HOSTS_HELP = "The hosts; one rank runs on each."


@click.group()
def sweep() -> None:
    """Measure every pair of hosts in one job and name the bad node or link; or
    name the bad nodes in a few rounds (locate).

    \b
    one-to-all  the --from host (or the first) with every other host, one pair at a time
    all-pairs   every pair of hosts; a round's pairs at once (n-1 rounds)
    intra       every pair of cores of one host, ranks pinned
    locate      bad nodes in a few rounds of disjoint pairs, one launch each

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


_LINK_EPILOG = "Exit status 1 when something is flagged (or worse than --baseline).\n\n" + EXIT_STATUS_HELP


@sweep.command("one-to-all", cls=RunCommand, epilog=_LINK_EPILOG)
@_shared(LINK_METRIC_HELP, LINK_JSON_HELP, LINK_TIMEOUT_HELP, LINK_HOSTS_HELP)
@_own("--from", "--no-retest", "--baseline", "--plot")
@_refused("one-to-all")
@click.pass_context
def one_to_all(ctx: click.Context, **options) -> None:
    """The --from host (or the first) with every other host, one pair at a time."""
    _sweep(ctx, "one-to-all", options)


@sweep.command("all-pairs", cls=RunCommand, epilog=_LINK_EPILOG)
@_shared(LINK_METRIC_HELP, LINK_JSON_HELP, LINK_TIMEOUT_HELP, LINK_HOSTS_HELP)
@_own("--topology", "--no-retest", "--baseline", "--plot", "--drain", "--max-drain", "--dry-run")
@_refused("all-pairs")
@click.pass_context
def all_pairs(ctx: click.Context, **options) -> None:
    """Every pair of hosts; a round's pairs at once (n-1 rounds)."""
    _sweep(ctx, "all-pairs", options)


@sweep.command("intra", cls=RunCommand, epilog=_LINK_EPILOG)
@_shared(LINK_METRIC_HELP, LINK_JSON_HELP, LINK_TIMEOUT_HELP, "The one host (default this one).")
@_own("--np", "--no-retest", "--baseline", "--plot")
@_refused("intra")
@click.pass_context
def intra(ctx: click.Context, **options) -> None:
    """Every pair of cores of one host, ranks pinned."""
    _sweep(ctx, "intra", options)


@sweep.command(
    "locate",
    cls=RunCommand,
    epilog="Exit status 1 when a bad node is named or hosts are left undecided.\n\n" + EXIT_STATUS_HELP,
)
@_shared(
    "What each pair measures: one of latency, bw, bibw (default bw).",
    "Write the verdict (bad nodes with their evidence, suspect pairs, rounds) as JSON.",
    "Stop a launch that runs longer, then start it again (--retries; "
    f"{DEFAULT_LIMIT}; --oracle: a round, default 600 s, not repeated).",
    "The hosts (at least 6); one rank runs on each.",
)
@_own("--oracle", "--seed", "--topology", "--detect", "--drain", "--max-drain", "--dry-run", "--stored-as")
@_refused("locate")
@click.pass_context
def locate(ctx: click.Context, **options) -> None:
    """Bad nodes and bad switch uplinks in a few rounds of disjoint pairs, one launch each.

    Round 1 pairs every host with a random partner, all pairs at once (with a
    topology, half of each leaf's hosts inside their leaf); each later round
    pairs every undecided host with a host already cleared, inside its leaf and
    across, and probes an undecided uplink with cleared hosts on both sides of
    it. Each pair weighs for and against every part it crosses in a sequential
    likelihood ratio test per part, the noise estimated from the sweep's healthy
    pairs: a part is named when the test says so at a family-wise error of
    locate.alpha (0.1 %: a sweep of a healthy fabric names nothing in 999 of
    1,000), a host only when slow with locate.confirm (3) different cleared
    partners; it is cleared when a slowdown of --detect or more is ruled out at
    95 %. A slow pair of two otherwise cleared hosts is a suspect pair
    (contention, or a bad link: only all-pairs can tell). It stops when every
    host and uplink is cleared or named (certain at that detection limit), or
    after locate.max_rounds (10) rounds, says the detection limit it reached,
    and is stored as one run, its rounds and pairs.
    """
    _sweep(ctx, "locate", options)


def _sweep(ctx: click.Context, mode: str, options: dict) -> None:
    """What every mode does with its options: check them, build the request, run it."""
    from commscope.sweep.run import run_sweep

    is_locate = mode == "locate"
    request = request_of(ctx, mode, options)
    db = options["db"]
    drain = drain_action(  # Slurm asked first
        options.get("drain"), options.get("max_drain"), options.get("dry_run"), options.get("stored_as")
    )
    if request.nodes is not None:
        from commscope.cluster.allocate import allocation_hosts, in_allocation, run_in_allocation, salloc_argv
        from commscope.cluster.config import load as load_config

        if not in_allocation():  # the same command line again, inside an allocation of the nodes
            salloc = salloc_argv(request.nodes, load_config(), request.partition, request.time)
            ctx.exit(run_in_allocation(salloc, [sys.executable, "-m", "commscope", *request.argv[1:]]))
        request = dataclasses.replace(request, hosts=tuple(allocation_hosts(request.nodes)))
    if "topology" in options:  # the modes that judge switches: the file, else the controller's
        from commscope.cluster.topology import site_topology

        request = dataclasses.replace(request, topology=site_topology(options["topology"]))
    if is_locate:
        from commscope.sweep.locate import run_locate

        ctx.exit(run_locate(request, options["oracle"], options["seed"], db, drain))
    ctx.exit(run_sweep(request, db, drain))


def request_of(ctx: click.Context, mode: str, options: dict):
    """The mode's SweepRequest of its options, every one checked; nothing asked of Slurm."""
    from commscope.analysis.sweep import PAIR_METRICS, Policy
    from commscope.sweep.run import SweepRequest, check_nodes

    is_locate = mode == "locate"
    metrics = options["metrics"] or ("bw" if is_locate else ",".join(PAIR_METRICS))
    chosen = tuple(name.strip() for name in metrics.split(",") if name.strip())
    unknown = [name for name in chosen if name not in PAIR_METRICS]
    if unknown or not chosen:
        raise UsageError(f"--metric {metrics}: choose from {', '.join(PAIR_METRICS)}")
    if is_locate and len(chosen) != 1:
        raise UsageError(f"--metric {metrics}: locate judges one metric: latency, bw or bibw")
    refused = ctx.meta.get("refused")
    if refused:
        raise UsageError(refused[0])
    if options["rules"] is not None:
        from commscope.analysis.sweep_rules import load_rules

        policy = load_rules(options["rules"])
    else:
        policy = Policy()
    if options.get("detect") is not None:
        policy = dataclasses.replace(policy, locate=dataclasses.replace(policy.locate, detect=options["detect"] / 100))
    baseline = options.get("baseline")
    if baseline == "last":
        raise UsageError("--baseline needs a run id")
    db = options["db"]
    request = SweepRequest(
        mode=mode,
        hosts=options["hosts"],
        hostfile=options["hostfile"],
        nodes=options["nodes"],
        partition=options["partition"],
        time=options["time"],
        source=options.get("source"),
        np=options.get("np"),
        metrics=chosen,
        policy=policy,
        launcher=options["launcher"],
        bind=options["bind"],
        label=options["label"],
        system=options["system"],
        timeout=options["timeout"],
        retries=options["retries"],
        retest=not options.get("no_retest"),
        baseline=_baseline_sweep(db, baseline) if baseline is not None else None,
        json_out=options["json_out"],
        plot=options.get("plot"),
        core_flags=ctx.meta.get("core_flags", []),
    )
    check_nodes(request)
    return request


sweep.add_command(recheck)


def _baseline_sweep(db: Path, run_id: int):
    """The --baseline run, read before measuring: a stored link sweep (as `check` would
    judge against), not its retest nor a run of another kind."""
    from commscope.analysis.sweep_verdicts import retest_of
    from commscope.cli.common import analysis_store
    from commscope.kinds import kind_of
    from commscope.kinds.link_sweep import LINK_SWEEP

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
