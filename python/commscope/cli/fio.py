"""`commscope run storage`: fio over 1..K processes for the standard-benchmarks page's four workloads; `run`
hands `storage` to the command here (RunCommand's delegation)."""

from __future__ import annotations

from pathlib import Path

import click

from commscope.cli.common import (
    GivenPath,
    destination_options,
    launcher_option,
    seconds_range,
    show_runs,
    split_commas,
)
from commscope.errors import EXIT_OK
from commscope.records.benchmarks import STORAGE_BENCHMARK


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


@click.command(
    name=STORAGE_BENCHMARK, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.option(
    "--dir",
    "directory",
    required=True,
    type=GivenPath(file_okay=False, path_type=Path),
    metavar="PATH",
    help="Folder on the file system to test. Created (and removed afterwards) if missing; an existing "
    "folder must be empty unless --allow-nonempty.",
)
@_storage_option(
    "--size",
    "1G",
    "parse_bytes",
    "S",
    "Data written per process count, split among the processes (the standard-benchmarks page: 512G, so 39G each "
    "over 13). Binary units: 4k, 1M, 512G.",
)
@_storage_option("--block", "1M", "parse_bytes", "B", "Block size of the sequential workloads.")
@_storage_option("--rand-block", "4k", "parse_bytes", "B", "Block size of the random workloads (IOPS).")
@_storage_option(
    "--procs", "1,2,4,8,13", "parse_counts", "LIST", "Process (client) counts, each process with its own file."
)
@click.option(
    "--runtime",
    type=seconds_range(min=0, min_open=True),
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
@destination_options("every run as files (NAME.jsonl, NAME.run.json with its points, the tool's own output)")
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
    timeout,
    dry_run,
    destination,
) -> None:
    """Measure a file system with fio: sequential write and read throughput
    (MB/s) and random write and read IOPS, per process and in total, at each
    process count (the standard-benchmarks page's four tables).

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
    stored = execute_fio(request, destination)
    show_runs(stored.runs)
    ctx.exit(summary(stored, destination.db))
