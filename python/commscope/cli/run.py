"""`commscope run` and `commscope sweep`: commands that measure."""

from __future__ import annotations

import click

from commscope.cli.common import (
    EXIT_STATUS_HELP,
    RunCommand,
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
from commscope.cli.sweep import sweep  # noqa: F401  (registered as run.sweep by cli/main.py)
from commscope.cli.values import time_limit_option
from commscope.execute.limits import POINT_S, START_S
from commscope.records.benchmarks import DEFAULT_TIME_LIMIT_S
from commscope.records.duration import format_duration
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
@time_limit_option(
    "What every benchmark's launches may take together: each is given its share and sizes its "
    "iterations to it from the warm-up (OMB's counts where they fit, at least one a point), and "
    "the plan is said before anything starts. Default: OMB's counts, but "
    + ", ".join(f"{name} {format_duration(limit)}" for name, limit in DEFAULT_TIME_LIMIT_S.items())
    + " for each launch."
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
    time_limit,
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
        time_limit=time_limit,
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
