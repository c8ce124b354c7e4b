"""The `commscope` command: thin subcommands that parse, call the modules, and print."""

from __future__ import annotations

import importlib
import math
import sqlite3
import sys
from pathlib import Path

import click
import platformdirs

from commscope import __version__
from commscope import ui
from commscope.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_STORE, CommscopeError, UsageError
from commscope.records.suite import MAX_RANKS
from commscope.records.textsafe import terminal

EXIT_STATUS_HELP = """\b
Exit status:
  0  success
  1  a benchmark failed, crashed, timed out or failed validation; a file could
     not be imported; or another error (message on stderr)
  2  usage error: bad option, unknown suite, benchmark or run, invalid suite
     file, an output file that cannot be written
  3  interrupted by Ctrl-C, SIGTERM, SIGHUP or SIGQUIT (what was measured
     before is stored)
  4  the result database cannot be used: missing, damaged, read-only for a
     write, locked by another program, or its disk is full (a run keeps what
     it measured in the unsaved-results folder and says where)"""


def default_db() -> Path:
    return platformdirs.user_data_path("commscope") / "results.db"


def db_option(hidden: bool = False):
    return click.option(
        "--db", type=click.Path(dir_okay=False, path_type=Path), default=default_db, envvar="COMMSCOPE_DB",
        show_envvar=True, show_default=str(default_db()), hidden=hidden,
        help="Result database (an SQLite file, created when first written). Keep it on a local file system: "
             "SQLite's WAL mode does not work on NFS.")


#: Run ids are SQLite integers: 64-bit signed.
LARGEST_RUN_ID = 2**63 - 1


class RunId(click.ParamType):
    """A run id as `list runs` shows it, or `last` for the newest run."""

    name = "RUN"

    def convert(self, value, param, ctx):
        if isinstance(value, int) or value == "last":
            return value
        if str(value).isdigit() and 0 < int(value) <= LARGEST_RUN_ID:
            return int(value)
        self.fail(f"{value!r} is not a run id (a number from `commscope list runs`, or `last`)", param, ctx)


def _resolve(store, run_id) -> int:
    if run_id != "last":
        return run_id
    last = store.last_run_id()
    if last is None:
        raise CommscopeError(f"no runs stored in {store.path} yet")
    return last


def utf8_text(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Refuse text that is not UTF-8 (bytes Python could only decode with surrogates): it
    cannot be stored, and a run would find that out only after measuring."""
    if value is None:
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise click.BadParameter(f"not valid UTF-8: {value.encode('utf-8', 'backslashreplace').decode()!r}; "
                                 "give it in UTF-8", ctx, param) from None
    return value


def finite_seconds(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number of seconds; leave --timeout out for no limit", ctx, param)
    return value


def import_size(ctx: click.Context, param: click.Parameter, value: str | int) -> int:
    from commscope.ingest.importer import parse_size

    if isinstance(value, int):
        return value
    try:
        return parse_size(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


class CommscopeGroup(click.Group):
    """Turns CommscopeError into its message and exit code, an SQLite error that got past the
    store into exit 4, and Ctrl-C into exit 3."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except CommscopeError as exc:
            ui.error(str(exc))
            ctx.exit(exc.exit_code)
        except sqlite3.Error as exc:
            ui.error(f"the result database cannot be used: {exc}")
            ctx.exit(EXIT_STORE)
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
    """`run` passes everything after `--` to commscope-bench untouched; `run hpl` and
    `run storage` are commands of their own (cli/systemwide.py) with their own options."""

    def make_context(self, info_name, args, parent=None, **extra):
        if args and args[0] in DELEGATED_RUNS:
            command = DELEGATED_RUNS[args[0]]
            return command.make_context(f"{info_name} {args[0]}", args[1:], parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            split = args.index("--")
            args, ctx.meta["core_flags"] = args[:split], args[split + 1:]
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [*super().collect_usage_pieces(ctx), "[-- CORE_FLAGS...]"]


@main.command(cls=RunCommand, epilog=EXIT_STATUS_HELP)
@click.argument("targets", metavar="[SUITE|BENCH]...", nargs=-1)
@click.option("--np", type=click.IntRange(min=1, max=MAX_RANKS), metavar="N",
              help="MPI ranks for every benchmark, overriding the suite's `ranks` (default: the suite's, "
                   f"2 for a benchmark named directly). At most {MAX_RANKS:,}: a larger number is a typo that "
                   "would start that many processes.")
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
@click.option("--label", metavar="TEXT", callback=utf8_text,
              help="Label stored with every run, to find and compare them later.")
@click.option("--system", metavar="NAME", callback=utf8_text,
              help="System (cluster) the results belong to. Default: $COMMSCOPE_SYSTEM, the Slurm cluster "
                   "name, or this host's name.")
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True, metavar="K",
              help="Run the whole list K times (interleaved: 1st pass of every benchmark, then 2nd...); "
                   "each pass is stored as its own runs.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS", callback=finite_seconds,
              help="Stop a benchmark that runs longer than this; the sizes it measured are stored and the "
                   "run is marked incomplete. It also bounds commscope-bench --list, asked before running.")
@click.option("--transport", type=click.Choice(["auto", "shm", "net"]), metavar="auto|shm|net",
              help="How ranks on one node reach each other. net: through the network stack (TCP), as if on "
                   "different nodes; shm: shared memory; auto: as the MPI library chooses. Sets the library's "
                   "own variables (Open MPI: OMPI_MCA_pml/btl; MPICH: MPIR_CVAR_NOLOCAL with UCX_TLS or "
                   "FI_PROVIDER), shown by --dry-run. Default: each suite entry's `transport`, else auto.")
@click.option("--bind", type=click.Choice(["core", "none"]), default="core", show_default=True,
              help="core: pin each rank to a core of its own (Open MPI --bind-to core, Hydra -bind-to core, "
                   "srun --cpu-bind=cores), unless there are more ranks than cores; none: leave ranks to the "
                   "OS scheduler (a warning says the numbers may wander). The binding asked for and each "
                   "rank's CPU set are stored with the run.")
@click.option("--dry-run", is_flag=True, help="Print the exact command lines and run nothing.")
@click.option("--wrap", metavar="'CMD ...'",
              help="Run every benchmark under this tool (profiler, tracer, `perf stat`, valgrind), placed between "
                   "the launcher and commscope-bench: mpirun -np 2 CMD ... commscope-bench BENCH. Split like a "
                   "shell would, never run by one; stored in the run's provenance. See `commscope overhead`.")
@click.option("--suite-file", "suite_files", multiple=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Run the suite in this YAML file (repeatable). See `commscope list suites` for the format.")
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Keep every launch's files in a numbered folder under DIR: meta.json, the core's JSONL "
                   "(core.jsonl), stdout, stderr, result.json. `commscope collect` stores them later; batch "
                   "jobs made by `commscope submit` use this with --no-store.")
@click.option("--no-store", "no_store", is_flag=True,
              help="Do not write the result database (e.g. on compute nodes; keep results with --output-dir).")
@db_option()
@click.pass_context
def run(ctx: click.Context, targets, np, launcher, hosts, hostfile, label, system, repeat, timeout, transport,
        bind, dry_run, wrap, suite_files, output_dir, no_store, db) -> None:
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
    provenance. Benchmarks a suite names but this
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

    wrappers = ((parse_wrapper(wrap),) if wrap is not None else ((),))
    request = RunRequest(targets=targets, suite_files=suite_files, np=np, launcher=launcher, hosts=hosts,
                         hostfile=hostfile, label=label, system=system, repeat=repeat, timeout=timeout,
                         bind=bind, dry_run=dry_run, extra_flags=ctx.meta.get("core_flags", []),
                         wrappers=wrappers, transport=transport,
                         output_dir=output_dir.absolute() if output_dir else None, store=not no_store)
    ctx.exit(run_benchmarks(request, db))


@main.command(cls=RunCommand, epilog=EXIT_STATUS_HELP)
@click.argument("mode", type=click.Choice(["one-to-all", "all-pairs", "intra"]))
@click.option("--hosts", metavar="H1,H2,...", callback=lambda ctx, param, value: tuple(value.split(",")) if value else (),
              help="The hosts; one rank runs on each (intra: the one host, default this one).")
@click.option("--hostfile", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="The hosts, one a line (first word; '#' comments).")
@click.option("--from", "source", metavar="HOST", help="one-to-all: the host measured to every other "
              "(default: the first host).")
@click.option("--np", type=click.IntRange(min=2), metavar="N", help="intra: ranks on the host, each pinned to a "
              "core (default: this machine's cores).")
@click.option("--metric", "metrics", default="latency,bw,bibw", show_default=True, metavar="LIST",
              help="What each pair measures: latency, bw, bibw (comma-separated).")
@click.option("--rules", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="FILE",
              help="YAML thresholds of the flags per metric (see docs/sweep.md).")
@click.option("--no-retest", is_flag=True, help="Flag the suspects as found, without measuring them again alone.")
@click.option("--baseline", type=RunId(), metavar="RUN", help="A stored sweep to compare with, pair by pair.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write the matrix, the flags and their evidence as JSON.")
@click.option("--plot", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Write a heatmap per metric (PNG) into DIR.")
@click.option("--launcher", default="auto", envvar="COMMSCOPE_LAUNCHER", show_envvar=True, show_default=True,
              metavar="auto|mpirun|mpiexec|srun|PATH", help="How to start the ranks (as for `run`).")
@click.option("--label", metavar="TEXT", help="Label stored with the sweep's runs.")
@click.option("--system", metavar="NAME", help="System (cluster) name stored with the runs.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Stop a launch that runs longer.")
@db_option()
@click.pass_context
def sweep(ctx: click.Context, mode, hosts, hostfile, source, np, metrics, rules, no_retest, baseline, json_out, plot,
          launcher, label, system, timeout, db) -> None:
    """Measure every pair of hosts in one job and name the bad node or link.

    \b
    one-to-all  the --from host (or the first) with every other host, one pair at a time
    all-pairs   every pair of hosts; a round's pairs at once (n-1 rounds)
    intra       every pair of cores of one host, ranks pinned

    The sweep is stored as one run, every pair a point. Suspect pairs (far from
    the other pairs by median and MAD, and beyond a margin: bandwidth below 90 %
    of the median, latency above twice the minimum) are measured again one at a
    time; what is still bad alone is flagged: a host bad with most partners is
    a bad node, a single bad pair a bad link. Flags after `--` go to
    commscope-bench pairs (e.g. -- --bw-size 4M -i 50).

    Exit status 1 when something is flagged (or worse than --baseline).
    """
    from commscope.analysis.sweep import PAIR_METRICS, Policy
    from commscope.sweep.run import SweepRequest, run_sweep

    chosen = tuple(name.strip() for name in metrics.split(",") if name.strip())
    unknown = [name for name in chosen if name not in PAIR_METRICS]
    if unknown or not chosen:
        raise UsageError(f"--metric {metrics}: choose from {', '.join(PAIR_METRICS)}")
    if rules is not None:
        from commscope.analysis.sweep_rules import load_rules
        policy = load_rules(rules)
    else:
        policy = Policy()
    if baseline == "last":
        raise UsageError("--baseline needs a run id")
    request = SweepRequest(mode=mode, hosts=hosts, hostfile=hostfile, source=source, np=np, metrics=chosen,
                           policy=policy, launcher=launcher, label=label, system=system, timeout=timeout,
                           retest=not no_retest, baseline=baseline, json_out=json_out, plot=plot,
                           core_flags=ctx.meta.get("core_flags", []))
    ctx.exit(run_sweep(request, db))


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
    from commscope.execute.core import find_core, list_benchmarks as core_benchmarks
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
    from commscope.records.suite import builtin_suites, expand, load_suite_file

    for name, path in builtin_suites().items():
        suite = load_suite_file(path)
        click.echo(f"{name}: {suite.description}")
        for entry in expand(path):
            flags = " ".join(entry.flags) or "(defaults)"
            extra = "".join(f", {text}" for text in (entry.transport and f"transport {entry.transport}",
                                                     entry.label and f"label {entry.label!r}") if text)
            click.echo(f"    {entry.benchmark:<10} {flags:<28} {entry.ranks} ranks, {entry.placement}{extra}")


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
    from commscope.store.db import Store
    from commscope.output.views import runs_table

    with Store(db, readonly=True) as store:
        summaries = store.summaries(benchmark=benchmark, label=label, status=status, limit=limit or None)
    if not summaries:
        ui.note(f"no runs in {db}")
        return
    ui.table_console().print(runs_table(summaries))


@main.command()
@click.argument("run_id", metavar="RUN", type=RunId())
@click.option("--raw", metavar="KIND",
              help="Print a stored raw output instead: jsonl, stdout (the core's OSU table) or stderr of a run; "
                   "source (the whole file) or table (the run's own OMB table in it) of an import.")
@db_option()
def show(run_id, raw, db: Path) -> None:
    """Show one run: its provenance, then its OSU table.

    RUN is a run id from `commscope list runs`, or `last`. For a run of
    commscope-bench the table is the core's own text as it printed it; for an
    imported OMB table, its lines as the file has them; otherwise it is
    rendered from the stored points.
    """
    from commscope.analysis.repeats import siblings
    from commscope.output.views import osu_text, provenance_lines, repeat_lines
    from commscope.records.text import precision_line
    from commscope.store.db import Store

    with Store(db, readonly=True) as store:
        run_id = _resolve(store, run_id)
        run = store.run(run_id)
        outputs = store.raw_outputs(run_id)
        # a launch of `run --repeat`: the median across its repeats follows its own table
        same = [store.run(summary.id) for summary in store.summaries(invocation_id=run.invocation_id)
                if summary.id != run_id and summary.benchmark == run.benchmark] if run.invocation_id else []
        group = siblings(run, [run, *same])
    if raw:
        if raw not in outputs:
            raise UsageError(f"run {run_id} has no raw output {raw!r}; it has: {', '.join(outputs) or 'none'}")
        sys.stdout.buffer.write(outputs[raw])
        return
    click.echo(terminal("\n".join(provenance_lines(run))))
    click.echo()
    text = terminal(osu_text(run, outputs))
    click.echo(text, nl=not text.endswith("\n"))
    line = precision_line(run)
    if line:
        click.echo(f"# {line}")
    if len(group) > 1:
        click.echo()
        click.echo("\n".join(repeat_lines(group)))


@main.command()
@click.argument("run_ids", metavar="RUN...", nargs=-1, required=True, type=RunId())
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), required=True,
              help="csv: one row per size with the run's key fields; json: the runs with all provenance "
                   "and points.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write to FILE instead of stdout (its folder must exist).")
@db_option()
def export(run_ids, fmt, output, db: Path) -> None:
    """Export runs as CSV or JSON (format "commscope-export", version 1).

    RUN is a run id from `commscope list runs`, or `last`.
    """
    from commscope.output.export import FORMATS
    from commscope.store.db import Store

    with Store(db, readonly=True) as store:
        runs = [store.run(_resolve(store, run_id)) for run_id in run_ids]
    text = FORMATS[fmt](runs)
    if output is None:
        click.echo(text, nl=False)
    else:
        _write(output, text, make_folder=False)
        ui.note(f"wrote {len(runs)} run(s) to {output}")


@main.command()
@click.argument("run_ids", metavar="RUN...", nargs=-1, required=True, type=RunId())
@db_option()
def delete(run_ids, db: Path) -> None:
    """Delete runs with their points and raw outputs. There is no undo.

    RUN is a run id from `commscope list runs`, or `last`.
    """
    from commscope.store.db import Store

    with Store(db, create=False) as store:
        ids = [_resolve(store, run_id) for run_id in run_ids]
        missing = [run_id for run_id in ids if not store.has_run(run_id)]
        if missing:
            raise UsageError(f"no run {', '.join(map(str, missing))} in {db}; nothing deleted")
        store.delete_runs(ids)
    ui.note(f"deleted run{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))}")


@main.command(name="import")
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@click.option("--label", metavar="TEXT", callback=utf8_text,
              help="Label for the imported runs. A run the file itself names (a column of a side-by-side "
                   "table) is labelled 'TEXT: column'; without --label, by the column alone.")
@click.option("--system", metavar="NAME", callback=utf8_text, help="System (cluster) the results were measured on.")
@click.option("--max-size", metavar="SIZE", default="64M", show_default=True, envvar="COMMSCOPE_IMPORT_MAX_SIZE",
              show_envvar=True, callback=import_size,
              help="Refuse files larger than this (K, M, G: binary units), rather than read a runaway log or "
                   "/dev/zero into memory.")
@click.option("--force", is_flag=True,
              help="Import files whose content is already stored (by SHA-256 of the bytes), storing their runs again.")
@db_option()
@click.pass_context
def import_(ctx: click.Context, files, label, system, max_size, force, db: Path) -> None:
    """Import result files: OSU Micro-Benchmarks output (5.x-7.x), Intel MPI
    Benchmarks output, OMB tables pasted into Markdown/reStructuredText, JUBE
    result tables (`jube result`, pretty or csv), and commscope-bench JSON
    documents.

    A file that cannot be read is reported as FILE:LINE: problem and nothing
    from it is stored; the other files are still imported, and the exit
    status is 1.

    FILE may also be a run that `commscope run` measured but could not store:
    the .jsonl file it names in the unsaved-results folder, read with the
    .run.json beside it (label, system, launcher, repeat index...).

    A file whose bytes are already stored (imported before, under any name) is
    skipped with a message naming its runs; --force stores it again.
    """
    from commscope.ingest.importer import import_files
    from commscope.store.db import Store

    with Store(db) as store:
        result = import_files(store, files, label, system, sys.argv, max_size, force=force)
    for name, ids in result.stored.items():
        ui.note(f"{name}: stored {len(ids)} run(s): {', '.join(map(str, ids))}")
    for name, earlier in result.skipped.items():
        ui.note(f"{name}: already imported (same content as {earlier}); not stored again (--force stores it)")
    for problem in result.errors:
        ui.error(problem)
    if result.errors:
        ui.note(f"{len(result.errors)} of {len(files)} file(s) not imported")
        ctx.exit(EXIT_FAILED)


# -- analysis: compare, baseline, check, model, plot, report ------------------------

class ParsedValue(click.ParamType):
    """An option value read by one of the analysis parsers. The parser's module is imported
    on first use, so commands that never take the option start fast; its ValueError
    becomes click's usage error (exit 2, the value named)."""

    def __init__(self, name: str, module: str, parser: str) -> None:
        self.name, self.module, self.parser = name, module, parser

    def convert(self, value, param, ctx):
        if not isinstance(value, str):  # a default that is already converted
            return value
        parse = getattr(importlib.import_module(self.module), self.parser)
        try:
            return parse(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


Since = ParsedValue("AGE|DATE", "commscope.store.selection", "parse_since")  # 7d, 12h, 30m, 2w or an ISO date
Tolerance = ParsedValue("PERCENT", "commscope.analysis.check", "parse_tolerance")
Floor = ParsedValue("QUANTITY", "commscope.analysis.check", "parse_floor")


SELECTORS_HELP = """\b
RUN_OR_SELECTOR is a run id, `last`, a label, a system name, or one of
label:TEXT, system:NAME, invocation:N, job:ID (a Slurm job's runs); each adds
the runs it matches."""


def selection_options(otherwise: str = "Either this or a selector is needed."):
    """RUN_OR_SELECTOR... with the filters every analysis command takes."""
    def decorate(command):
        for option in reversed([
            click.argument("selectors", metavar="[RUN_OR_SELECTOR]...", nargs=-1),
            click.option("--benchmark", metavar="NAME", help="Only runs of this benchmark (latency, bw, ...)."),
            click.option("--since", type=Since, metavar="AGE|DATE",
                         help="Only runs started within this time: 30m, 12h, 7d, 2w, or since an ISO date "
                              "such as 2026-01-31 (UTC)."),
            click.option("--last-invocation", is_flag=True,
                         help=f"The runs of the most recent `commscope run` command. {otherwise}"),
        ]):
            command = option(command)
        return command
    return decorate


def policy_options(command):
    """The regression rule's knobs (check, report --baseline, plot --ratio-to)."""
    for option in reversed([
        click.option("--tolerance", type=Tolerance, default="10%", show_default=True, metavar="PERCENT",
                     help="Relative tolerance: a size fails only when it is worse than the baseline by more "
                          "than this share of the baseline value (and more than --floor)."),
        click.option("--floor", type=Floor, metavar="QUANTITY",
                     help="Absolute floor below which differences never fail: 0.05us, 500ns, 10MB/s, or a "
                          "plain number in the metric's unit. Default: 0.05us for times, 0 otherwise."),
    ]):
        command = option(command)
    return command


def _selection(selectors, benchmark, since, last_invocation):
    from commscope.store.selection import Selection

    return Selection(selectors=selectors, benchmark=benchmark, since=since, last_invocation=last_invocation)


def _analysis_store(db: Path, write: bool = False):
    """The store of an analysis command: read-only unless it writes (baselines). A database
    that cannot be used exits 4 here as everywhere."""
    from commscope.store.db import Store

    return Store(db, create=False, readonly=not write)


def _write(path: Path, data: bytes | str, make_folder: bool = True) -> None:
    """Write an output file, creating its folder; a path that cannot be written is a usage error."""
    try:
        if make_folder:
            path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            path.write_text(data, encoding="utf-8")
        else:
            path.write_bytes(data)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


@main.command(epilog=SELECTORS_HELP)
@selection_options(otherwise="Without it and without selectors, every stored run is compared.")
@click.option("--metric", metavar="NAME",
              help="Metric to compare: latency, bw, rate, or a stored name such as p99_us. Default: the main "
                   "metric of the runs, which must be the same for all.")
@click.option("--ratio", is_flag=True, help="Add a column per run with its ratio to the first run.")
@click.option("--pdiff", is_flag=True, help="Add a column per run with its percent difference to the first run.")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "csv", "json"]), default="table",
              show_default=True, help="table for the terminal; markdown, csv or json to paste or process.")
@click.option("-o", "--output", metavar="FILE", help="Write to FILE instead of stdout (not with --format table).")
@click.option("--peak-per-core", type=click.FloatRange(min=0, min_open=True), metavar="GFLOPS",
              help="HPL runs: the theoretical peak of one core (Gflop/s); adds the peak and the efficiency.")
@db_option()
def compare(selectors, benchmark, since, last_invocation, metric, ratio, pdiff, fmt, output, peak_per_core,
            db: Path) -> None:
    """Compare runs side by side: a row per message size, a column per run
    (headed by its label, else its system).

    Runs of different benchmarks can be compared where they share the metric
    (bw against mbw_mr bandwidth, latency against a collective's latency).

    HPL, hpcc and storage runs print seed 001's tables instead: a row per HPL
    result (T/V, cores, memory per node, N, NB, P, Q, time, Gflops), and per
    storage run the per-process and total throughput over the process count.
    """
    from commscope.output.comparison import FORMATS
    from commscope.analysis.compare import compare as build
    from commscope.store.selection import select_runs
    from commscope.output.views import comparison_table

    with _analysis_store(db) as store:
        runs = select_runs(store, _selection(selectors, benchmark, since, last_invocation))
    if _compare_systemwide(runs, fmt, output, peak_per_core):
        return
    comparison = build(runs, metric, ratio=ratio, pdiff=pdiff)
    if fmt == "table":
        if output:
            raise UsageError("--output needs --format markdown, csv or json")
        console = ui.table_console()
        console.print(terminal(comparison.caption()), markup=False, highlight=False)
        console.print(comparison_table(comparison))
        return
    text = FORMATS[fmt](comparison)
    if output:
        _write(Path(output), text)
        ui.note(f"wrote {output}")
    else:
        click.echo(text, nl=False)


@main.group(context_settings=CONTEXT)
def baseline() -> None:
    """Name sets of runs that `commscope check` compares new runs against."""


@baseline.command(name="set", epilog=SELECTORS_HELP)
@click.argument("name")
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
    with _analysis_store(db, write=True) as store:
        runs = select_runs(store, _selection(selectors, benchmark, since, last_invocation))
        previous = store.set_baseline(name, [run.id for run in runs])
    ids = ", ".join(str(run.id) for run in runs)
    ui.note(f"baseline {name!r} is run{'s' if len(runs) > 1 else ''} {ids}"
            + (f" (was {', '.join(map(str, previous)) or 'empty'})" if previous is not None else ""))


@baseline.command(name="list")
@db_option()
def baseline_list(db: Path) -> None:
    """Baselines with their creation time and runs."""
    with _analysis_store(db) as store:
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
    with _analysis_store(db, write=True) as store:
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


@main.command(cls=CheckCommand, epilog=SELECTORS_HELP + """\n
\b
Exit status:
  0  every benchmark passes
  1  a regression: more sizes fail than --allow-failing
  2  usage error: bad option, unknown run or baseline, nothing to compare
  4  the result database cannot be used (missing, damaged, ...)""")
@selection_options()
@click.option("--baseline", "baseline_name", metavar="NAME", required=True,
              help="Baseline to compare with (`commscope baseline set`).")
@policy_options
@click.option("--allow-failing", type=click.IntRange(min=0), default=0, show_default=True, metavar="K",
              help="A benchmark still passes with up to K failing sizes.")
@click.option("--metric", metavar="NAME", help="Metric to check (default: each benchmark's main metric).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="table for reading; json: the verdict of every size as a JSON document on stdout.")
@click.option("--junit", metavar="FILE",
              help="Also write JUnit XML: a test case per benchmark x size, failing sizes as failures with "
                   "their evidence (GitLab, Jenkins and GitHub show it as a test report).")
@db_option()
@click.pass_context
def check(ctx: click.Context, selectors, benchmark, since, last_invocation, baseline_name, tolerance, floor,
          allow_failing, metric, fmt, junit, db: Path) -> None:
    """Check new runs against a baseline, size by size.

    Per message size, the median of the new runs is compared with the median
    of the baseline's runs of the same benchmark. A size fails when it is
    worse (higher latency, lower bandwidth) by more than max(tolerance x
    baseline, floor) and, where both sides have repeats or per-size sample
    statistics, the difference is significant (one-sided, 5 %: Mann-Whitney U
    with 5+ repeats a side, a bootstrap CI of the ratio of medians with 2-4,
    else Welch's t-test on the stored sample statistics). A size the baseline
    has and the new runs lack fails too.
    """
    from commscope.analysis.check import Policy, check as judge
    from commscope.store.selection import select_runs
    from commscope.output.views import verdict_table

    if not selectors and not last_invocation:
        raise UsageError("name the runs to check (ids, labels, ...) or give --last-invocation")
    with _analysis_store(db) as store:
        runs = select_runs(store, _selection(selectors, benchmark, since, last_invocation))
        base_ids = store.baseline_run_ids(baseline_name)
        if base_ids is None:
            raise UsageError(f"no baseline {baseline_name!r} in {db} (see `commscope baseline list`)")
        if not base_ids:
            raise UsageError(f"baseline {baseline_name!r} has no runs left (they were deleted)")
        base_runs = [store.run(run_id) for run_id in base_ids]
    result = judge(baseline_name, base_runs, runs, Policy(tolerance, floor, allow_failing), metric)
    if junit:
        from commscope.output.ci import junit_xml

        _write(Path(junit), junit_xml(result))
    if fmt == "json":
        from commscope.output.ci import check_json

        click.echo(check_json(result), nl=False)
        ctx.exit(EXIT_OK if result.passed else EXIT_FAILED)
    console = ui.table_console()
    for curve in result.curves:
        console.print(curve.summary(), markup=False, highlight=False)
        console.print(verdict_table(curve))
        console.print()
    for run in result.unmatched:
        ui.warn(f"run {run.id} ({run.benchmark}) not checked: baseline {baseline_name!r} has no {run.benchmark} runs")
    click.echo(f"{'PASS' if result.passed else 'FAIL'} against baseline {baseline_name!r}: "
               + "; ".join(curve.summary() for curve in result.curves))
    ctx.exit(EXIT_OK if result.passed else EXIT_FAILED)


@main.command(epilog=SELECTORS_HELP)
@selection_options()
@click.option("--each", is_flag=True,
              help="Fit every run on its own. By default, runs of one benchmark with the same label and system "
                   "(repeats) are fitted as one curve: their per-size median.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="table for reading; json for scripts.")
@db_option()
def model(selectors, benchmark, since, last_invocation, each, fmt, db: Path) -> None:
    """Fit latency(size) = α + size/β (Hockney) per protocol regime.

    The eager/rendezvous break points are found by segmented least squares
    on relative residuals, the number of regimes by BIC. Reports α (µs),
    the asymptotic bandwidth β (MB/s), the half-performance size n½ and
    the fit quality. Bandwidth runs are turned into time per message first.
    """
    import json

    from commscope.analysis.compare import repeat_groups
    from commscope.store.selection import select_runs
    from commscope.analysis.model import fits as fit_each
    from commscope.output.views import MODEL_HEADER, model_cells, model_headline, rich_table

    if not selectors and not last_invocation:
        raise UsageError("name the runs to model (ids, labels, ...) or give --last-invocation")
    with _analysis_store(db) as store:
        runs = select_runs(store, _selection(selectors, benchmark, since, last_invocation))
    groups = [[run] for run in runs] if each else repeat_groups(runs)
    fitted = [(group, result) for group in groups for result in fit_each(group)]
    if fmt == "json":
        click.echo(json.dumps([result.to_dict() for _, result in fitted], indent=2, ensure_ascii=False))
        return
    console = ui.table_console()
    for group, result in fitted:
        run = group[0]
        which = f"run {run.id}" if len(group) == 1 else \
            f"runs {', '.join(str(r.id) for r in group)} (median of {len(group)} repeats)"
        name = run.label or run.system
        console.print(f"{which}: {run.benchmark}{result.axes.suffix()}" + (f" ({name})" if name else ""), markup=False,
                      highlight=False)
        for key, value in model_headline(result):
            console.print(f"  {key:<18} {value}", markup=False, highlight=False)
        console.print(rich_table(MODEL_HEADER, model_cells(result), left=2))
        console.print()


@main.command(epilog=SELECTORS_HELP)
@selection_options()
@click.option("-o", "--output", metavar="FILE", required=True, help="Figure to write: FILE.png or FILE.svg.")
@click.option("--metric", metavar="NAME", help="Metric to plot (default: the runs' main metric).")
@click.option("--ratio-to", "ratio_to", metavar="RUN",
              help="Add a panel with every run's ratio to this run (an id or selector naming one run), the "
                   "tolerance band and the sizes outside it.")
@click.option("--band", type=click.Choice(["ci", "minmax", "none"]), default="ci", show_default=True,
              help="Shade around each line: the 95% confidence interval, the fastest and slowest sample, or "
                   "nothing. Imported runs without statistics get no band.")
@policy_options
@click.option("--title", metavar="TEXT", help="Title of the figure (default: benchmarks and metric).")
@db_option()
def plot(selectors, benchmark, since, last_invocation, output, metric, ratio_to, band, tolerance, floor, title,
         db: Path) -> None:
    """Plot runs over message size (log2 axis), a line per run with its band."""
    from commscope.analysis.compare import common_metric
    from commscope.store.selection import Selection, select_runs
    from commscope.output.plot import figure, format_of, render

    path = Path(output)
    fmt = format_of(path)
    if not selectors and not last_invocation and not ratio_to:
        raise UsageError("name the runs to plot (ids, labels, ...) or give --last-invocation")
    with _analysis_store(db) as store:
        runs = select_runs(store, _selection(selectors, benchmark, since, last_invocation)) \
            if selectors or last_invocation else []
        reference = None
        if ratio_to:
            matches = select_runs(store, Selection(selectors=(ratio_to,)))
            if len(matches) != 1:
                raise UsageError(f"--ratio-to {ratio_to!r} matches {len(matches)} runs; name one run")
            reference = matches[0]
    chosen = common_metric([*runs, *([reference] if reference else [])], metric)
    fig = figure(runs, chosen, band=band, ratio_to=reference, tolerance=tolerance,
                 floor=floor.in_unit_of(chosen) if floor else None, title=title)
    _write(path, render(fig, fmt))
    ui.note(f"wrote {path}")


@main.command(epilog=SELECTORS_HELP)
@selection_options(otherwise="Either this, a selector or --all is needed.")
@click.option("--all", "all_runs", is_flag=True, help="Report on every run in the database.")
@click.option("-o", "--output", metavar="FILE", required=True, help="HTML file to write (self-contained).")
@click.option("--markdown", metavar="FILE", help="Also write a Markdown report, its figures as SVG files in "
                                                 "FILE-figures/ beside it.")
@click.option("--baseline", "baseline_name", metavar="NAME", help="Also check the runs against this baseline.")
@policy_options
@click.option("--allow-failing", type=click.IntRange(min=0), default=0, show_default=True, metavar="K",
              help="With --baseline: a benchmark still passes with up to K failing sizes.")
@click.option("--title", default="commscope report", show_default=True, metavar="TEXT", help="Title of the report.")
@db_option()
def report(selectors, benchmark, since, last_invocation, all_runs, output, markdown, baseline_name, tolerance,
           floor, allow_failing, title, db: Path) -> None:
    """Write an HTML report: summary (headline numbers, model fit, verdict
    against a baseline), warnings (incomplete runs, unstable points,
    oversubscribed hosts), per benchmark a figure, the side-by-side table
    and model fits, and every run's provenance.

    The page is one file that needs no network. After `commscope run`,
    `commscope report --last-invocation -o results/report.html` reports on
    what it just measured.
    """
    from commscope.analysis.check import Policy, check as judge
    from commscope.store.selection import select_runs
    from commscope.output.report import build, render_html, render_markdown

    if not selectors and not last_invocation and not all_runs:
        raise UsageError("name the runs to report on (ids, labels, ...), or give --last-invocation or --all")
    if all_runs and (selectors or last_invocation):
        raise UsageError("--all reports on every run: give it without selectors or --last-invocation")
    with _analysis_store(db) as store:
        runs = select_runs(store, _selection(selectors, benchmark, since, last_invocation))
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
    content = build(runs, str(db), result, title=title)
    _write(Path(output), render_html(content))
    written = [output]
    if markdown:
        for path, data in render_markdown(content, Path(markdown)).items():
            _write(path, data)
        written.append(markdown)
    ui.note(f"wrote {' and '.join(written)} ({len(runs)} runs)")


def _compare_systemwide(runs, fmt: str, output: str | None, peak_per_core: float | None) -> bool:
    """`compare` of HPL, hpcc and storage runs: seed 001's tables. True when that was all."""
    from commscope.analysis.systemwide import FORMATS, is_system_run, system_tables
    from commscope.output.systemwide import text_table

    system = [run for run in runs if is_system_run(run)]
    if not system:
        if peak_per_core:
            raise UsageError("--peak-per-core applies to HPL runs, and none is selected")
        return False
    if len(system) != len(runs):
        raise UsageError("HPL, hpcc and storage runs are tabulated apart from network benchmarks; select one "
                         "kind (--benchmark hpl, --benchmark storage, ...)")
    tables = system_tables(system, peak_per_core)
    if fmt == "table":
        if output:
            raise UsageError("--output needs --format markdown, csv or json")
        click.echo("\n".join(text_table(table) for table in tables), nl=False)
        return True
    text = FORMATS[fmt](tables)
    if output:
        _write(Path(output), text)
        ui.note(f"wrote {output}")
    else:
        click.echo(text, nl=False)
    return True


# -- the cluster beside the network, and the cost of a tool ---------------------------

from commscope.cli.systemwide import DELEGATED, hpl, overhead, storage  # noqa: E402  (needs db_option above)

DELEGATED_RUNS = {"hpl": hpl, "storage": storage}
assert set(DELEGATED_RUNS) == set(DELEGATED)
main.add_command(overhead)

# -- the installation: where things are, and an environment module ------------------

from commscope.cli.install import info, modulefile  # noqa: E402

main.add_command(info)
main.add_command(modulefile)
