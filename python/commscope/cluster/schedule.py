"""`commscope schedule`: health checks at fixed times, through the scheduler the site has.

An entry runs `commscope schedule run FOLDER --baseline NAME -- SUITE ...`: the suite's runs
kept as files in a job folder of the entry's folder, as `submit`'s jobs keep theirs, and
judged as `check --baseline` judges them against the baseline's runs copied into that
folder when the entry was written (cluster.nightly). Nothing is written to the database
where the entry runs; `commscope collect` stores the runs later, on one host. With Slurm
it is a `scrontab` entry: Slurm starts it as a batch job on an allocation of the size its
`#SCRON` lines ask for (sbatch's options), so `run` launches with srun there, and a
failing check leaves the job FAILED where `sacct` and mail show it. Without `scrontab`, a
`crontab` entry runs the same on this machine.

commscope's entries live in one marked block of the table; everything outside it (the
user's own entries) is read and written back unchanged. Neither scheduler passes the
user's environment on, so an entry sets what commscope needs: PATH, the database and
core, the system name, and the variables given with --env.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from commscope.errors import CommscopeError, UsageError
from commscope.execute.process import Finished, run_command

BEGIN = "# >>> commscope schedule: the entries up to the end mark are managed by `commscope schedule` >>>"
END = "# <<< commscope schedule <<<"
#: An entry's name: it names the entry's folder, log and Slurm job, and is one word on the
#: `#SCRON --job-name` line, so it is a plain word that cannot climb out of a folder.
NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
_NAME = re.compile(NAME_PATTERN)
_ENTRY = re.compile(rf"# commscope-entry (?P<name>{NAME_PATTERN}): (?P<about>.*)")
_EVERY = re.compile(r"(?P<count>\d+)(?P<unit>[mhdw])")
_AT = re.compile(r"(?P<hour>[01]?\d|2[0-3]):(?P<minute>[0-5]\d)")
#: Variables an entry carries from the shell that wrote it, when they are set there.
CARRIED = ("PATH", "COMMSCOPE_BENCH", "COMMSCOPE_SYSTEM", "COMMSCOPE_CONFIG", "LD_LIBRARY_PATH")
#: Seconds scrontab or crontab may take: scrontab asks the Slurm controller.
COMMAND_TIMEOUT = 60.0


#: A period of minutes must divide the hour and one of hours the day: cron counts from
#: the hour's or the day's start.
_DIVIDES = {"m": 60, "h": 24}
#: A weekly check runs on Mondays: it sees the week's changes before the next one.
_WEEKDAY = 1


def check_name(name: str, what: str = "--name") -> str:
    if not _NAME.fullmatch(name):
        raise UsageError(
            f"{what} {name!r}: an entry's name is up to 64 letters, digits, '.', '_' and '-', "
            "starting with a letter or digit"
        )
    return name


def check_value(what: str, value: str, command: bool = True) -> str:
    """A value that goes into the table: only printable characters (Unicode's letters, marks,
    numbers, punctuation, symbols and the space; no control or separator character such as
    a carriage return, form feed or U+2028), and in the command no %, which cron reads as a
    line end. An allow-list: a character cron or a reader of the table might take for a
    line end is none of these."""
    bad = next((char for char in value if not char.isprintable() or (command and char == "%")), None)
    if bad is not None:
        why = (
            "cron reads it as a line end"
            if bad == "%"
            else "only printable characters: a line break, control or separator character could end the table's line"
        )
        raise UsageError(f"{what} {value!r}: a scheduled value cannot hold {'%' if bad == '%' else repr(bad)} ({why})")
    return value


def cron_times(every: str, at: str = "02:00") -> str:
    """The five cron time fields of `--every` (30m, 6h, 1d, 2d, 1w) starting `--at` HH:MM
    (its minute only, for hours; unused for minutes). Raises UsageError."""
    match, when = _EVERY.fullmatch(every.strip()), _AT.fullmatch(at.strip())
    if not match or int(match["count"]) == 0:
        raise UsageError(f"--every {every!r}: give a period such as 30m, 6h, 1d or 1w")
    if not when:
        raise UsageError(f"--at {at!r}: give a time of day such as 02:00")
    count, unit = int(match["count"]), match["unit"]
    minute, hour = int(when["minute"]), int(when["hour"])
    if (unit in _DIVIDES and _DIVIDES[unit] % count) or (unit == "d" and count > 31) or (unit == "w" and count > 1):
        raise UsageError(
            f"--every {every!r}: cron repeats periods that divide the hour (30m) or the day (6h), "
            "days up to 31d, and 1w"
        )
    return {
        "m": f"*/{count} * * * *",
        "h": f"{minute} */{count} * * *",
        "d": f"{minute} {hour} {'*' if count == 1 else f'*/{count}'} * *",
        "w": f"{minute} {hour} * * {_WEEKDAY}",
    }[unit]


@dataclass
class Entry:
    """One scheduled health check."""

    name: str
    suite: str
    every: str
    times: str  # cron's five time fields
    baseline: str
    database: Path
    label: str
    slurm_options: list[str] = field(default_factory=list)  # sbatch options, #SCRON lines
    run_options: list[str] = field(default_factory=list)  # more options of `commscope run`
    core_flags: list[str] = field(default_factory=list)
    env: list[tuple[str, str]] = field(default_factory=list)
    directory: Path = field(default_factory=Path.cwd)
    folder: Path = Path()  # the entry's folder: its baseline and its jobs (cluster.nightly)
    log: Path | None = None  # cron: where the output goes (scrontab: #SCRON --output)
    #: `schedule run`'s own options (--on-failure, --textfile, --push...): flag, value or None
    night_options: list[tuple[str, str | None]] = field(default_factory=list)

    def checked_values(self) -> list[tuple[str, str]]:
        """Every value the entry writes into the table, with the flag that gave it."""
        carried = [(f"${name}", os.environ[name]) for name in CARRIED if os.environ.get(name)]
        return [
            ("SUITE", self.suite),
            ("--label", self.label),
            ("--baseline", self.baseline),
            ("--db", str(self.database)),
            ("the working folder", str(self.directory)),
            ("the schedule folder", str(self.folder)),
            *carried,
            *((f"--env {name}", value) for name, value in self.env),
            *(("a core flag", flag) for flag in self.core_flags),
            *(("an option", option) for option in self.run_options),
            *((flag, value) for flag, value in self.night_options if value is not None),
        ]

    def command(self) -> str:
        """The shell line both schedulers run (sh -c): `schedule run` makes a job folder in the
        entry's folder, runs the suite into it as `submit`'s jobs do, and judges it against
        the baseline's runs kept beside the entry, never opening the database."""
        for what, value in self.checked_values():
            check_value(what, value)
        commscope = [sys.executable, "-m", "commscope"]
        carried = [(name, os.environ[name]) for name in CARRIED if os.environ.get(name)]
        exports = [*carried, ("COMMSCOPE_DB", str(self.database)), *self.env]
        run = [self.suite, "--label", self.label, *self.run_options]
        run += ["--", *self.core_flags] if self.core_flags else []
        own = [word for flag, value in self.night_options for word in (flag, value) if word is not None]
        night = [*commscope, "schedule", "run", str(self.folder), "--baseline", self.baseline, *own, "--", *run]
        line = (
            f"cd {shlex.quote(str(self.directory))} && export "
            + " ".join(f"{name}={shlex.quote(value)}" for name, value in exports)
            + f" && {shlex.join(night)}"
        )
        if self.log is not None:
            line = f"{{ {line}; }} >> {shlex.quote(str(self.log))} 2>&1"
        return check_value("the scheduled command", line)

    def lines(self, slurm: bool) -> list[str]:
        command = self.command()  # first: it names the flag of a value that cannot be written
        about = f"{self.suite} every {self.every}, gated by baseline {self.baseline}, label {self.label}"
        header = [f"# commscope-entry {check_name(self.name)}: {check_value('the entry', about, False)}"]
        for option in self.slurm_options:  # checked with cron too: the entry may move to Slurm
            check_value("#SCRON", option, command=False)
        directives = [f"#SCRON {option}" for option in self.slurm_options] if slurm else []
        return [*header, *directives, f"{self.times} {command}"]


def _marks(lines: Sequence[str], where: str) -> tuple[int, int] | None:
    """The line numbers (from 0) of commscope's begin and end marks, or None without a
    block. A block that is not one begin mark, then entries, then one end mark is refused:
    the user's own lines would be taken for an entry's and deleted with it."""
    is_mark = lambda line, mark: line.rstrip("\r\t ") == mark  # noqa: E731 (a CRLF editor's mark is one too)
    begins = [number for number, line in enumerate(lines) if is_mark(line, BEGIN)]
    ends = [number for number, line in enumerate(lines) if is_mark(line, END)]
    if not begins and not ends:
        return None
    fix = (
        f"; nothing was changed. Mend the table by hand (`crontab -e`, or `scrontab -e`): commscope's "
        f"entries stand between one line `{BEGIN}` and one line `{END}`"
    )
    if len(begins) != 1 or len(ends) != 1:
        what = "begin" if len(begins) != 1 else "end"
        found = begins if what == "begin" else ends
        said = f"on lines {', '.join(str(n + 1) for n in found)}" if found else "missing"
        raise CommscopeError(f"{where}: commscope's {what} mark is {said}: a mark was deleted or copied by hand" + fix)
    start, end = begins[0], ends[0]
    if end < start:
        raise CommscopeError(f"{where}: commscope's end mark (line {end + 1}) comes before its begin mark" + fix)
    first = next((number for number in range(start + 1, end) if _ENTRY.fullmatch(lines[number])), end)
    if first != start + 1:
        raise CommscopeError(
            f"{where}: line {start + 2} is inside commscope's block but belongs to no entry "
            f"(an entry starts with `# commscope-entry NAME: ...`); move it out of the block" + fix
        )
    return start, end


def _split(table: str, where: str = "the table") -> tuple[list[str], dict[str, list[str]], list[str]]:
    """The lines before commscope's block, its entries by name (each its lines), the lines
    after it. A table without the block has it empty, at its end."""
    # cron ends a line at "\n" only: str.splitlines() would also end one at "\r", "\f",
    # U+2028..., making a new line of what cron reads as the rest of one.
    lines = table.split("\n")
    if lines[-1] == "":
        lines.pop()
    marks = _marks(lines, where)
    if marks is None:
        return lines, {}, []
    start, end = marks
    entries: dict[str, list[str]] = {}
    name = None
    for line in lines[start + 1 : end]:
        match = _ENTRY.fullmatch(line)
        if match:
            name = match["name"]
            entries[name] = []
        if name is not None:
            entries[name].append(line)
    return lines[:start], entries, lines[end + 1 :]


def _join(before: list[str], entries: dict[str, list[str]], after: list[str]) -> str:
    block = [BEGIN, *(line for lines in entries.values() for line in lines), END] if entries else []
    lines = [*before, *block, *after]
    return "\n".join(lines) + "\n" if lines else ""


def with_entry(table: str, name: str, lines: Sequence[str]) -> str:
    """The table with entry `name` added, or replaced where it was."""
    before, entries, after = _split(table)
    entries[name] = list(lines)
    return _join(before, entries, after)


def without_entry(table: str, name: str) -> str:
    before, entries, after = _split(table)
    if name not in entries:
        raise UsageError(f"no scheduled check {name!r}" + (f"; there are: {', '.join(entries)}" if entries else ""))
    del entries[name]
    return _join(before, entries, after)


def entries(table: str) -> dict[str, list[str]]:
    """commscope's entries of a table, by name, each with its lines."""
    return _split(table)[1]


def block(table: str) -> str:
    """commscope's block of a table, marks and all ("" without entries)."""
    return _join([], entries(table), [])


@dataclass(frozen=True)
class Scheduler:
    """scrontab or crontab: both read a table with -l, take one on stdin with -, and
    forget it with -r."""

    program: str

    @property
    def slurm(self) -> bool:
        return Path(self.program).name == "scrontab"

    def _call(self, *args: str, table: str | None = None) -> Finished:
        """The scheduler's answer, bounded (execute/process), as bytes."""
        return run_command([self.program, *args], COMMAND_TIMEOUT, input=None if table is None else to_bytes(table))

    def read(self) -> str:
        """The table exactly as the scheduler holds it (see from_bytes); its marks checked."""
        done = self._call("-l")
        said = (done.stderr + done.stdout).decode(errors="replace")
        if done.returncode != 0:
            if "no crontab" in said.lower():
                return ""
            raise CommscopeError(
                f"{self.program} -l failed: {done.stderr.decode(errors='replace').strip() or done.returncode}"
            )
        table = from_bytes(done.stdout)
        _split(table, f"{Path(self.program).name}'s table")
        return table

    def write(self, table: str) -> None:
        done = self._call("-r") if not table.strip() else self._call("-", table=table)
        said = done.stderr.decode(errors="replace")
        if done.returncode != 0 and not (not table.strip() and "no crontab" in said.lower()):
            raise CommscopeError(f"{self.program} refused the table: {said.strip() or done.returncode}")


def from_bytes(data: bytes) -> str:
    """A table's bytes as text that encodes back to the same bytes (to_bytes): a byte that
    is not UTF-8 is kept as a lone surrogate, a carriage return as itself. Only commscope's
    own lines are ever read for meaning; the user's are carried over untouched."""
    return data.decode("utf-8", "surrogateescape")


def to_bytes(table: str) -> bytes:
    return table.encode("utf-8", "surrogateescape")


def scheduler(choice: str = "auto") -> Scheduler:
    """scrontab where Slurm's is installed, else crontab; `choice` scrontab or cron forces one."""
    wanted = {"auto": ("scrontab", "crontab"), "scrontab": ("scrontab",), "cron": ("crontab",)}[choice]
    for program in wanted:
        found = shutil.which(program)
        if found:
            return Scheduler(found)
    raise CommscopeError(
        f"no {' or '.join(wanted)} on PATH: scheduled checks need Slurm's scrontab "
        "(ScronParameters=enable in slurm.conf) or cron"
    )
