"""`commscope history`: a benchmark's value over time, its change points and what changed."""

from __future__ import annotations

from pathlib import Path

import click

from commscope import ui
from commscope.cli.analysis import CheckCommand
from commscope.cli.common import (
    CONTEXT,
    SELECTORS_HELP,
    analysis_store,
    db_option,
    format_option,
    import_size,
    policy_options,
    selection_of,
    selection_options,
)
from commscope.cli.publish import publish, publish_options
from commscope.errors import EXIT_FAILED, EXIT_OK


def _size(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    return None if value is None else import_size(ctx, param, value)


@click.command(
    cls=CheckCommand,
    context_settings=CONTEXT,
    epilog=SELECTORS_HELP
    + """\n
\b
Exit status:
  0  no series' newest level is a regression
  1  a regression: some series' last change point is for the worse; or --textfile or
     --push could not be done (said once)
  2  usage error: no runs match, a single run, a size the runs lack, a bad option
  4  the result database cannot be used (missing, damaged, ...)""",
)
@selection_options(otherwise="Without it and without selectors, every stored run counts.")
@click.option("--size", type=str, callback=_size, metavar="BYTES", help="Follow this message size (8, 4K, 1M).")
@click.option(
    "--sizes",
    type=click.Choice(["headline", "all"]),
    default="headline",
    show_default=True,
    help="Without --size: headline follows what people quote (point-to-point latency at 0-8 B, bandwidth "
    "at the largest size, a collective at 8 B); all follows every size.",
)
@click.option("--metric", metavar="NAME", help="Metric to follow (default: each benchmark's main metric).")
@policy_options
@format_option(
    ["table", "json", "markdown", "openmetrics"],
    "table for reading; json for scripts; markdown to paste; openmetrics: each series' regression, "
    "level change and change points as Prometheus metrics (docs/watching.md).",
    "table",
)
@publish_options("history")
@db_option()
@click.pass_context
def history(
    ctx: click.Context,
    selectors,
    benchmark,
    since,
    last_invocation,
    size,
    sizes,
    metric,
    tolerance,
    floor,
    fmt,
    textfile,
    push,
    group,
    db: Path,
) -> None:
    """The series of a benchmark's value over time, runs grouped by system and
    label, with its change points.

    A change point is proposed by PELT over the runs' ranks and kept only when
    `check` would call the levels either side different: the medians differ by
    more than max(tolerance x before, floor) and the test check uses for that
    many runs finds it significant. Each change point lists what differs
    between the runs just before and just after it: MPI library and version,
    transport and its variables, hosts, kernel, driver, commscope and core
    versions, the core's flags, the MPI variables of the environment.

    \b
    Examples:
      commscope history --benchmark latency
      commscope history nightly --benchmark bw --size 4M --format json
    """
    from commscope import kinds
    from commscope.analysis.check import Policy
    from commscope.analysis.history import sizes_to_load
    from commscope.analysis.monitoring import history_samples
    from commscope.output import history as shown
    from commscope.output.openmetrics import openmetrics_text
    from commscope.store.selection import select_run_ids

    with analysis_store(db) as store:
        ids = select_run_ids(store, selection_of(selectors, benchmark, since, last_invocation))
        # thousands of runs, a few sizes each looked at: only those points are loaded
        wanted = sizes_to_load(store.point_sizes(ids), size, sizes == "all")
        runs = [store.run(run_id) for run_id in ids] if wanted is None else store.runs_at_sizes(ids, wanted)
    found = kinds.history(runs, kinds.HistoryRequest(Policy(tolerance, floor), metric, size, sizes == "all"))
    samples = history_samples(found) if fmt == "openmetrics" or textfile or push else None
    if fmt == "openmetrics":
        click.echo(openmetrics_text(samples), nl=False)
    elif fmt == "json":
        click.echo(shown.to_json(found), nl=False)
    elif fmt == "markdown":
        click.echo(shown.markdown(found), nl=False)
    else:
        _show(found, shown)
    published = samples is None or publish(samples, textfile, push, group)
    ctx.exit(EXIT_FAILED if found.regressed or not published else EXIT_OK)


def _show(found, shown) -> None:
    """Per series its summary line, its levels and its change points with what changed."""
    from commscope.output.views import rich_table

    console = ui.table_console()
    for series in found.series:
        console.print(shown.summary(series), markup=False, highlight=False)
        table = shown.levels_table(series)
        console.print(rich_table(table.headings(), table.texts(), left=0))
        for line in shown.terminal_lines(series):
            console.print(line, markup=False, highlight=False)
        console.print()
    if found.regressed:
        click.echo("REGRESSION: " + "; ".join(series.name for series in found.regressed))
