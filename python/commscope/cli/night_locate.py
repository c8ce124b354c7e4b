"""`schedule --on-failure locate`: the entry's --locate-args, checked when the entry is written
as `sweep locate` will read them, and the locate a failed night runs with them in this
process (workflow/nightly.py)."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import click

from commscope import ui
from commscope.cli.sweep import COMMANDS, request_of
from commscope.errors import UsageError
from commscope.sweep.modes.locate import LOCATE

#: Options of `sweep locate` an entry sets itself.
_LOCATE_OWN = ("--nodes", "--db", "--json", "--label", "--drain")


def locate_words(text: str | None) -> list[str]:
    """--locate-args split as a shell would; the options the entry sets itself refused."""
    if not text:
        return []
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"--locate-args {text!r}: {exc}") from None
    own = [word for word in words if word.split("=", 1)[0] in _LOCATE_OWN]
    if own:
        raise UsageError(f"--locate-args {text!r}: {own[0]} is the entry's to set (the job's nodes, its folder)")
    return words


def locate_request(words: list[str], nodes: int | None):
    """`sweep locate`'s request of an entry's --locate-args words, parsed and checked as the
    command line is (options, values, the rules file, the hosts), nothing measured; `nodes`:
    the job's, where the words name no hosts. A UsageError naming the problem."""
    from commscope.sweep.run import hosts_of  # the measuring code: loaded when a night locates

    # before the words, which may end with `-- CORE_FLAGS`
    given = [*([] if names_hosts(words) or nodes is None else ["--nodes", str(nodes)]), *words]
    try:
        with COMMANDS[LOCATE].make_context("sweep locate", given) as ctx:
            request = request_of(ctx, LOCATE, ctx.params)
        if request.nodes is None:
            hosts_of(request)
    except (click.exceptions.ClickException, UsageError) as exc:
        said = exc.format_message() if isinstance(exc, click.exceptions.ClickException) else str(exc)
        raise UsageError(said) from None
    return request


def names_hosts(words: list[str]) -> bool:
    return bool({"--hosts", "--hostfile"} & {word.split("=", 1)[0] for word in words})


def check_locate_words(text: str, words: list[str], nodes: int | None) -> None:
    """The entry's --locate-args checked when it is written, not on the night it is needed."""
    try:
        locate_request(words, nodes)
    except UsageError as exc:
        raise UsageError(f"--locate-args {text!r}: {exc}") from None


def night_locate(job: Path, label: str, drain: bool, words: list[str]) -> dict:
    """`sweep locate` after a failed check, in this process, on the job's nodes (this
    allocation's SLURM_JOB_NUM_NODES) unless the words name --hosts or --hostfile; what
    check.json records of it (workflow/nightly.py)."""
    from commscope.workflow import nightly as night

    nodes = os.environ.get("SLURM_JOB_NUM_NODES", "") if os.environ.get("SLURM_JOB_NODELIST") else ""
    if not names_hosts(words) and not nodes.isdigit():
        return night.skipped(drain, "not inside a Slurm allocation and no --hosts or --hostfile among --locate-args")
    try:
        request = locate_request(["--label", label, *words], int(nodes) if nodes.isdigit() else None)
    except UsageError as exc:
        ui.error(f"sweep locate: {exc}")
        return {**night.skipped(drain, None), "exit_status": exc.exit_code}
    return night.locate(job, request, drain)


def check_locate_hosts(nodes: int | None, locate_args: list[str], slurm: bool) -> None:
    """--on-failure locate needs hosts to sweep: the job's --nodes (6 or more) under
    scrontab, or --hosts/--hostfile among --locate-args."""
    from commscope.analysis.locate_verdict import MIN_HOSTS

    if names_hosts(locate_args):
        return
    if not slurm:
        raise UsageError(
            "--on-failure locate: a cron entry has no allocation to sweep: give --locate-args "
            "'--hostfile FILE' (or --hosts), or schedule with Slurm's scrontab and --nodes"
        )
    if (nodes or 0) < MIN_HOSTS:
        raise UsageError(
            f"--on-failure locate: sweep locate needs at least {MIN_HOSTS} nodes; "
            f"{f'--nodes {nodes}' if nodes else 'no --nodes'} gives {nodes or 1}: give --nodes {MIN_HOSTS} or more"
        )
