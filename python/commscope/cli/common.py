"""What the subcommands share: the database option, run ids, option checks, selections
and the `run`-style command class."""

from __future__ import annotations

import functools
import importlib
import math
import sys
import textwrap
from pathlib import Path

import click
import platformdirs

from commscope.errors import EXIT_STATUSES, UsageError
from commscope.records.outputs import write_whole
from commscope.records.textsafe import not_utf8

#: The exit statuses as a --help epilog (``\b``: click keeps its lines as they are).
EXIT_STATUS_HELP = "\b\nExit status:\n" + "\n".join(
    textwrap.fill(meaning, width=78, initial_indent=f"  {code}  ", subsequent_indent="     ")
    for code, meaning in EXIT_STATUSES.items()
)


class GivenPath(click.Path):
    """click's Path, refusing an empty value: Path("") is the current folder, so an empty
    `--textfile ""` or `--output-dir ""` (a variable that was not set) wrote there."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value:
            self.fail("an empty path names nothing: give a file or folder", param, ctx)
        return super().convert(value, param, ctx)


def default_db() -> Path:
    return platformdirs.user_data_path("commscope") / "results.db"


def db_option(hidden: bool = False):
    return click.option(
        "--db",
        type=GivenPath(dir_okay=False, path_type=Path),
        default=default_db,
        envvar="COMMSCOPE_DB",
        show_envvar=True,
        show_default=str(default_db()),
        hidden=hidden,
        help="Result database (an SQLite file, created when first written). Keep it on a local file system: "
        "SQLite's WAL mode does not work on NFS.",
    )


#: Run ids are SQLite integers: 64-bit signed.
LARGEST_RUN_ID = 2**63 - 1


class RunId(click.ParamType):
    """A run id as `list runs` shows it, or `last` for the newest run."""

    name = "RUN"

    def convert(self, value, param, ctx):
        if isinstance(value, int) or value == "last":
            return value
        if str(value).isascii() and str(value).isdigit() and 0 < int(value) <= LARGEST_RUN_ID:  # not '²'
            return int(value)
        self.fail(f"{value!r} is not a run id (a number from `commscope list runs`, or `last`)", param, ctx)


def resolve_run(store, run_id) -> int:
    if run_id != "last":
        return run_id
    last = store.last_run_id()
    if last is None:
        raise UsageError(f"no run last in {store.path}: no runs stored there yet")
    return last


def utf8_text(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Refuse text that is not UTF-8 (bytes Python could only decode with surrogates): it
    cannot be stored, and a run would find that out only after measuring."""
    shown = None if value is None else not_utf8(value)
    if shown is not None:
        raise click.BadParameter(f"not valid UTF-8: '{shown}'; give it in UTF-8", ctx, param)
    return value


class FiniteRange(click.FloatRange):
    """click's FloatRange, refusing nan and inf: it lets NaN through whatever its bounds
    (every comparison with NaN is false), and a NaN threshold or limit silently judges
    nothing. `what` names the value in the refusal."""

    def __init__(self, what: str = "a finite number", **bounds) -> None:
        super().__init__(**bounds)
        self.what = what

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not {self.what}", param, ctx)
        return number


def seconds_range(**bounds) -> FiniteRange:
    return FiniteRange("a number of seconds", **bounds)


def import_size(ctx: click.Context, param: click.Parameter, value: str | int) -> int:
    from commscope.ingest.importer import parse_size

    if isinstance(value, int):
        return value
    try:
        return parse_size(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class RunCommand(click.Command):
    """A command that passes everything after `--` to commscope-bench untouched (run,
    sweep, submit). `delegated` names commands that take over the whole command line when
    its first argument is their name: `run hpl` and `run storage` have options of their own."""

    def __init__(self, *args, delegated: dict[str, click.Command] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.delegated = delegated or {}

    def make_context(self, info_name, args, parent=None, **extra):
        if args and args[0] in self.delegated:
            command = self.delegated[args[0]]
            return command.make_context(f"{info_name} {args[0]}", args[1:], parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            split = args.index("--")
            args, ctx.meta["core_flags"] = args[:split], args[split + 1 :]
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [*super().collect_usage_pieces(ctx), "[-- CORE_FLAGS...]"]


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
        for option in reversed(
            [
                click.argument("selectors", metavar="[RUN_OR_SELECTOR]...", nargs=-1),
                click.option("--benchmark", metavar="NAME", help="Only runs of this benchmark (latency, bw, ...)."),
                click.option(
                    "--since",
                    type=Since,
                    metavar="AGE|DATE",
                    help="Only runs started within this time: 30m, 12h, 7d, 2w, or since an ISO date "
                    "such as 2026-01-31 (UTC).",
                ),
                click.option(
                    "--last-invocation",
                    is_flag=True,
                    help=f"The runs of the most recent `commscope run` command. {otherwise}",
                ),
            ]
        ):
            command = option(command)
        return command

    return decorate


def policy_options(command):
    """The regression rule's knobs (check, report --baseline, plot --ratio-to)."""
    for option in reversed(
        [
            click.option(
                "--tolerance",
                type=Tolerance,
                default="10%",
                show_default=True,
                metavar="PERCENT",
                help="Relative tolerance: a size fails only when it is worse than the baseline by more "
                "than this share of the baseline value (and more than --floor).",
            ),
            click.option(
                "--floor",
                type=Floor,
                metavar="QUANTITY",
                help="Absolute floor below which differences never fail: 0.05us, 500ns, 10MB/s, or a "
                "plain number in the metric's unit. Default: 0.05us for times, 0 otherwise.",
            ),
        ]
    ):
        command = option(command)
    return command


def format_option(choices: list[str], help: str, default: str | None = None, required: bool = False):
    """--format FMT (the parameter `fmt`): how a command writes what it shows."""
    # default=None is not passed on: click (8.3 on) counts a given None as a value, which a
    # required option would then never lack
    shown = {"default": default, "show_default": True} if default is not None else {}
    return click.option("--format", "fmt", type=click.Choice(choices), required=required, help=help, **shown)


def selection_of(selectors, benchmark, since, last_invocation):
    from commscope.store.selection import Selection

    return Selection(selectors=selectors, benchmark=benchmark, since=since, last_invocation=last_invocation)


def analysis_store(db: Path, write: bool = False):
    """The store of an analysis command: read-only unless it writes (baselines). A database
    that cannot be used exits 4 here as everywhere."""
    from commscope.store.db import Store

    return Store(db, create=False, readonly=not write)


def write_output(path: Path, data: bytes | str, make_folder: bool = True, what: str = "") -> None:
    """Write an output file, creating its folder unless told not to; a path that cannot be
    written is a usage error, naming the option it came with (`what`) when given."""
    name = f"{what + ' ' if what else ''}{path}"
    try:
        data = data.encode("utf-8") if isinstance(data, str) else data
        if make_folder:
            path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and not path.is_file():  # /dev/stdout, a FIFO: written as they are
            path.write_bytes(data)
        else:
            write_whole(path, data)  # never left empty or cut by an error
    except UnicodeEncodeError as exc:  # a lone surrogate: bytes that were not UTF-8 when read
        raise UsageError(f"cannot write {name}: its text holds bytes that are not UTF-8 ({exc.reason})") from None
    except OSError as exc:
        raise UsageError(f"cannot write {name}: {exc.strerror or exc}") from None


# -- options that measuring commands share ----------------------------------------------


def name_value_pairs(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """--env K=V, repeatable (submit, schedule): each must name a variable."""
    for item in value:
        if "=" not in item or item.startswith("="):
            raise click.BadParameter(f"{item!r}: give NAME=VALUE", ctx, param)
    return value


def split_commas(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, ...]:
    return tuple(value.split(",")) if value else ()


def host_list(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, ...]:
    """--hosts H1,H2,...: every entry a host name in UTF-8 (a name that is not would be
    stored and break every later report), none empty (`a,` or `a,,b` is a typo)."""
    utf8_text(ctx, param, value)
    hosts = split_commas(ctx, param, value)
    if any(not host.strip() for host in hosts):
        raise click.BadParameter(f"{value!r} holds an empty host name", ctx, param)
    return hosts


def hosts_options(hosts_help: str, hostfile_help: str):
    """--hosts and --hostfile; each command says what its hosts are for."""

    def decorate(command):
        command = click.option(
            "--hostfile", type=GivenPath(exists=True, dir_okay=False), metavar="FILE", help=hostfile_help
        )(command)
        return click.option("--hosts", metavar="H1,H2,...", callback=host_list, help=hosts_help)(command)

    return decorate


def launcher_option(help: str):
    """--launcher (also $COMMSCOPE_LAUNCHER): auto, mpirun, mpiexec, srun or a program's path."""
    return click.option(
        "--launcher",
        default="auto",
        envvar="COMMSCOPE_LAUNCHER",
        show_envvar=True,
        show_default=True,
        metavar="auto|mpirun|mpiexec|srun|PATH",
        help=help,
    )


def bind_option(help: str = ""):
    """--bind core|none: how ranks are pinned, the same words for every launcher."""
    return click.option(
        "--bind",
        type=click.Choice(["core", "none"]),
        default="core",
        show_default=True,
        help="core: pin each rank to a core of its own (Open MPI --bind-to core, Hydra -bind-to core, "
        "srun --cpu-bind=cores), unless there are more ranks than cores; none: leave ranks to the "
        "OS scheduler (a warning says the numbers may wander). The binding asked for and each "
        "rank's CPU set are stored with the run." + (" " + help if help else ""),
    )


def label_system_options(label_help: str, system_help: str):
    """--label and --system, both refused before anything runs when they are not UTF-8."""

    def decorate(command):
        command = click.option("--system", metavar="NAME", callback=utf8_text, help=system_help)(command)
        return click.option("--label", metavar="TEXT", callback=utf8_text, help=label_help)(command)

    return decorate


def repeat_option(help: str, default: int = 1):
    """--repeat K: how many times the benchmarks run (run, submit, overhead)."""
    return click.option(
        "--repeat", type=click.IntRange(min=1), default=default, show_default=True, metavar="K", help=help
    )


def transport_option(help: str):
    """--transport auto|shm|net: how ranks on one node reach each other (run, submit)."""
    return click.option("--transport", type=click.Choice(["auto", "shm", "net"]), metavar="auto|shm|net", help=help)


def timeout_option(help: str):
    return click.option("--timeout", type=seconds_range(min=0, min_open=True), metavar="SECONDS", help=help)


def allow_failing_option(help: str = "A benchmark still passes with up to K failing sizes."):
    """--allow-failing K of the regression verdict (check, report --baseline)."""
    return click.option(
        "--allow-failing", type=click.IntRange(min=0), default=0, show_default=True, metavar="K", help=help
    )


def keep_options(kept: str):
    """--output-dir DIR and --no-store: what a batch job's command takes (run, run hpl, run
    storage); `kept` says what DIR holds."""

    def decorate(command):
        command = click.option(
            "--no-store",
            "no_store",
            is_flag=True,
            help="Do not write the result database (e.g. on compute nodes; keep results with --output-dir).",
        )(command)
        return click.option(
            "--output-dir",
            type=GivenPath(file_okay=False, path_type=Path),
            metavar="DIR",
            help=f"Keep {kept} under DIR. `commscope collect` stores them later; batch jobs made by "
            "`commscope submit` use this with --no-store.",
        )(command)

    return decorate


def suite_file_option(help: str):
    """--suite-file FILE, repeatable: suites from YAML files (run, submit)."""
    return click.option(
        "--suite-file", "suite_files", multiple=True, type=GivenPath(dir_okay=False), metavar="FILE", help=help
    )


# -- what run hpl, run storage and overhead share--------------------------------------------


def show_runs(runs) -> None:
    from commscope.kinds import kind_of

    for run in runs:
        click.echo(kind_of(run).table_text(run, {}))


def tool_run_options(command):
    """--label, --system, --timeout, --dry-run and --db, as `run hpl`, `run storage` and `overhead` take them."""
    command = db_option()(command)
    command = click.option("--dry-run", is_flag=True, help="Print what would run and run nothing.")(command)
    command = timeout_option("Stop the tool when one launch runs longer than this (the run is stored as failed).")(
        command
    )
    return label_system_options(
        "Label stored with every run.",
        "System (cluster) the results belong to. Default: $COMMSCOPE_SYSTEM, the Slurm cluster name, or this host.",
    )(command)


def destination_options(kept: str):
    """tool_run_options and keep_options, handed to the command as one `destination`
    (execute.keep.Destination: the database unless --no-store, --output-dir, the command
    line, --label and --system) beside `timeout` and `dry_run`."""

    def decorate(command):
        @functools.wraps(command)
        def with_destination(*args, label, system, db, output_dir, no_store, **kwargs):
            from commscope.execute.keep import Destination
            from commscope.execute.provenance import default_system

            folder = output_dir.absolute() if output_dir else None
            # the system is named before measuring: a name the store refuses must not cost a run
            destination = Destination(
                None if no_store else db, list(sys.argv), folder, label, system or default_system()
            )
            return command(*args, destination=destination, **kwargs)

        return tool_run_options(keep_options(kept)(with_destination))

    return decorate


def stored_retest(store, run):
    """The serial retest run a sweep recorded, if the store still has it."""
    from commscope.analysis.sweep_verdicts import retest_run_id

    wanted = retest_run_id(run)
    return store.run(wanted) if wanted is not None and store.has_run(wanted) else None
