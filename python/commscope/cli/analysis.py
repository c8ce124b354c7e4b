"""Analysis commands: compare, baseline, check, model, plot, report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from commscope import ui
from commscope.cli.common import (
    CONTEXT,
    SELECTORS_HELP,
    FiniteRange,
    allow_failing_option,
    analysis_store,
    db_option,
    format_option,
    policy_options,
    selection_of,
    selection_options,
    stored_retest,
    write_output,
)
from commscope.cli.values import reference_name, valid_baseline_name
from commscope.errors import EXIT_FAILED, EXIT_OK, CommscopeError, UsageError


@click.command(epilog=SELECTORS_HELP)
@selection_options(otherwise="Without it and without selectors, every stored run is compared.")
@click.option(
    "--metric",
    metavar="NAME",
    help="Metric to compare: latency, bw, rate, or a stored name such as p99_us. Default: the main "
    "metric of the runs, which must be the same for all.",
)
@click.option("--ratio", is_flag=True, help="Add a column per run with its ratio to the first run.")
@click.option("--pdiff", is_flag=True, help="Add a column per run with its percent difference to the first run.")
@format_option(
    ["table", "markdown", "csv", "json"], "table for the terminal; markdown, csv or json to paste or process.", "table"
)
@click.option("-o", "--output", metavar="FILE", help="Write to FILE instead of stdout (not with --format table).")
@click.option(
    "--peak-per-core",
    type=FiniteRange(min=0, min_open=True),
    metavar="GFLOPS",
    help="HPL runs: the theoretical peak of one core (Gflop/s); adds the peak and the efficiency.",
)
@click.option(
    "--reference",
    metavar="NAME|list",
    callback=reference_name,
    help="Place the runs among a published system's OSU figures (same benchmark, placement, "
    "host or GPU buffers and size): theirs, yours and the ratio, with the source. "
    "`--reference list` lists the published references commscope ships.",
)
@db_option()
def compare(
    selectors, benchmark, since, last_invocation, metric, ratio, pdiff, fmt, output, peak_per_core, reference, db: Path
) -> None:
    """Compare runs side by side: a row per message size, a column per run
    (headed by its label, else its system).

    Runs of different benchmarks can be compared where they share the metric
    (bw against mbw_mr bandwidth, latency against a collective's latency).

    HPL, hpcc and storage runs print the standard-benchmarks tables instead: a row per HPL
    result (T/V, cores, memory per node, N, NB, P, Q, time, Gflops), and per
    storage run the per-process and total throughput over the process count.
    """
    from commscope import kinds
    from commscope.store.selection import select_runs

    runs = []
    if reference != "list":
        with analysis_store(db) as store:
            runs = select_runs(store, selection_of(selectors, benchmark, since, last_invocation))
    compared = kinds.compare(runs, kinds.CompareRequest(metric, ratio, pdiff, peak_per_core, reference))
    _show_compared(fmt, output, compared.show, lambda: compared.text(fmt))


def _show_compared(fmt: str, output: str | None, show_table: Callable[[], None], text: Callable[[], str]) -> None:
    """What `compare` made: the table on the terminal, or the text of --format in --output FILE
    or on stdout."""
    if fmt == "table":
        if output:
            raise UsageError("--output needs --format markdown, csv or json")
        show_table()
        return
    if output:
        write_output(Path(output), text())
        ui.note(f"wrote {output}")
    else:
        click.echo(text(), nl=False)


@click.group(context_settings=CONTEXT)
def baseline() -> None:
    """Name sets of runs that `commscope check` compares new runs against."""


@baseline.command(name="set", epilog=SELECTORS_HELP)
@click.argument("name", callback=valid_baseline_name)
@selection_options()
@db_option()
def baseline_set(name, selectors, benchmark, since, last_invocation, db: Path) -> None:
    """Make NAME stand for the selected runs (replacing what it stood for).

    A baseline may hold several benchmarks (check matches runs by benchmark)
    and several runs of one benchmark (repeats: check compares medians and
    tests significance).
    """
    from commscope.store.selection import select_runs

    if not selectors and not last_invocation:
        raise UsageError("name the baseline's runs (ids, labels, ...) or give --last-invocation")
    with analysis_store(db, write=True) as store:
        runs = select_runs(store, selection_of(selectors, benchmark, since, last_invocation))
        previous = store.set_baseline(name, [run.id for run in runs])
    ids = ", ".join(str(run.id) for run in runs)
    ui.note(
        f"baseline {name!r} is run{'s' if len(runs) > 1 else ''} {ids}"
        + (f" (was {', '.join(map(str, previous)) or 'empty'})" if previous is not None else "")
    )


@baseline.command(name="list")
@db_option()
def baseline_list(db: Path) -> None:
    """Baselines with their creation time and runs."""
    with analysis_store(db) as store:
        rows = store.baselines()
    if not rows:
        ui.note(f"no baselines in {db}")
    for name, created, run_ids in rows:
        click.echo(f"{name}\t{created}\truns {', '.join(map(str, run_ids)) or '(none left)'}")


@baseline.command(name="delete")
@click.argument("name")
@db_option()
def baseline_delete(name, db: Path) -> None:
    """Forget baseline NAME (its runs stay stored)."""
    with analysis_store(db, write=True) as store:
        if not store.delete_baseline(name):
            raise UsageError(f"no baseline {name!r} in {db}")
    ui.note(f"deleted baseline {name!r}")


class CheckCommand(click.Command):
    """Exit 1 means "regression" only: every other problem, click's own usage errors
    included, exits 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except CommscopeError as exc:
            if exc.exit_code == EXIT_FAILED:
                raise UsageError(str(exc)) from None
            raise


@click.command(
    cls=CheckCommand,
    epilog=SELECTORS_HELP
    + """\n
\b
Exit status:
  0  every benchmark passes
  1  a regression: more sizes fail than --allow-failing
  2  usage error: bad option, unknown run or baseline, nothing to compare
  4  the result database cannot be used (missing, damaged, ...)""",
)
@selection_options()
@click.option(
    "--baseline",
    "baseline_name",
    metavar="NAME",
    required=True,
    help="Baseline to compare with (`commscope baseline set`).",
)
@policy_options
@allow_failing_option()
@click.option("--metric", metavar="NAME", help="Metric to check (default: each benchmark's main metric).")
@format_option(
    ["table", "json"], "table for reading; json: the verdict of every size as a JSON document on stdout.", "table"
)
@click.option(
    "--junit",
    metavar="FILE",
    help="Also write JUnit XML (its folder must exist): a test case per benchmark x size, failing sizes "
    "as failures with their evidence (GitLab, Jenkins and GitHub show it as a test report).",
)
@db_option()
@click.pass_context
def check(
    ctx: click.Context,
    selectors,
    benchmark,
    since,
    last_invocation,
    baseline_name,
    tolerance,
    floor,
    allow_failing,
    metric,
    fmt,
    junit,
    db: Path,
) -> None:
    """Check new runs against a baseline, size by size (sweeps: pair by pair).

    Per message size, the median of the new runs is compared with the median
    of the baseline's runs of the same benchmark. A size fails when it is
    worse (higher latency, lower bandwidth) by more than max(tolerance x
    baseline, floor) and, where both sides have repeats or per-size sample
    statistics, the difference is significant (one-sided, 5 %: Mann-Whitney U
    with 5+ repeats a side, a bootstrap CI of the ratio of medians with 2-4,
    else Welch's t-test on the stored sample statistics). A size the baseline
    has and the new runs lack fails too.

    A sweep (`commscope sweep`, benchmark pairs) is checked against the
    baseline's latest sweep pair by pair, pairs matched by host names: a pair
    fails when worse than its baseline value by the margin of the sweep's
    rules (docs/sweep.md); a baseline host the new sweep lacks fails too.
    """
    from commscope.analysis.check import Policy
    from commscope.kinds import check as judge
    from commscope.output.verdicts import show_check
    from commscope.store.selection import select_runs

    if not selectors and not last_invocation:
        raise UsageError("name the runs to check (ids, labels, ...) or give --last-invocation")
    with analysis_store(db) as store:
        runs = select_runs(store, selection_of(selectors, benchmark, since, last_invocation))
        base_ids = store.baseline_run_ids(baseline_name)
        if base_ids is None:
            raise UsageError(f"no baseline {baseline_name!r} in {db} (see `commscope baseline list`)")
        if not base_ids:
            raise UsageError(f"baseline {baseline_name!r} has no runs left (they were deleted)")
        base_runs = [store.run(run_id) for run_id in base_ids]
    result = judge(baseline_name, base_runs, runs, Policy(tolerance, floor, allow_failing), metric)
    if junit:
        from commscope.output.ci import junit_xml

        write_output(Path(junit), junit_xml(result), make_folder=False, what="--junit")
    if fmt == "json":
        from commscope.output.ci import check_json

        click.echo(check_json(result), nl=False)
        ctx.exit(EXIT_OK if result.passed else EXIT_FAILED)
    show_check(result)
    ctx.exit(EXIT_OK if result.passed else EXIT_FAILED)


@click.command(epilog=SELECTORS_HELP)
@selection_options()
@click.option(
    "--each",
    is_flag=True,
    help="Fit every run on its own. By default, runs of one benchmark with the same label and system "
    "(repeats) are fitted as one curve: their per-size median.",
)
@format_option(["table", "json"], "table for reading; json for scripts.", "table")
@db_option()
def model(selectors, benchmark, since, last_invocation, each, fmt, db: Path) -> None:
    """Fit latency(size) = α + size/β (Hockney) per protocol regime.

    The eager/rendezvous break points are found by segmented least squares
    on relative residuals, the number of regimes by BIC. Reports α (µs),
    the asymptotic bandwidth β (MB/s), the half-performance size n½ and
    the fit quality. Bandwidth runs are turned into time per message first.
    """
    from commscope import kinds
    from commscope.output.export.json import json_text
    from commscope.output.views import show_fits
    from commscope.store.selection import select_runs

    if not selectors and not last_invocation:
        raise UsageError("name the runs to model (ids, labels, ...) or give --last-invocation")
    with analysis_store(db) as store:
        runs = select_runs(store, selection_of(selectors, benchmark, since, last_invocation))
    fitted = kinds.model(runs, each)
    if fmt == "json":
        click.echo(json_text([result.to_dict() for _, result in fitted]), nl=False)
    else:
        show_fits(fitted)


@click.command(epilog=SELECTORS_HELP)
@selection_options()
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    required=True,
    help="Figure to write: FILE.png or FILE.svg (a sweep: FILE-METRIC.png or .svg, one per metric).",
)
@click.option(
    "--metric",
    metavar="NAME",
    help="Metric to plot (default: the runs' main metric; a sweep: latency, bw or bibw, default each).",
)
@click.option(
    "--ratio-to",
    "ratio_to",
    metavar="RUN",
    help="Add a panel with every run's ratio to this run (an id or selector naming one run), the "
    "tolerance band and the sizes outside it.",
)
@click.option(
    "--band",
    type=click.Choice(["ci", "minmax", "none"]),
    default="ci",
    show_default=True,
    help="Shade around each line: the 95% confidence interval, the fastest and slowest sample, or "
    "nothing. Imported runs without statistics get no band.",
)
@policy_options
@click.option("--title", metavar="TEXT", help="Title of the figure (default: benchmarks and metric).")
@db_option()
def plot(
    selectors, benchmark, since, last_invocation, output, metric, ratio_to, band, tolerance, floor, title, db: Path
) -> None:
    """Plot runs over message size (log2 axis), a line per run with its band.

    A sweep (a pairs run of `commscope sweep`) is drawn as a heatmap per metric
    instead, flagged cells outlined: -o FILE.svg writes FILE-latency.svg,
    FILE-bw.svg and FILE-bibw.svg (--metric: that one only). Name one sweep;
    its retest run may be selected with it.
    """
    from commscope import kinds
    from commscope.output.plot import format_of
    from commscope.store.selection import Selection, select_runs

    path = Path(output)
    fmt = format_of(path)
    if not selectors and not last_invocation and not ratio_to:
        raise UsageError("name the runs to plot (ids, labels, ...) or give --last-invocation")
    with analysis_store(db) as store:
        runs = (
            select_runs(store, selection_of(selectors, benchmark, since, last_invocation))
            if selectors or last_invocation
            else []
        )
        reference = None
        if ratio_to:
            matches = select_runs(store, Selection(selectors=(ratio_to,)))
            if len(matches) != 1:
                raise UsageError(f"--ratio-to {ratio_to!r} matches {len(matches)} runs; name one run")
            reference = matches[0]
        request = kinds.PlotRequest(path, fmt, metric, reference, band, tolerance, floor, title)
        figures = kinds.plot(runs, request, lambda run: stored_retest(store, run))
    for target, data in figures.items():
        write_output(target, data)
        ui.note(f"wrote {target}")


@click.command(epilog=SELECTORS_HELP)
@selection_options(otherwise="Either this, a selector or --all is needed.")
@click.option("--all", "all_runs", is_flag=True, help="Report on every run in the database.")
@click.option("-o", "--output", metavar="FILE", required=True, help="HTML file to write (self-contained).")
@click.option(
    "--markdown",
    metavar="FILE",
    help="Also write a Markdown report, its figures as SVG files in FILE-figures/ beside it.",
)
@click.option("--baseline", "baseline_name", metavar="NAME", help="Also check the runs against this baseline.")
@policy_options
@allow_failing_option("With --baseline: a benchmark still passes with up to K failing sizes.")
@click.option("--title", default="commscope report", show_default=True, metavar="TEXT", help="Title of the report.")
@db_option()
def report(
    selectors,
    benchmark,
    since,
    last_invocation,
    all_runs,
    output,
    markdown,
    baseline_name,
    tolerance,
    floor,
    allow_failing,
    title,
    db: Path,
) -> None:
    """Write an HTML report: summary (headline numbers, model fit, verdict
    against a baseline), warnings (incomplete runs, unstable points,
    oversubscribed hosts), per benchmark a figure, the side-by-side table
    and model fits, and every run's provenance.

    A sweep (`commscope sweep`, a pairs run) is shown as a sweep, judged again
    with the rules and retest run it recorded: the flagged nodes and links
    with their evidence first, the pairs cleared as contention, the pair
    table (flagged pairs only beyond 64 hosts), and a heatmap per metric.

    The page is one file that needs no network. After `commscope run`,
    `commscope report --last-invocation -o results/report.html` reports on
    what it just measured.
    """
    from commscope.analysis.check import Policy
    from commscope.kinds import check as judge
    from commscope.kinds.report import build
    from commscope.output.report import render_html, render_markdown
    from commscope.store.selection import select_runs

    if not selectors and not last_invocation and not all_runs:
        raise UsageError("name the runs to report on (ids, labels, ...), or give --last-invocation or --all")
    if all_runs and (selectors or last_invocation):
        raise UsageError("--all reports on every run: give it without selectors or --last-invocation")
    with analysis_store(db) as store:
        runs = select_runs(store, selection_of(selectors, benchmark, since, last_invocation))
        # a sweep is judged with its retest run, selected or not
        retests = {run.id: retest for run in runs if (retest := stored_retest(store, run)) is not None}
        result = None
        if baseline_name:
            base_ids = store.baseline_run_ids(baseline_name)
            if not base_ids:
                raise UsageError(f"no baseline {baseline_name!r} with runs in {db} (see `commscope baseline list`)")
            base_runs = [store.run(run_id) for run_id in base_ids]
            candidates = [run for run in runs if run.id not in base_ids]
            if not candidates:
                raise UsageError(f"every run reported on is part of baseline {baseline_name!r}: nothing to check")
            result = judge(baseline_name, base_runs, candidates, Policy(tolerance, floor, allow_failing))
    content = build(runs, str(db), result, title, retests, Policy(tolerance, floor, allow_failing))
    write_output(Path(output), render_html(content))
    written = [output]
    if markdown:
        for path, data in render_markdown(content, Path(markdown)).items():
            write_output(path, data)
        written.append(markdown)
    ui.note(f"wrote {' and '.join(written)} ({len(runs)} runs)")
