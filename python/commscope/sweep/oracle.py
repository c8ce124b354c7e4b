"""Rounds of `commscope sweep locate` answered by `--oracle CMD` instead of launches of the core.

A program reads the round as one JSON document on stdin, {"round": 1, "metric": "bw",
"pairs": [["cn00001", "cn00417"], ...], "hosts": [...]} (the hosts still in the sweep, in
rank order), and writes {"values": [["cn00001", "cn00417", 11873.2], ...]} on stdout
(sweep/simulate.py is one): simulations at scale through the same code, or a site's own
measurement. Where the round's launch would not have got going, it writes instead
{"failed": {"dead": [{"host": "cn00042", "rank": 17, "signal": "SIGSEGV"}], "started":
[...]}}: the ranks the launcher would name dead, or (none dead) the hosts whose rank would
have said it started (null: none would, as when rank 0's host hangs). The sweep then does
what it does with a launch (sweep/survive.py): asks the round again, and asks start-up
probes, {"probe": [HOST, ...]}, answered {"started": true} or a "failed" of the same kind.

An oracle runs through execute/process like every program commscope starts: its answer
and error output go to files (read up to ANSWER_LIMIT and STDERR_TAIL), a stop signal or
--timeout stops it and all it started at once, and what it leaves running when it answers
is stopped too.
"""

from __future__ import annotations

import json
import math
import shlex
import shutil
from collections.abc import Sequence

import numpy as np

from commscope.analysis.start_faults import StartFault
from commscope.errors import EXIT_FAILED, EXIT_INTERRUPTED, CommscopeError, UsageError
from commscope.execute.outcome import Death
from commscope.execute.process import TIMED_OUT, run_program
from commscope.records.text import format_size
from commscope.records.textsafe import one_line
from commscope.sweep.survive import Attempt, survive

#: Seconds an oracle may take for one round unless --timeout says otherwise.
ORACLE_TIMEOUT_S = 600.0
#: The largest answer an oracle may give for one round: 100,000 pairs of long host names
#: and values are some 10 MB.
ANSWER_LIMIT = 256 * 2**20
#: How much of an oracle's error output is kept: its end, where the reason is.
STDERR_TAIL = 64 * 2**10


class RoundFailed(CommscopeError):
    """A round could not be measured: the sweep stops, nothing is stored."""

    exit_code = EXIT_FAILED


class Interrupted(CommscopeError):
    exit_code = EXIT_INTERRUPTED

    def __init__(self, number: int, signal_name: str | None = None) -> None:
        by = f" by {signal_name}" if signal_name else ""
        super().__init__(f"round {number} was interrupted{by}; nothing is stored")


def oracle_argv(command: str) -> list[str]:
    """--oracle CMD split as a shell would (never run by one), checked before anything
    runs: an empty or unclosed command, or a program that is not there, is a usage error."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:  # an unclosed quote
        raise UsageError(f"--oracle {command}: {exc}") from None
    if not argv:
        raise UsageError("--oracle: give the command to run (an empty one is no oracle)")
    if shutil.which(argv[0]) is None:
        raise UsageError(f"--oracle {command}: cannot run {argv[0]}: no such program, or not executable")
    return argv


def _finite(value: int | float) -> bool:
    """Whether a JSON number is a finite float; an integer of hundreds of digits is not."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


class OracleRounds:
    """Rounds answered by --oracle CMD (its words in `argv`)."""

    def __init__(
        self, command: str, argv: list[str], hosts: Sequence[str], metric: str, timeout: float | None, signals
    ) -> None:
        self.command = command
        self.argv = argv
        self.hosts = list(hosts)
        self.metric = metric
        self.timeout = timeout or ORACLE_TIMEOUT_S
        self.signals = signals
        self.labels = self.hosts
        self.aside: list[StartFault] = []

    def measure(self, number: int, pairs: np.ndarray, alone: bool = False) -> np.ndarray:
        """The round's values, in the order of `pairs`; NaN for a pair of a host set aside
        (the oracle said the round failed at start: sweep/survive.py's rules, as for a launch).
        `alone`: a confirmation round, measured one pair at a time (the oracle is told so)."""
        values = np.full(len(pairs), np.nan)
        while True:
            gone = {fault.host for fault in self.aside}
            live = [host for host in self.hosts if host not in gone]
            todo = [k for k, (a, b) in enumerate(pairs.tolist()) if not {self.hosts[a], self.hosts[b]} & gone]
            if not todo:
                return values
            named = [[self.hosts[a], self.hosts[b]] for a, b in pairs[todo].tolist()]
            request = {"round": number, "metric": self.metric, "pairs": named, "hosts": live}
            if alone:
                request["alone"] = True
            answered, found = survive(
                lambda: self._ask(number, request),
                lambda answered: answered[1],
                lambda groups: [self._ask(number, {"probe": group})[1] for group in groups],
                live,
                1,
                lambda answered, _: f"round {number}: {answered[1].reason}; asking again",
                self.signals,
            )
            self.aside += found
            document, shown = answered
            if shown.ok:
                values[todo] = self._values(number, document, named)
                return values
            if not found:
                raise RoundFailed(f"round {number}: the oracle `{self.command}` said {shown.reason}")

    def _ask(self, number: int, request: dict) -> tuple[dict, Attempt]:
        """The oracle's answer to a round or a probe, and what it shows of the launch's start."""
        out = self._run(number, json.dumps(request).encode())
        document = self._document(number, out)
        failed = document.get("failed")
        if failed is None:
            return document, Attempt(ok=True)
        return document, failed_attempt(number, self.command, failed)

    def _run(self, number: int, request: bytes) -> str:
        where = f"round {number}: the oracle `{self.command}`"
        try:
            done = run_program(
                self.argv,
                self.signals,
                timeout=self.timeout,
                input=request,
                stdout_limit=ANSWER_LIMIT,
                stderr_limit=STDERR_TAIL,
            )
        except CommscopeError as exc:  # it went between the check and the round
            raise UsageError(f"--oracle {self.command}: {exc}") from None
        if self.signals.received:
            raise Interrupted(number, self.signals.received[0])
        if done.stdout is None:
            raise RoundFailed(
                f"{where} answered more than the limit of {format_size(ANSWER_LIMIT)} for a round; stopped it"
            )
        if done.stopped and done.stopped.startswith(TIMED_OUT):
            raise RoundFailed(f"{where} did not answer within {self.timeout:g} s (--timeout); stopped it")
        if done.returncode != 0:
            how = (
                f"was killed by signal {-done.returncode}"
                if done.returncode < 0
                else f"failed (exit status {done.returncode})"
            )
            tail = done.stderr_tail(5)
            raise RoundFailed(f"{where} {how}" + (f":\n{tail}" if tail else ""))
        try:
            return done.stdout.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RoundFailed(
                f"{where} answered in something other than UTF-8 (byte 0x{done.stdout[exc.start]:02x} "
                f"at offset {exc.start})"
            ) from None

    def _document(self, number: int, out: str) -> dict:
        where = f"round {number}: the oracle `{self.command}`"
        try:
            document = json.loads(out)
        except json.JSONDecodeError as exc:
            raise RoundFailed(f"{where} printed no JSON document ({exc.msg}); it began {out[:60]!r}") from None
        except ValueError as exc:  # an integer of more digits than Python converts
            raise RoundFailed(f"{where} printed a number it cannot read: {exc}") from None
        except RecursionError:
            raise RoundFailed(
                f"{where} printed a JSON document nested too deeply to read; it began {out[:60]!r}"
            ) from None
        if not isinstance(document, dict) or not isinstance(
            document.get("values", document.get("failed", {})), (list, dict)
        ):
            raise RoundFailed(f'{where} answered without a "values" list: {out[:60]!r}')
        return document

    def _values(self, number: int, document: dict, named: list[list[str]]) -> np.ndarray:
        where = f"round {number}: the oracle `{self.command}`"
        rows = document.get("values")
        if not isinstance(rows, list):
            raise RoundFailed(f'{where} answered without a "values" list: {json.dumps(document)[:60]!r}')
        index = {frozenset(pair): k for k, pair in enumerate(named)}
        values = np.full(len(named), np.nan)
        for row in rows:
            if not (isinstance(row, list) and len(row) == 3 and all(isinstance(host, str) for host in row[:2])):
                raise RoundFailed(f"{where}: {_shown(row)} is not [HOST, HOST, VALUE]")
            a, b, value = row
            shown = f"{one_line(a)} <-> {one_line(b)}"
            k = index.get(frozenset((a, b)))
            if k is None:
                raise RoundFailed(f"{where} answered for {shown}, which is not a pair of the round")
            if not np.isnan(values[k]):
                raise RoundFailed(f"{where} answered twice for {shown}")
            good = isinstance(value, (int, float)) and not isinstance(value, bool) and _finite(value)
            if not good or value < 0 or (value == 0 and self.metric == "latency"):
                raise RoundFailed(f"{where} gave {shown} the value {_shown(value)}: not a {self.metric}")
            values[k] = value
        missing = [named[k] for k in np.flatnonzero(np.isnan(values)).tolist()]
        if missing:
            shown = ", ".join(f"{a} <-> {b}" for a, b in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            raise RoundFailed(f"{where} left out {len(missing)} pair(s) of the round: {shown}{more}")
        return values


def failed_attempt(number: int, command: str, failed: object) -> Attempt:
    """What an oracle's {"failed": {"dead": [{"host", "rank", "signal"}], "started": [HOST...]}}
    says of a launch that did not get going, as a launch of the core would show it: the
    first death the launcher names, or (none dead) the hosts whose rank said it started
    (null or left out: no start line, as when rank 0's host hangs)."""
    where = f"round {number}: the oracle `{command}`"
    dead = failed.get("dead", []) if isinstance(failed, dict) else None
    started = failed.get("started") if isinstance(failed, dict) else None
    if not isinstance(dead, list) or not (started is None or isinstance(started, list)):
        raise RoundFailed(f'{where}: "failed" is not {{"dead": [...], "started": [...]}}: {_shown(failed)}')
    if dead:
        deaths = []
        for one in dead:
            if not (isinstance(one, dict) and isinstance(one.get("host"), str)):
                raise RoundFailed(f'{where}: {_shown(one)} is not {{"host": H, "rank": R, "signal": S}}')
            rank = one.get("rank")
            deaths.append(Death(one["host"], None if rank is None else str(rank), str(one.get("signal", "a signal"))))
        return Attempt(ok=False, reason=f"a rank died: {deaths[0]}", failed_at_start=True, deaths=tuple(deaths))
    shown = tuple(str(host) for host in started) if started else None
    return Attempt(ok=False, reason="the launch did not get going", not_going=True, started=shown)


def _shown(value: object, limit: int = 60) -> str:
    """A value of the answer as the message shows it: repr, cut to `limit` characters (an
    integer of 400 digits is not read whole, and Python refuses to print one of 5,000)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # nested too deeply; an integer past Python's digits limit
        return f"a {type(value).__name__} that cannot be shown"
    return text if len(text) <= limit else text[: limit - 3] + "..."
