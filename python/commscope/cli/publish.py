"""The options that publish metrics where operators look (`export`, `history`):
--textfile DIR for node_exporter's textfile collector, --push URL for a Pushgateway, and
--group NAME, which keeps one publication from replacing another's."""

from __future__ import annotations

import functools
import re
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

import click

from commscope import ui
from commscope.cli.common import GivenPath

#: A group names a textfile and a Pushgateway grouping key: letters, digits, _ and -.
GROUP_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _group(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not GROUP_NAME.fullmatch(value):
        raise click.BadParameter(f"{value!r}: use 1-64 letters, digits, _ or -", ctx, param)
    return value


def _url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A Pushgateway's address, whole: http(s)://HOST[:PORT][/PATH], no space or control
    character (a nightly entry writes it into a shell line), no user name or password
    (urllib would send them to the resolver as part of the host, and every message and job
    log would print them)."""
    if value is None:
        return None
    shown = _without_password(value)
    bad = next((char for char in value if not char.isprintable() or char.isspace()), None)
    if bad is not None:
        raise click.BadParameter(f"{shown!r}: an address holds no space or control character ({bad!r})", ctx, param)
    give = "give the Pushgateway's http:// or https:// address (http://HOST:PORT)"
    try:
        parts = urllib.parse.urlsplit(value)
        parts.port  # noqa: B018 (raises ValueError for a port that is not one)
    except ValueError as exc:
        raise click.BadParameter(f"{shown!r}: {exc}; {give}", ctx, param) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise click.BadParameter(f"{shown!r}: {give}", ctx, param)
    if "@" in parts.netloc:
        raise click.BadParameter(
            f"{shown!r}: a user name or password in the address is not supported (it would be printed and kept "
            "in the job's files); give the Pushgateway's address without them",
            ctx,
            param,
        )
    return value


def _without_password(value: str) -> str:
    """The address as it may be printed: what stands before an '@' of its host part hidden."""
    scheme, sep, rest = value.partition("://")
    host, slash, path = rest.partition("/")
    if not sep or "@" not in host:
        return value
    return f"{scheme}://***@{host.rsplit('@', 1)[1]}{slash}{path}"


def publish_options(default_group: str):
    """--textfile, --push and --group (default `default_group`) as the parameters
    `textfile`, `push` and `group`."""

    def decorate(command):
        @click.option(
            "--group",
            metavar="NAME",
            default=default_group,
            show_default=True,
            callback=_group,
            help="What this publication is called: the textfile commscope_NAME.prom and the "
            "Pushgateway grouping key group=NAME. A publication replaces the previous one of its group only.",
        )
        @click.option(
            "--push",
            metavar="URL",
            callback=_url,
            help="Push the metrics to the Pushgateway at URL (job commscope), replacing this group's. "
            "A Pushgateway that is down, not HTTP or slow (10 s for the whole push) is said once; the exit status "
            "is then 1. No user name or password in URL.",
        )
        @click.option(
            "--textfile",
            metavar="DIR",
            type=GivenPath(file_okay=False, path_type=Path),
            help="Write the metrics to DIR/commscope_GROUP.prom for node_exporter's textfile collector "
            "(--collector.textfile.directory), replaced whole by a rename.",
        )
        @functools.wraps(command)
        def wrapped(*args, **kwargs):
            return command(*args, **kwargs)

        return wrapped

    return decorate


def publish(samples: Sequence, textfile: Path | None, push: str | None, group: str) -> bool:
    """Write and push what was asked; says True when everything asked for was done. A
    failure is said once and never undoes the other."""
    from commscope.output.openmetrics import PublishError, push_to, write_textfile

    done = True
    if textfile is not None:
        try:
            path = write_textfile(samples, textfile, f"commscope_{group}")
            ui.note(f"wrote the metrics to {path}")
        except PublishError as exc:
            ui.error(str(exc))
            done = False
    if push is not None:
        try:
            push_to(samples, push, {"group": group})
            ui.note(f"pushed the metrics to {push} (job commscope, group {group})")
        except PublishError as exc:
            ui.error(str(exc))
            done = False
    return done
