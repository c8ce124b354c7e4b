"""Option values that click's types do not check: names that must not be blank, the
nccl-tests program `import --benchmark` takes, and --time-limit's duration."""

from __future__ import annotations

import click

from commscope.cli.common import utf8_text
from commscope.execute.time_limit import START_UP_S, checked_limit
from commscope.records.benchmarks import NCCL_TESTS_PROGRAMS
from commscope.records.duration import parse_duration


def valid_baseline_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A name `check --baseline` can be given: not empty, not only blanks."""
    if not value.strip():
        raise click.BadParameter(f"{value!r}: a baseline name needs a character that is not blank", ctx, param)
    return utf8_text(ctx, param, value)


def nccl_tests_program(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """import --benchmark: an nccl-tests program by its name (all_gather_perf) or the name its
    runs are stored under (nccl_allgather); the program's name is what the readers take."""
    if value is None:
        return None

    by_stored_name = {stored: program for program, stored in NCCL_TESTS_PROGRAMS.items()}
    program = value if value in NCCL_TESTS_PROGRAMS else by_stored_name.get(value)
    if program is None:
        raise click.BadParameter(
            f"{value!r} is no nccl-tests program; one of {', '.join(NCCL_TESTS_PROGRAMS)}", ctx, param
        )
    return program


def reference_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--reference names a reference: an empty or blank name is a mistake, not "no reference"."""
    if value is not None and not value.strip():
        raise click.BadParameter(f"{value!r} names no reference (`--reference list` lists them)", ctx, param)
    return value


class TimeLimitValue(click.ParamType):
    """--time-limit DURATION: 90s, 4m, 1h30m or seconds, longer than one launch's start-up."""

    name = "duration"

    def convert(self, value, param, ctx) -> float:
        if isinstance(value, float):
            return value
        try:
            return checked_limit(parse_duration(str(value)))
        except ValueError as exc:
            self.fail(f"{value!r}: {exc}", param, ctx)


def time_limit_option(help: str):
    """--time-limit: what the command's launches may take in all (execute/time_limit.py)."""
    return click.option(
        "--time-limit",
        type=TimeLimitValue(),
        metavar="DURATION",
        help=f"{help} A duration such as 90s, 4m or 1h30m, longer than a launch's start-up ({START_UP_S:g} s).",
    )
