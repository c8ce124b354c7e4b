"""`commscope run hpl`, `commscope run storage` and `commscope overhead`: the cluster beside
the network (compute, storage) and the cost of a tool. `run` hands `hpl` and `storage`
to the commands here; what they measure is read by the same readers as `commscope
import` and stored as runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from commscope import ui
from commscope.cli.common import (
    db_option,
    hosts_options,
    label_system_options,
    launcher_option,
    repeat_option,
    split_commas,
    timeout_option,
)
from commscope.errors import EXIT_INTERRUPTED, EXIT_OK, CommscopeError, UsageError


def _show(runs) -> None:
    from commscope.kinds import kind_of

    for run in runs:
        click.echo(kind_of(run).table_text(run, {}))


def common_options(command):
    """--label, --system, --timeout, --dry-run and --db, as every command here takes them."""
    command = db_option()(command)
    command = click.option("--dry-run", is_flag=True, help="Print what would run and run nothing.")(command)
    command = timeout_option("Stop the tool when one launch runs longer than this (the run is stored as failed).")(
        command
    )
    return label_system_options(
        "Label stored with every run.",
        "System (cluster) the results belong to. Default: $COMMSCOPE_SYSTEM, the Slurm cluster name, or this host.",
    )(command)


# -- HPL ------------------------------------------------------------------------------------


def _grid(ctx, param, value):
    if value is None:
        return None
    from commscope.execute.hpl import parse_grid

    try:
        return parse_grid(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


@click.command(name="hpl", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--np", type=click.IntRange(min=1), default=None, metavar="N", help="MPI ranks. Default: the cores of this machine."
)
@click.option(
    "--memory-fraction",
    type=click.FloatRange(min=0, max=1, min_open=True),
    default=0.8,
    show_default=True,
    metavar="F",
    help="Share of memory (of all nodes) for the matrix: N = sqrt(F x memory / 8), rounded down to a "
    "multiple of NB. 0.8 is HPL's usual advice and runs for hours with a reference BLAS; "
    "0.001 is a check of a few seconds.",
)
@click.option(
    "--n", "n", type=click.IntRange(min=1), metavar="N", help="The matrix order itself (instead of --memory-fraction)."
)
@click.option("--nb", type=click.IntRange(min=1), default=192, show_default=True, metavar="NB", help="Block size.")
@click.option(
    "--grid",
    callback=_grid,
    metavar="PxQ",
    help="Process grid, P <= Q, P x Q <= ranks. Default: the squarest grid of all ranks.",
)
@click.option(
    "--xhpl", metavar="PATH", help="Run this xhpl (reads HPL.dat) instead of hpcc from Debian's hpcc package."
)
@launcher_option(
    "How to start the ranks. auto: srun inside Slurm, else the launcher of the MPI hpcc/xhpl is linked with (ldd)."
)
@hosts_options(
    "Hosts to run on (node1:4,node2:4); memory is counted on each.", "Hostfile in the launcher's own format."
)
@common_options
@click.pass_context
def hpl(
    ctx, np, memory_fraction, n, nb, grid, xhpl, launcher, hosts, hostfile, label, system, timeout, dry_run, db
) -> None:
    """Run HPL (High-Performance Linpack) and store its Gflops.

    hpcc (Debian package hpcc) runs HPL and also STREAM, PTRANS, RandomAccess, FFT,
    DGEMM and, on 2 ranks or more, b_eff; each is stored as a run of its own
    (hpl, hpcc_stream, ...). The input file is written from this machine's memory,
    the rank count and the grid. A failed residual check is a failed run.

    \b
    Examples:
      commscope run hpl --memory-fraction 0.001            # a few seconds
      commscope run hpl --np 2 --n 2000 --nb 80 --grid 1x2
      commscope compare --benchmark hpl --peak-per-core 52.8
    """
    from commscope.execute.hpl import HplRequest, execute_hpl, plan_hpl
    from commscope.execute.keep import summary

    request = HplRequest(
        np=np or os.cpu_count() or 1,
        memory_fraction=memory_fraction,
        n=n,
        nb=nb,
        grid=grid,
        xhpl=xhpl,
        launcher=launcher,
        hosts=hosts,
        hostfile=hostfile,
        timeout=timeout,
    )
    plan = plan_hpl(request)
    ui.note(
        f"HPL through {plan.kind}: N={plan.n}, NB={plan.nb}, grid {plan.p}x{plan.q}, {request.np} ranks"
        + (
            ""
            if n
            else f" ({memory_fraction:g} of {plan.memory_per_node * plan.nodes / 2**30:.1f} GiB on "
            f"{plan.nodes} node(s))"
        )
    )
    if dry_run:
        click.echo(f"# {plan.input_name}:\n" + plan.input_text.rstrip())
        from commscope.execute.launchers import Command

        click.echo(Command(plan.argv, plan.env).shell())
        ctx.exit(EXIT_OK)
    ui.note(f"hpl: {' '.join(plan.argv)}")
    stored = execute_hpl(plan, request, label, system, db, sys.argv)
    _show(stored.runs)
    ctx.exit(summary(stored, db))


# -- storage ----------------------------------------------------------------------------------


def _parsed(parser_name: str):
    def convert(ctx, param, value):
        if value is None or not isinstance(value, str):
            return value
        from commscope.execute import fio

        try:
            return getattr(fio, parser_name)(value)
        except ValueError as exc:
            raise click.BadParameter(str(exc), ctx, param) from None

    return convert


def _storage_option(name: str, default: str, parser_name: str, metavar: str, help: str):
    """An option of `run storage` written as text, read by execute.fio's `parser_name`."""
    return click.option(
        name, default=default, show_default=True, callback=_parsed(parser_name), metavar=metavar, help=help
    )


@click.command(name="storage", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--dir",
    "directory",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    metavar="PATH",
    help="Folder on the file system to test. Created (and removed afterwards) if missing; an existing "
    "folder must be empty unless --allow-nonempty.",
)
@_storage_option(
    "--size",
    "1G",
    "parse_bytes",
    "S",
    "Data written per process count, split among the processes (seed 001: 512G, so 39G each "
    "over 13). Binary units: 4k, 1M, 512G.",
)
@_storage_option("--block", "1M", "parse_bytes", "B", "Block size of the sequential workloads.")
@_storage_option("--rand-block", "4k", "parse_bytes", "B", "Block size of the random workloads (IOPS).")
@_storage_option(
    "--procs", "1,2,4,8,13", "parse_counts", "LIST", "Process (client) counts, each process with its own file."
)
@click.option(
    "--runtime",
    type=click.FloatRange(min=0, min_open=True),
    default=30,
    show_default=True,
    metavar="SECONDS",
    help="Duration of each random workload.",
)
@click.option(
    "--nodes",
    metavar="H1,H2",
    callback=split_commas,
    help="Clients on these hosts: one fio per process through the MPI launcher, spread over the hosts; "
    "--dir must be a folder every host sees.",
)
@launcher_option("Launcher for --nodes.")
@click.option(
    "--allow-nonempty",
    is_flag=True,
    help="Write into an existing folder that holds other files (they are never touched).",
)
@common_options
@click.pass_context
def storage(
    ctx,
    directory,
    size,
    block,
    rand_block,
    procs,
    runtime,
    nodes,
    launcher,
    allow_nonempty,
    label,
    system,
    timeout,
    dry_run,
    db,
) -> None:
    """Measure a file system with fio: sequential write and read throughput
    (MB/s) and random write and read IOPS, per process and in total, at each
    process count (seed 001's four tables).

    Direct I/O is used where the file system allows it (probed); otherwise the
    files are larger than memory, or (as root) the page cache is dropped before
    each read, or the run says the reads may be cached. Files are removed after
    each count, and on Ctrl-C; free space is checked first. fio comes from
    Debian's fio package.

    \b
    Examples:
      commscope run storage --dir /scratch/$USER/cs --size 8G --procs 1,2,4
      commscope run storage --dir /nfs/cs --nodes n1,n2,n3 --procs 1,2,3
    """
    from commscope.execute.fio import execute_fio
    from commscope.execute.fio_workspace import StorageRequest
    from commscope.execute.keep import summary

    request = StorageRequest(
        directory=directory,
        size=size,
        block=block,
        rand_block=rand_block,
        procs=procs,
        runtime=runtime,
        nodes=nodes,
        launcher=launcher,
        allow_nonempty=allow_nonempty,
        timeout=timeout,
    )
    if dry_run:
        click.echo(
            f"# fio in {directory}: {size} bytes per count over {', '.join(map(str, procs))} processes; "
            "sequential write/read, random write/read"
        )
        ctx.exit(EXIT_OK)
    stored = execute_fio(request, label, system, db, sys.argv)
    _show(stored.runs)
    ctx.exit(summary(stored, db))


# -- overhead ------------------------------------------------------------------------------------


class OverheadCommand(click.Command):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            split = args.index("--")
            args, ctx.meta["core_flags"] = args[:split], args[split + 1 :]
        return super().parse_args(ctx, args)


@click.command(
    name="overhead",
    cls=OverheadCommand,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.argument("benchmark")
@click.option(
    "--wrap",
    "wrap",
    required=True,
    metavar="'CMD ...'",
    help="The tool to measure, run by every rank around the benchmark: 'valgrind --tool=none', "
    "'perf stat -x,', 'strace -f -e trace=none'.",
)
@repeat_option("Plain and wrapped launches, interleaved (plain, wrapped, plain, ...), K of each.", default=3)
@click.option("--np", type=click.IntRange(min=1), default=2, show_default=True, metavar="N", help="MPI ranks.")
@launcher_option("How to start the ranks (as for `commscope run`).")
@common_options
@click.pass_context
def overhead(ctx, benchmark, wrap, repeat, np, launcher, label, system, timeout, dry_run, db) -> None:
    """Measure how much slower BENCHMARK runs under a tool (seed 002's profiler
    costing 26x on MPI_Barrier): plain and wrapped launches, interleaved and
    repeated, stored as runs; prints the slowdown per size, wrapped / plain
    median time per operation, with a 95% interval (bootstrap of the ratio of
    medians; with --repeat 1 from the runs' sample statistics).

    The time is the benchmark's own timed loop, so the tool's start-up and data
    collection do not count. Flags after `--` go to the benchmark.

    \b
    Example:
      commscope overhead barrier --np 4 --wrap 'valgrind --tool=none' -- -i 100000
    """
    from commscope.analysis.overhead import HEADER, slowdowns
    from commscope.execute.overhead import OverheadRequest, run_overhead
    from commscope.execute.wrap import parse_wrapper
    from commscope.output.views import rich_table

    request = OverheadRequest(
        benchmark=benchmark,
        wrapper=parse_wrapper(wrap),
        repeat=repeat,
        np=np,
        launcher=launcher,
        label=label,
        system=system,
        timeout=timeout,
        dry_run=dry_run,
        core_flags=ctx.meta.get("core_flags", []),
    )
    code, runs = run_overhead(request, db)
    if dry_run or code == EXIT_INTERRUPTED:
        ctx.exit(code)
    try:
        rows = slowdowns([run for run in runs if run.status == "complete"])
    except UsageError as exc:
        raise CommscopeError(f"no overhead: {exc}") from None
    console = ui.table_console()
    console.print(
        f"{benchmark} under {wrap}: slowdown, wrapped / plain time per operation "
        f"({rows[0].repeats[0]} plain, {rows[0].repeats[1]} wrapped launches)",
        markup=False,
        highlight=False,
    )
    console.print(rich_table(HEADER, [row.cells() for row in rows]))
    ctx.exit(code)


#: `run hpl` and `run storage`: `run` hands its arguments to these commands (common.RunCommand).
DELEGATED_RUNS = {"hpl": hpl, "storage": storage}
