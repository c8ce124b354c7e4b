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
from commscope.errors import EXIT_FAILED, EXIT_OK, UsageError


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
  1  a regression: some series' last change point is for the worse (a host or link
     named as drifting); or --textfile or
     --push could not be done (said once)
  2  usage error: no runs match, a single run, a size the runs lack, a bad option;
     a host never swept or unknown, a selection without two sweeps
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
@click.option(
    "--metric",
    metavar="NAME",
    help="Metric to follow (default: each benchmark's main metric; with --host and the like, a pair "
    "metric: latency, bw, bibw, default bw).",
)
@click.option("--host", metavar="HOST", help="Follow one host over the stored sweeps: its pairs' slowdown in each.")
@click.option(
    "--hosts",
    is_flag=True,
    help="Follow every host swept and name those that drifted, with the false discoveries across them "
    "controlled (Benjamini-Hochberg, 5 %).",
)
@click.option("--link", metavar="A,B", help="Follow the pair of hosts A and B over the stored sweeps.")
@click.option("--links", is_flag=True, help="Follow every pair of hosts measured and name those that drifted.")
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
    host,
    hosts,
    link,
    links,
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

    With --host, --hosts, --link or --links the series are hosts' and links'
    over the stored sweeps (locate, all-pairs, one-to-all, recheck, the nightly
    loop's): each pair's slowdown against its sweep's healthy pair (1.12: 12 %
    slower), a host's value the median of its pairs'. --hosts and --links test
    every one against the others of its sweeps and name only those whose newest
    level got worse with Benjamini-Hochberg across them (docs/analysis.md);
    --tolerance then defaults to 5 %.

    \b
    Examples:
      commscope history --benchmark latency
      commscope history nightly --benchmark bw --size 4M --format json
      commscope history nightly --hosts
      commscope history nightly --host cn117
    """
    subject = _subject(ctx, host, hosts, link, links, size, sizes)
    if subject is not None:
        source = ctx.get_parameter_source("tolerance")
        tolerance = None if source is click.core.ParameterSource.DEFAULT else tolerance
        selection = selection_of(selectors, benchmark, since, last_invocation)
        found = _subjects(db, selection, subject, metric, tolerance, floor)
        _write(ctx, found, fmt, (textfile, push, group), subjects=True)
    from commscope import kinds
    from commscope.analysis.check import Policy
    from commscope.analysis.history import sizes_to_load
    from commscope.store.selection import select_run_ids

    with analysis_store(db) as store:
        ids = select_run_ids(store, selection_of(selectors, benchmark, since, last_invocation))
        # thousands of runs, a few sizes each looked at: only those points are loaded
        wanted = sizes_to_load(store.point_sizes(ids), size, sizes == "all")
        runs = [store.run(run_id) for run_id in ids] if wanted is None else store.runs_at_sizes(ids, wanted)
    found = kinds.history(runs, kinds.HistoryRequest(Policy(tolerance, floor), metric, size, sizes == "all"))
    _write(ctx, found, fmt, (textfile, push, group), subjects=False)


def _write(ctx: click.Context, found, fmt: str, publishing: tuple, subjects: bool) -> None:
    """Write a History (or, `subjects`, a hosts' or links' history) in `fmt`, publish its
    metrics where asked (--textfile, --push, --group); exit 1 on a regression or a failed
    publication."""
    from commscope.analysis.monitoring import drift_samples, history_samples
    from commscope.output import history, host_history
    from commscope.output.openmetrics import openmetrics_text

    shown, samples_of, show = (
        (host_history, drift_samples, _show_subjects) if subjects else (history, history_samples, _show)
    )
    textfile, push, group = publishing
    samples = samples_of(found) if fmt == "openmetrics" or textfile or push else None
    if fmt == "openmetrics":
        click.echo(openmetrics_text(samples), nl=False)
    elif fmt == "json":
        click.echo(shown.to_json(found), nl=False)
    elif fmt == "markdown":
        click.echo(shown.markdown(found), nl=False)
    else:
        show(found, shown)
    published = samples is None or publish(samples, textfile, push, group)
    ctx.exit(EXIT_FAILED if found.regressed or not published else EXIT_OK)


def _subject(ctx: click.Context, host, hosts, link, links, size, sizes) -> tuple[str, str | None] | None:
    """Which hosts or links to follow ("host"/"link", and the one named, None for all), or
    None for a benchmark's series."""
    from commscope.analysis.host_history import HOST, LINK, link_name

    given = [
        (flag, value)
        for flag, value in (("--host", host), ("--hosts", hosts), ("--link", link), ("--links", links))
        if value
    ]
    if not given:
        return None
    if len(given) > 1:
        raise UsageError(f"{given[0][0]} and {given[1][0]} do not go together: follow hosts or links, one or all")
    if size is not None or ctx.get_parameter_source("sizes") is not click.core.ParameterSource.DEFAULT:
        raise UsageError(f"{given[0][0]} follows sweeps, which have no message sizes: leave out --size and --sizes")
    flag, value = given[0]
    if flag == "--link":
        return LINK, ",".join(link_name(value))
    return (HOST if flag.startswith("--host") else LINK), (value if isinstance(value, str) else None)


def _subjects(db: Path, selection, subject: tuple[str, str | None], metric, tolerance, floor):
    """The history of the hosts or links asked for (analysis.host_history)."""
    from commscope.analysis import host_history
    from commscope.analysis.check import Policy
    from commscope.store.selection import select_run_ids

    what, name = subject
    flag = f"--{what}" + (f" {name}" if name else "s")
    with analysis_store(db) as store:
        ids = select_run_ids(store, selection)
        found, known = host_history.load(store, ids, metric, what, flag, selection.describe())
    policy = Policy(host_history.TOLERANCE if tolerance is None else tolerance, floor)
    if name is None:
        return host_history.many(found, policy)
    host_history.check_subject(found, name, known, selection.describe())
    return host_history.one(found, name, policy)


def _show_subjects(found, shown) -> None:
    """One host or link as a benchmark's series; many as the table of those named."""
    from commscope.output import history
    from commscope.output.views import rich_table

    if found.test is None:
        _show(found, history)
        return
    console = ui.table_console()
    console.print(shown.headline(found), markup=False, highlight=False)
    for note in found.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    if found.series:
        table = shown.drift_table(found)
        console.print(rich_table(table.headings(), table.texts(), left=1))
        for line in shown.named_lines(found):
            console.print(line, markup=False, highlight=False)
    console.print(f"({shown.METHOD})", markup=False, highlight=False)
    if found.regressed:
        click.echo("REGRESSION: " + "; ".join(series.name for series in found.regressed))


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
