"""`commscope run` and `commscope sweep`: commands that measure."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import click

from commscope.cli.common import (
    EXIT_STATUS_HELP,
    RunCommand,
    RunId,
    bind_option,
    db_option,
    hosts_options,
    keep_options,
    label_system_options,
    launcher_option,
    repeat_option,
    suite_file_option,
    timeout_option,
    transport_option,
)
from commscope.cli.fio import storage
from commscope.cli.hpl import hpl
from commscope.errors import UsageError
from commscope.execute.limits import POINT_S, START_S
from commscope.records.suite import MAX_RANKS

#: Commands of their own that `run` hands its arguments to (`run hpl ...`), and that a
#: batch job can run (`submit hpl ... -- HPL_OPTIONS`).
TOOL_RUNS = {command.name: command for command in (hpl, storage)}


@click.command(cls=RunCommand, delegated=TOOL_RUNS, epilog=EXIT_STATUS_HELP)
@click.argument("targets", metavar="[SUITE|BENCH]...", nargs=-1)
@click.option(
    "--np",
    type=click.IntRange(min=1, max=MAX_RANKS),
    metavar="N",
    help="MPI ranks for every benchmark, overriding the suite's `ranks` (default: the suite's, "
    f"2 for a benchmark named directly). At most {MAX_RANKS:,}: a larger number is a typo that "
    "would start that many processes.",
)
@launcher_option(
    "How to start the ranks. auto: srun inside a Slurm allocation, otherwise the launcher of "
    "the MPI commscope-bench is linked with. mpirun means Open MPI's, mpiexec MPICH's (Hydra); "
    "each is looked up on PATH. A PATH such as /usr/bin/mpiexec.mpich names the program; "
    "its kind is told from its name or --version."
)
@hosts_options(
    "Hosts to run on, optionally with slots (node1:4,node2:4). Without slots, ranks are spread "
    "in blocks over the hosts (one host only for intra-node suites).",
    "Hostfile in the launcher's own format (not with --hosts).",
)
@label_system_options(
    "Label stored with every run, to find and compare them later.",
    "System (cluster) the results belong to. Default: $COMMSCOPE_SYSTEM, the Slurm cluster name, or this host's name.",
)
@repeat_option(
    "Run the whole list K times (interleaved: 1st pass of every benchmark, then 2nd...); "
    "each pass is stored as its own runs."
)
@timeout_option(
    "Stop a benchmark that runs longer than this; the sizes it measured are stored and the "
    "run is marked incomplete. It also bounds commscope-bench --list, asked before running. "
    f"Default: {START_S:g} s to start plus {POINT_S:g} s for each point the benchmark plans."
)
@transport_option(
    "How ranks on one node reach each other. net: through the network stack (TCP), as if on "
    "different nodes; shm: shared memory; auto: as the MPI library chooses. Sets the library's "
    "own variables (Open MPI: OMPI_MCA_pml/btl; MPICH: MPIR_CVAR_NOLOCAL with UCX_TLS or "
    "FI_PROVIDER), shown by --dry-run. Default: each suite entry's `transport`, else auto."
)
@bind_option()
@click.option("--dry-run", is_flag=True, help="Print the exact command lines and run nothing.")
@click.option(
    "--wrap",
    metavar="'CMD ...'",
    help="Run every benchmark under this tool (profiler, tracer, `perf stat`, valgrind), placed between "
    "the launcher and commscope-bench: mpirun -np 2 CMD ... commscope-bench BENCH. Split like a "
    "shell would, never run by one; stored in the run's provenance. See `commscope overhead`.",
)
@suite_file_option("Run the suite in this YAML file (repeatable). See `commscope list suites` for the format.")
@keep_options(
    "every launch's files (meta.json, the core's JSONL core.jsonl, stdout, stderr, result.json) in a numbered folder"
)
@db_option()
@click.pass_context
def run(
    ctx: click.Context,
    targets,
    np,
    launcher,
    hosts,
    hostfile,
    label,
    system,
    repeat,
    timeout,
    transport,
    bind,
    dry_run,
    wrap,
    suite_files,
    output_dir,
    no_store,
    db,
) -> None:
    """Run benchmark suites or single benchmarks and store the results.

    SUITE is a shipped suite (quick, pt2pt, collectives, full, procurement, transports) or a
    suite file; BENCH is a benchmark of commscope-bench (`commscope list
    benchmarks`). Without either, the quick suite runs. Flags after `--` go to
    every benchmark, after the suite's own (later flags win), e.g.
    `-- -c` to validate the data.

    `commscope run hpl` (HPL through hpcc) and `commscope run storage --dir PATH`
    (fio) measure compute and storage; see their own --help.

    Each benchmark prints its own OSU table (commscope-bench --format osu)
    when it ends and is stored as a run with that text, its points (every
    size, datatype, window creation and synchronisation mode swept) and its
    provenance, with the link inventory of every host (where the command names other
    hosts, one extra launch of one process per host reads theirs first; docs/peaks.md).
    Benchmarks a suite names but this
    commscope-bench does not provide (e.g. the *_persistent collectives on an
    MPI without MPI-4 persistent collectives) are skipped with a warning; the
    exit status is 1 if nothing could run.

    A benchmark that crashes, exceeds --timeout or is stopped with Ctrl-C
    keeps the points it measured, stored in a run marked incomplete with the
    reason. Ctrl-C (or SIGTERM) also ends the whole command: no further
    benchmark starts.
    """
    from commscope.execute.runner import RunRequest, run_benchmarks
    from commscope.execute.wrap import parse_wrapper

    wrappers = (parse_wrapper(wrap),) if wrap is not None else ((),)
    request = RunRequest(
        targets=targets,
        suite_files=suite_files,
        np=np,
        launcher=launcher,
        hosts=hosts,
        hostfile=hostfile,
        label=label,
        system=system,
        repeat=repeat,
        timeout=timeout,
        bind=bind,
        dry_run=dry_run,
        extra_flags=ctx.meta.get("core_flags", []),
        wrappers=wrappers,
        transport=transport,
        output_dir=output_dir.absolute() if output_dir else None,
        store=not no_store,
    )
    code, _ = run_benchmarks(request, db)
    ctx.exit(code)


@click.command(cls=RunCommand, epilog=EXIT_STATUS_HELP)
@click.argument("mode", type=click.Choice(["one-to-all", "all-pairs", "intra", "locate"]))
@hosts_options(
    "The hosts; one rank runs on each (intra: the one host, default this one).",
    "The hosts, one a line (first word; '#' comments).",
)
@click.option(
    "--nodes",
    type=click.IntRange(min=1),
    metavar="N",
    help="The hosts are N Slurm nodes: inside a job, its first N; outside, salloc asks for them "
    "and the sweep runs inside that allocation.",
)
@click.option("--partition", metavar="NAME", help="--nodes outside a job: salloc's partition (default: the site's).")
@click.option("--time", metavar="LIMIT", help="--nodes outside a job: salloc's time limit (default: the site's).")
@click.option(
    "--from", "source", metavar="HOST", help="one-to-all: the host measured to every other (default: the first host)."
)
@click.option(
    "--np",
    type=click.IntRange(min=2),
    metavar="N",
    help="intra: ranks on the host, each pinned to a core (default: this machine's cores).",
)
@click.option(
    "--metric",
    "metrics",
    metavar="LIST",
    help="What each pair measures: latency, bw, bibw (comma-separated; default all). locate: one of them (default bw).",
)
@click.option(
    "--rules",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="YAML thresholds of the flags per metric (see docs/sweep.md).",
)
@click.option("--no-retest", is_flag=True, help="Flag the suspects as found, without measuring them again alone.")
@click.option(
    "--oracle",
    metavar="'CMD ...'",
    help="locate: measure each round by running CMD instead of commscope-bench: it reads "
    '{"round": R, "metric": M, "pairs": [[H1, H2], ...]} on stdin and writes '
    '{"values": [[H1, H2, VALUE], ...]} (MB/s or us) on stdout. `python -m commscope.sweep.simulate '
    "NETWORK.json` simulates a network with planted faults. Split like a shell would, never run by one.",
)
@click.option("--seed", type=int, metavar="N", help="locate: the seed of the random pairing (default: a fresh one).")
@click.option("--baseline", type=RunId(), metavar="RUN", help="A stored sweep to compare with, pair by pair.")
@click.option(
    "--json",
    "json_out",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the matrix, the flags and their evidence as JSON.",
)
@click.option(
    "--plot",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Write a heatmap per metric (PNG) into DIR.",
)
@launcher_option("How to start the ranks (as for `run`).")
@bind_option("intra pins every rank whatever this says.")
@label_system_options("Label stored with the sweep's runs.", "System (cluster) name stored with the runs.")
@timeout_option(
    "Stop a launch that runs longer, then start it once more; a second timeout is final "
    f"(default: {START_S:g} s to start plus {POINT_S:g} s for each point planned; locate --oracle: a round, "
    "default 600 s, not repeated)."
)
@db_option()
@click.pass_context
def sweep(
    ctx: click.Context,
    mode,
    hosts,
    hostfile,
    nodes,
    partition,
    time,
    source,
    np,
    metrics,
    rules,
    no_retest,
    oracle,
    seed,
    baseline,
    json_out,
    plot,
    launcher,
    bind,
    label,
    system,
    timeout,
    db,
) -> None:
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

    locate: round 1 pairs every host with a random partner, all pairs at
    once; each later round pairs every undecided host with a host already seen
    healthy. A host slow with several different healthy partners (the rules
    file's locate.confirm, 4) is a bad node, never one on a single slow pair;
    a slow pair of two otherwise healthy hosts is a suspect pair (contention,
    or a bad link: only all-pairs can tell). It stops when every host is
    cleared or named, or after locate.max_rounds (10) rounds, and is stored
    as one run, its rounds and pairs.

    Exit status 1 when something is flagged (or worse than --baseline; locate:
    a bad node, or hosts left undecided).
    """
    from commscope.analysis.sweep import PAIR_METRICS, Policy
    from commscope.sweep.run import SweepRequest, check_nodes, run_sweep

    locate = mode == "locate"
    metrics = metrics or ("bw" if locate else ",".join(PAIR_METRICS))
    chosen = tuple(name.strip() for name in metrics.split(",") if name.strip())
    unknown = [name for name in chosen if name not in PAIR_METRICS]
    if unknown or not chosen:
        raise UsageError(f"--metric {metrics}: choose from {', '.join(PAIR_METRICS)}")
    if locate and len(chosen) != 1:
        raise UsageError(f"--metric {metrics}: locate judges one metric: latency, bw or bibw")
    _only_for(mode, oracle=oracle, seed=seed, source=source, np=np, no_retest=no_retest, baseline=baseline, plot=plot)
    if rules is not None:
        from commscope.analysis.sweep_rules import load_rules

        policy = load_rules(rules)
    else:
        policy = Policy()
    if baseline == "last":
        raise UsageError("--baseline needs a run id")
    baseline_run = _baseline_sweep(db, baseline) if baseline is not None else None
    request = SweepRequest(
        mode=mode,
        hosts=hosts,
        hostfile=hostfile,
        nodes=nodes,
        partition=partition,
        time=time,
        source=source,
        np=np,
        metrics=chosen,
        policy=policy,
        launcher=launcher,
        bind=bind,
        label=label,
        system=system,
        timeout=timeout,
        retest=not no_retest,
        baseline=baseline_run,
        json_out=json_out,
        plot=plot,
        core_flags=ctx.meta.get("core_flags", []),
    )
    check_nodes(request)
    if nodes is not None:
        from commscope.cluster.allocate import allocation_hosts, in_allocation, run_in_allocation, salloc_argv
        from commscope.cluster.config import load as load_config

        if not in_allocation():  # the same command line again, inside an allocation of the nodes
            salloc = salloc_argv(nodes, load_config(), partition, time)
            ctx.exit(run_in_allocation(salloc, [sys.executable, "-m", "commscope", *request.argv[1:]]))
        request = dataclasses.replace(request, hosts=tuple(allocation_hosts(nodes)))
    if locate:
        from commscope.sweep.locate import run_locate

        ctx.exit(run_locate(request, oracle, seed, db))
    ctx.exit(run_sweep(request, db))


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


#: The options that apply to some modes only: the flag and those modes.
_MODES_OF = {
    "oracle": ("--oracle", ("locate",)),
    "seed": ("--seed", ("locate",)),
    "source": ("--from", ("one-to-all",)),
    "np": ("--np", ("intra",)),
    "no_retest": ("--no-retest", ("one-to-all", "all-pairs", "intra")),
    "baseline": ("--baseline", ("one-to-all", "all-pairs", "intra")),
    "plot": ("--plot", ("one-to-all", "all-pairs", "intra")),
}
#: Why, where it helps.
_WHY = {
    ("--np", "one-to-all"): " (one rank per host)",
    ("--np", "all-pairs"): " (one rank per host)",
    ("--baseline", "locate"): " (a stored locate run is compared with `commscope check --baseline`)",
}


def _only_for(mode: str, **given) -> None:
    """Refuse an option the mode would ignore, naming the option and the mode."""
    for name, value in given.items():
        if value in (None, False):
            continue
        flag, modes = _MODES_OF[name]
        if mode not in modes:
            where = f"{modes[0]} only" if len(modes) == 1 else "link sweeps, not locate"
            raise UsageError(f"{flag} does not apply to {mode}: it applies to {where}{_WHY.get((flag, mode), '')}")
