"""`commscope overhead`: what a tool (a profiler, a tracer) costs a benchmark, its runs
with and without the tool side by side."""

from __future__ import annotations

import click

from commscope.cli.common import (
    launcher_option,
    repeat_option,
    tool_run_options,
)
from commscope.errors import EXIT_INTERRUPTED, CommscopeError, UsageError


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
@tool_run_options
@click.pass_context
def overhead(ctx, benchmark, wrap, repeat, np, launcher, label, system, timeout, dry_run, db) -> None:
    """Measure how much slower BENCHMARK runs under a tool (Sigma2's perf-report page's profiler
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
    from commscope.analysis.overhead import slowdowns
    from commscope.execute.runner import RunRequest, run_benchmarks
    from commscope.execute.wrap import parse_wrapper
    from commscope.output.views import show_overhead

    # plain and wrapped launches interleaved; the runs come back from the call that stored
    # them, so the slowdown is computed from exactly these
    request = RunRequest(
        targets=[benchmark],
        np=np,
        launcher=launcher,
        label=label,
        system=system,
        repeat=repeat,
        timeout=timeout,
        dry_run=dry_run,
        extra_flags=ctx.meta.get("core_flags", []),
        wrappers=((), parse_wrapper(wrap)),
    )
    code, runs = run_benchmarks(request, db)
    if dry_run or code == EXIT_INTERRUPTED:
        ctx.exit(code)
    try:
        rows = slowdowns([run for run in runs if run.status == "complete"])
    except UsageError as exc:
        raise CommscopeError(f"no overhead: {exc}") from None
    show_overhead(f"{benchmark} under {wrap}", rows)
    ctx.exit(code)
