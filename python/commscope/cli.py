"""The `commscope` command: thin subcommands that parse, call the modules, and print."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import platformdirs

from . import __version__, ui
from .errors import EXIT_FAILED, EXIT_INTERRUPTED, CommscopeError

EXIT_STATUS_HELP = """\b
Exit status:
  0  success
  1  a benchmark failed, crashed, timed out or failed validation; a file could
     not be imported; or another error (message on stderr)
  2  usage error: bad option, unknown suite or benchmark, invalid suite file
  3  interrupted by Ctrl-C or SIGTERM (what was measured before is stored)"""


def default_db() -> Path:
    return platformdirs.user_data_path("commscope") / "results.db"


def db_option(hidden: bool = False):
    return click.option(
        "--db", type=click.Path(dir_okay=False, path_type=Path), default=default_db, envvar="COMMSCOPE_DB",
        show_envvar=True, show_default=str(default_db()), hidden=hidden,
        help="Result database (an SQLite file, created when first written). Keep it on a local file system: "
             "SQLite's WAL mode does not work on NFS.")


class RunId(click.ParamType):
    """A run id as `list runs` shows it, or `last` for the newest run."""

    name = "RUN"

    def convert(self, value, param, ctx):
        if isinstance(value, int) or value == "last":
            return value
        if str(value).isdigit():
            return int(value)
        self.fail(f"{value!r} is not a run id (a number from `commscope list runs`, or `last`)", param, ctx)


def _resolve(store, run_id) -> int:
    if run_id != "last":
        return run_id
    last = store.last_run_id()
    if last is None:
        raise CommscopeError(f"no runs stored in {store.path} yet")
    return last


class CommscopeGroup(click.Group):
    """Turns CommscopeError into its message and exit code, and Ctrl-C into exit 3."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except CommscopeError as exc:
            ui.error(str(exc))
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            ui.error("interrupted")
            ctx.exit(EXIT_INTERRUPTED)


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=CommscopeGroup, context_settings=CONTEXT, epilog=EXIT_STATUS_HELP)
@click.version_option(__version__, "-V", "--version", prog_name="commscope")
def main() -> None:
    """Run MPI communication benchmarks (commscope-bench, the OSU Micro-Benchmarks
    successor), keep every result with its provenance in a local database, and
    import results of OMB and IMB.

    \b
    Examples:
      commscope run quick                  # latency, bw, bibw up to 64 KiB on 2 ranks
      commscope run latency bw --np 2 -- -m 1:1M -c
      commscope run procurement --hosts node1,node2
      commscope list runs
      commscope show last
      commscope import osu_latency.out --label "old cluster"
    """


class RunCommand(click.Command):
    """`run` passes everything after `--` to commscope-bench untouched."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            split = args.index("--")
            args, ctx.meta["core_flags"] = args[:split], args[split + 1:]
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [*super().collect_usage_pieces(ctx), "[-- CORE_FLAGS...]"]


@main.command(cls=RunCommand, epilog=EXIT_STATUS_HELP)
@click.argument("targets", metavar="[SUITE|BENCH]...", nargs=-1)
@click.option("--np", type=click.IntRange(min=1), metavar="N",
              help="MPI ranks for every benchmark, overriding the suite's `ranks` (default: the suite's, "
                   "2 for a benchmark named directly).")
@click.option("--launcher", default="auto", envvar="COMMSCOPE_LAUNCHER", show_envvar=True, show_default=True,
              metavar="auto|mpirun|mpiexec|srun|PATH",
              help="How to start the ranks. auto: srun inside a Slurm allocation, otherwise the launcher of "
                   "the MPI commscope-bench is linked with. mpirun means Open MPI's, mpiexec MPICH's (Hydra); "
                   "each is looked up on PATH. A PATH such as /usr/bin/mpiexec.mpich names the program; "
                   "its kind is told from its name or --version.")
@click.option("--hosts", metavar="H1,H2", callback=lambda ctx, param, value: tuple(value.split(",")) if value else (),
              help="Hosts to run on, optionally with slots (node1:4,node2:4). Without slots, ranks are spread "
                   "in blocks over the hosts (one host only for intra-node suites).")
@click.option("--hostfile", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="Hostfile in the launcher's own format (not with --hosts).")
@click.option("--label", metavar="TEXT", help="Label stored with every run, to find and compare them later.")
@click.option("--system", metavar="NAME",
              help="System (cluster) the results belong to. Default: $COMMSCOPE_SYSTEM, the Slurm cluster "
                   "name, or this host's name.")
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True, metavar="K",
              help="Run the whole list K times (interleaved: 1st pass of every benchmark, then 2nd...); "
                   "each pass is stored as its own runs.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Stop a benchmark that runs longer than this; the sizes it measured are stored and the "
                   "run is marked incomplete.")
@click.option("--dry-run", is_flag=True, help="Print the exact command lines and run nothing.")
@click.option("--suite-file", "suite_files", multiple=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Run the suite in this YAML file (repeatable). See `commscope list suites` for the format.")
@db_option()
@click.pass_context
def run(ctx: click.Context, targets, np, launcher, hosts, hostfile, label, system, repeat, timeout, dry_run,
        suite_files, db) -> None:
    """Run benchmark suites or single benchmarks and store the results.

    SUITE is a shipped suite (quick, pt2pt, collectives, full, procurement) or a
    suite file; BENCH is a benchmark of commscope-bench (`commscope list
    benchmarks`). Without either, the quick suite runs. Flags after `--` go to
    every benchmark, after the suite's own (later flags win), e.g.
    `-- -c` to validate the data.

    Each benchmark prints an OSU-style table when it ends and is stored as a
    run with its points and provenance. Benchmarks a suite names but
    commscope-bench does not provide (the collectives, for now) are skipped
    with a warning; the exit status is 1 if nothing could run.

    A benchmark that crashes, exceeds --timeout or is stopped with Ctrl-C
    keeps the sizes it measured, stored in a run marked incomplete with the
    reason. Ctrl-C (or SIGTERM) also ends the whole command: no further
    benchmark starts.
    """
    from .run import RunRequest, run_benchmarks

    request = RunRequest(targets=targets, suite_files=suite_files, np=np, launcher=launcher, hosts=hosts,
                         hostfile=hostfile, label=label, system=system, repeat=repeat, timeout=timeout,
                         dry_run=dry_run, extra_flags=ctx.meta.get("core_flags", []))
    ctx.exit(run_benchmarks(request, db))


@main.group(name="list", context_settings=CONTEXT)
def list_() -> None:
    """List what can be run (benchmarks, suites) or what is stored (runs)."""


@list_.command(name="benchmarks")
@db_option()
def list_benchmarks(db: Path) -> None:
    """Benchmarks commscope-bench provides, and how many runs of each are stored.

    commscope-bench is found through $COMMSCOPE_BENCH, then PATH, then the
    repository's build/default folder.
    """
    from .bench_binary import find_core, list_benchmarks as core_benchmarks
    from .store import Store

    core = find_core()
    counts = {}
    if db.exists():
        with Store(db) as store:
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
    from .suite import builtin_suites, expand, load_suite_file

    for name, path in builtin_suites().items():
        suite = load_suite_file(path)
        click.echo(f"{name}: {suite.description}")
        for entry in expand(path):
            flags = " ".join(entry.flags) or "(defaults)"
            click.echo(f"    {entry.benchmark:<10} {flags:<28} {entry.ranks} ranks, {entry.placement}")


@list_.command(name="runs")
@click.option("--benchmark", metavar="NAME", help="Only runs of this benchmark.")
@click.option("--label", metavar="TEXT", help="Only runs with exactly this label.")
@click.option("--status", type=click.Choice(["complete", "incomplete", "failed"]), help="Only runs with this status.")
@click.option("--limit", type=click.IntRange(min=0), default=50, show_default=True, metavar="N",
              help="Show the N newest runs; 0 shows all.")
@db_option()
def list_runs(benchmark, label, status, limit, db: Path) -> None:
    """Stored runs, newest first: id, start time, benchmark, label, system, ranks,
    nodes, number of sizes, status, and where they came from (run or an import format)."""
    from .store import Store
    from .views import runs_table

    with Store(db, create=False) as store:
        rows = store.run_rows(benchmark=benchmark, label=label, status=status, limit=limit or None)
    if not rows:
        ui.note(f"no runs in {db}")
        return
    ui.table_console().print(runs_table(rows))


@main.command()
@click.argument("run_id", metavar="RUN", type=RunId())
@click.option("--raw", metavar="KIND",
              help="Print a stored raw output instead: jsonl, stdout or stderr of a run; source of an import.")
@db_option()
def show(run_id, raw, db: Path) -> None:
    """Show one run: its provenance, then its OSU-style table.

    RUN is a run id from `commscope list runs`, or `last`.
    """
    from .osutable import render_run
    from .store import Store
    from .views import provenance_lines

    with Store(db, create=False) as store:
        run_id = _resolve(store, run_id)
        run = store.run(run_id)
        outputs = store.raw_outputs(run_id) if raw else {}
    if raw:
        if raw not in outputs:
            raise CommscopeError(f"run {run_id} has no raw output {raw!r}; it has: {', '.join(outputs) or 'none'}")
        sys.stdout.buffer.write(outputs[raw])
        return
    click.echo("\n".join(provenance_lines(run)))
    click.echo()
    click.echo(render_run(run), nl=False)


@main.command()
@click.argument("run_ids", metavar="RUN...", nargs=-1, required=True, type=RunId())
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), required=True,
              help="csv: one row per size with the run's key fields; json: the runs with all provenance "
                   "and points.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True, path_type=Path), metavar="FILE",
              help="Write to FILE instead of stdout.")
@db_option()
def export(run_ids, fmt, output, db: Path) -> None:
    """Export runs as CSV or JSON (format "commscope-export", version 1).

    RUN is a run id from `commscope list runs`, or `last`.
    """
    from .export import FORMATS
    from .store import Store

    with Store(db, create=False) as store:
        runs = [store.run(_resolve(store, run_id)) for run_id in run_ids]
    text = FORMATS[fmt](runs)
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text)
        ui.note(f"wrote {len(runs)} run(s) to {output}")


@main.command()
@click.argument("run_ids", metavar="RUN...", nargs=-1, required=True, type=RunId())
@db_option()
def delete(run_ids, db: Path) -> None:
    """Delete runs with their points and raw outputs. There is no undo.

    RUN is a run id from `commscope list runs`, or `last`.
    """
    from .store import Store

    with Store(db, create=False) as store:
        ids = [_resolve(store, run_id) for run_id in run_ids]
        missing = [run_id for run_id in ids if not store.has_run(run_id)]
        if missing:
            raise CommscopeError(f"no run {', '.join(map(str, missing))} in {db}; nothing deleted")
        store.delete_runs(ids)
    ui.note(f"deleted run{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))}")


@main.command(name="import")
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@click.option("--label", metavar="TEXT",
              help="Label for the imported runs. A run the file itself names (a column of a side-by-side "
                   "table) is labelled 'TEXT: column'; without --label, by the column alone.")
@click.option("--system", metavar="NAME", help="System (cluster) the results were measured on.")
@db_option()
@click.pass_context
def import_(ctx: click.Context, files, label, system, db: Path) -> None:
    """Import result files: OSU Micro-Benchmarks output (5.x-7.x), Intel MPI
    Benchmarks output, OMB tables pasted into Markdown/reStructuredText, and
    commscope-bench JSON documents.

    A file that cannot be read is reported as FILE:LINE: problem and nothing
    from it is stored; the other files are still imported, and the exit
    status is 1.
    """
    from .importer import import_files
    from .store import Store

    with Store(db) as store:
        result = import_files(store, files, label, system, sys.argv)
    for name, ids in result.stored.items():
        ui.note(f"{name}: stored {len(ids)} run(s): {', '.join(map(str, ids))}")
    for problem in result.errors:
        ui.error(problem)
    if result.errors:
        ui.note(f"{len(result.errors)} of {len(files)} file(s) not imported")
        ctx.exit(EXIT_FAILED)
