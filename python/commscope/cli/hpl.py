"""`commscope run hpl`: HPL (through hpcc or an xhpl) on this machine or an allocation;
`run` hands `hpl` to the command here (RunCommand's delegation)."""

from __future__ import annotations

import os

import click

from commscope import ui
from commscope.cli.common import (
    FiniteRange,
    destination_options,
    hosts_options,
    launcher_option,
    show_runs,
)
from commscope.errors import EXIT_OK
from commscope.records.benchmarks import HPL_BENCHMARK
from commscope.records.suite import MAX_RANKS


def _grid(ctx, param, value):
    if value is None:
        return None
    from commscope.execute.hpl import parse_grid

    try:
        return parse_grid(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


@click.command(name=HPL_BENCHMARK, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--np",
    type=click.IntRange(min=1, max=MAX_RANKS),
    default=None,
    metavar="N",
    help=f"MPI ranks. Default: the cores of this machine. At most {MAX_RANKS:,}, as for `run`.",
)
@click.option(
    "--memory-fraction",
    type=FiniteRange(min=0, max=1, min_open=True),
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
@destination_options("every run as files (NAME.jsonl, NAME.run.json with its points, the tool's own output)")
@click.pass_context
def hpl(
    ctx,
    np,
    memory_fraction,
    n,
    nb,
    grid,
    xhpl,
    launcher,
    hosts,
    hostfile,
    timeout,
    dry_run,
    destination,
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
    stored = execute_hpl(plan, request, destination)
    show_runs(stored.runs)
    ctx.exit(summary(stored, destination.db))
