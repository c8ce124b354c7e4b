"""Commands on stored runs: list, show, export, delete, import."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from commscope import ui
from commscope.cli.common import (
    CONTEXT,
    GivenPath,
    RunId,
    db_option,
    format_option,
    import_size,
    resolve_run,
    stored_retest,
    utf8_text,
    write_output,
)
from commscope.cli.publish import publish, publish_options
from commscope.cli.values import nccl_tests_program
from commscope.errors import EXIT_FAILED, UsageError
from commscope.execute.core import find_core
from commscope.execute.core import list_benchmarks as core_benchmarks
from commscope.records.suite import builtin_suites, expand, load_suite_file
from commscope.records.text import precision_line
from commscope.records.textsafe import terminal


@click.group(name="list", context_settings=CONTEXT)
def list_() -> None:
    """List what can be run (benchmarks, suites) or what is stored (runs)."""


@list_.command(name="benchmarks")
@db_option()
def list_benchmarks(db: Path) -> None:
    """Benchmarks commscope-bench provides, and how many runs of each are stored.

    commscope-bench is found through $COMMSCOPE_BENCH, then PATH, then the
    repository's build/default folder.
    """
    from commscope.store.db import Store

    core = find_core()
    counts = {}
    if db.exists():
        with Store(db, readonly=True) as store:
            counts = store.run_counts()
    width = max((len(name) for name in core_benchmarks(core)), default=0)
    ui.note(f"from {core}")
    for name, description in core_benchmarks(core).items():
        stored = f"  [{counts[name]} stored]" if name in counts else ""
        click.echo(f"{name:<{width}}  {description}{stored}")


@list_.command(name="suites")
@db_option(hidden=True)
def list_suites(db: Path) -> None:
    """Suites shipped with commscope and what they run.

    \b
    A suite file is YAML:
      description: what the suite is for
      include: [pt2pt]            # optional: other suites first
      benchmarks:
        - benchmark: latency      # a commscope-bench benchmark
          flags: ["-m", "1:64K"]  # its flags (OMB's)
          ranks: 2                # MPI ranks (default 2)
          placement: inter-node   # intra-node | inter-node | any (default)
    Run one with `commscope run --suite-file FILE`.
    """

    for name, path in builtin_suites().items():
        suite = load_suite_file(path)
        click.echo(f"{name}: {suite.description}")
        for entry in expand(path):
            flags = " ".join(entry.flags) or "(defaults)"
            extra = "".join(
                f", {text}"
                for text in (
                    entry.transport and f"transport {entry.transport}",
                    entry.label and f"label {entry.label!r}",
                )
                if text
            )
            click.echo(f"    {entry.benchmark:<10} {flags:<28} {entry.ranks} ranks, {entry.placement}{extra}")


@list_.command(name="runs")
@click.option("--benchmark", metavar="NAME", help="Only runs of this benchmark.")
@click.option("--label", metavar="TEXT", help="Only runs with exactly this label.")
@click.option("--status", type=click.Choice(["complete", "incomplete", "failed"]), help="Only runs with this status.")
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=50,
    show_default=True,
    metavar="N",
    help="Show the N newest runs; 0 shows all.",
)
@db_option()
def list_runs(benchmark, label, status, limit, db: Path) -> None:
    """Stored runs, newest first: id, start time, benchmark, label, system, ranks,
    nodes, number of sizes, status, and where they came from (run or an import format)."""
    from commscope.output.views import runs_table
    from commscope.store.db import Store

    with Store(db, readonly=True) as store:
        summaries = store.summaries(benchmark=benchmark, label=label, status=status, limit=limit or None)
    if not summaries:
        ui.note(f"no runs in {db}")
        return
    ui.table_console().print(runs_table(summaries))


@click.command()
@click.argument("run_id", metavar="RUN", type=RunId())
@click.option(
    "--raw",
    metavar="KIND",
    help="Print a stored raw output instead: jsonl, stdout (the core's OSU table) or stderr of a run; "
    "source (the whole file) or table (the run's own OMB table in it) of an import.",
)
@db_option()
def show(run_id, raw, db: Path) -> None:
    """Show one run: its provenance, then its OSU table.

    RUN is a run id from `commscope list runs`, or `last`. For a run of
    commscope-bench the table is the core's own text as it printed it; for an
    imported OMB table, its lines as the file has them; otherwise it is
    rendered from the stored points.
    """
    from commscope.kinds import kind_of
    from commscope.output.views import provenance_lines, repeat_lines
    from commscope.store.db import Store

    with Store(db, readonly=True) as store:
        run_id = resolve_run(store, run_id)
        run = store.run(run_id)
        outputs = store.raw_outputs(run_id)
        # a launch of `run --repeat`: the median across its repeats follows its own table
        same = (
            [
                store.run(summary.id)
                for summary in store.summaries(invocation_id=run.invocation_id)
                if summary.id != run_id and summary.benchmark == run.benchmark
            ]
            if run.invocation_id
            else []
        )
        group = kind_of(run).repeats([run, *same])[0]  # the group of the run shown comes first
        verdict = sweep_verdict(store, run)
    if raw:
        if raw not in outputs:
            raise UsageError(f"run {run_id} has no raw output {raw!r}; it has: {', '.join(outputs) or 'none'}")
        sys.stdout.buffer.write(outputs[raw])
        return
    click.echo(terminal("\n".join(provenance_lines(run))))
    click.echo()
    text = terminal(kind_of(run).table_text(run, outputs))
    click.echo(text, nl=not text.endswith("\n"))
    line = precision_line(run)
    if line:
        click.echo(f"# {line}")
    if verdict:
        click.echo(terminal(verdict))
    if len(group) > 1:
        click.echo()
        click.echo("\n".join(repeat_lines(group)))


def sweep_verdict(store, run) -> str:
    """A link sweep's verdict for `show`, judged with its retest run where the store has it."""
    from commscope.analysis.sweep_verdicts import retest_run_id
    from commscope.kinds.link_sweep import verdict_text

    wanted = retest_run_id(run)
    try:
        retest = store.run(wanted) if wanted is not None else None
    except UsageError:  # deleted since: judged without it, and the verdict's note says so
        retest = None
    return verdict_text(run, retest)


@click.command(
    epilog="""\b
Exit status:
  0  written (and published, where asked)
  1  --textfile or --push could not be done (said once; the rest was)
  2  usage error
  4  the result database cannot be used"""
)
@click.argument("run_ids", metavar="RUN...", nargs=-1, required=True, type=RunId())
@format_option(
    ["csv", "json", "openmetrics"],
    "csv: one row per size with the run's key fields; json: the runs with all provenance and points; "
    "openmetrics: the newest value of each series as Prometheus metrics (docs/watching.md). "
    "Needed unless --textfile or --push is given.",
)
@click.option(
    "-o",
    "--output",
    type=GivenPath(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write to FILE instead of stdout (its folder must exist).",
)
@publish_options("runs")
@db_option()
@click.pass_context
def export(ctx: click.Context, run_ids, fmt, output, textfile, push, group, db: Path) -> None:
    """Export runs as CSV or JSON (format "commscope-export", version 1), or as Prometheus
    metrics: OpenMetrics text, a node_exporter textfile (--textfile), a Pushgateway (--push).

    RUN is a run id from `commscope list runs`, or `last`.
    """
    from commscope.store.db import Store

    if output is not None and fmt is None:
        raise UsageError("-o FILE writes the --format asked for: give --format too")
    if fmt is None and textfile is None and push is None:
        raise UsageError("give --format csv, json or openmetrics, or publish with --textfile DIR or --push URL")
    with Store(db, readonly=True) as store:
        runs = [store.run(resolve_run(store, run_id)) for run_id in run_ids]
        samples = None
        if fmt == "openmetrics" or textfile is not None or push is not None:
            from commscope import kinds

            samples = kinds.monitoring(runs, lambda run: stored_retest(store, run))
    if fmt is not None:
        if fmt == "openmetrics":
            from commscope.output.openmetrics import openmetrics_text

            text = openmetrics_text(samples)
        else:
            from commscope.output.run_export import FORMATS

            text = FORMATS[fmt](runs)
        if output is None:
            click.echo(text, nl=False)
        else:
            write_output(output, text, make_folder=False)
            ui.note(f"wrote {len(runs)} run(s) to {output}")
    if samples is not None and not publish(samples, textfile, push, group):
        ctx.exit(EXIT_FAILED)


@click.command()
@click.argument("run_ids", metavar="RUN...", nargs=-1, required=True, type=RunId())
@db_option()
def delete(run_ids, db: Path) -> None:
    """Delete runs with their points and raw outputs. There is no undo.

    RUN is a run id from `commscope list runs`, or `last`.
    """
    from commscope.store.db import Store

    with Store(db, create=False) as store:
        ids = [resolve_run(store, run_id) for run_id in run_ids]
        missing = [run_id for run_id in ids if not store.has_run(run_id)]
        if missing:
            raise UsageError(f"no run {', '.join(map(str, missing))} in {db}; nothing deleted")
        store.delete_runs(ids)
    ui.note(f"deleted run{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))}")


@click.command(name="import")
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@click.option(
    "--label",
    metavar="TEXT",
    callback=utf8_text,
    help="Label for the imported runs. A run the file itself names (a column of a side-by-side "
    "table) is labelled 'TEXT: column'; without --label, by the column alone.",
)
@click.option("--system", metavar="NAME", callback=utf8_text, help="System (cluster) the results were measured on.")
@click.option(
    "--max-size",
    metavar="SIZE",
    default="64M",
    show_default=True,
    envvar="COMMSCOPE_IMPORT_MAX_SIZE",
    show_envvar=True,
    callback=import_size,
    help="Refuse files larger than this (K, M, G: binary units), rather than read a runaway log or "
    "/dev/zero into memory.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Import files whose content is already stored (by SHA-256 of the bytes), storing their runs again.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Refuse a file any of whose table rows cannot be read (a failed job's empty cells); "
    "without it the good rows are stored, the others listed, and the exit status is 1.",
)
@click.option(
    "--benchmark",
    "nccl_program",
    metavar="PROGRAM",
    callback=nccl_tests_program,
    help="The nccl-tests program (all_reduce_perf, all_gather_perf, ...; or its stored name, nccl_allreduce) "
    "of outputs that do not name theirs. nccl-tests before v2.16.7 printed no program name: import "
    "infers it from the table and says how, and refuses a table that several programs print alike "
    "(with -c 0, an all_reduce and a sendrecv of 2 ranks); this names it. A file whose output names another "
    "program is refused, and so is a file that is not nccl-tests output.",
)
@db_option()
@click.pass_context
def import_(ctx: click.Context, files, label, system, max_size, force, strict, nccl_program, db: Path) -> None:
    """Import result files: OSU Micro-Benchmarks output (5.x-7.x), Intel MPI
    Benchmarks output, nccl-tests and rccl-tests output (all_reduce_perf and
    the other *_perf programs: their text, or the JSON of -J), OMB tables pasted
    into Markdown/reStructuredText, JUBE result tables (`jube result`, pretty or
    csv), and commscope-bench JSON documents.

    A file that cannot be read is reported as FILE:LINE: problem and nothing
    from it is stored; the other files are still imported, and the exit
    status is 1. A row of a JUBE table that cannot be read (a failed job's
    empty cells) is reported the same way and left out, the table's other
    rows stored (--strict refuses the file).

    FILE may also be a run that `commscope run` measured but could not store:
    the .jsonl file it names in the unsaved-results folder, read with the
    .run.json beside it (label, system, launcher, repeat index...).

    A file whose bytes are already stored (imported before, under any name) is
    skipped with a message naming its runs; --force stores it again.
    """
    from commscope.ingest.importer import import_files
    from commscope.store.db import Store

    with Store(db) as store:
        result = import_files(
            store, files, label, system, sys.argv, max_size, force=force, strict=strict, nccl_program=nccl_program
        )
    for name, ids in result.stored.items():
        ui.note(f"{name}: stored {len(ids)} run(s): {', '.join(map(str, ids))}")
    for note in result.notes:
        ui.note(note)
    for name, earlier in result.skipped.items():
        ui.note(f"{name}: already imported ({earlier}); not stored again (--force stores it)")
    for name, earlier in result.repeated.items():
        ui.note(f"{name}: {earlier}; those not stored again (--force stores them)")
    for problem in result.errors:
        ui.error(problem)
    for row in result.rejected_rows:
        ui.error(f"{row} (row not imported)")
    if result.errors:
        ui.note(f"{len(result.errors)} of {len(files)} file(s) not imported")
    if result.rejected_rows:
        ui.note(f"{len(result.rejected_rows)} row(s) not imported (--strict refuses their files)")
    if result.errors or result.rejected_rows:
        ctx.exit(EXIT_FAILED)
