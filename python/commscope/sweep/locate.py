"""`commscope sweep locate`: the rounds of analysis.locate measured for real or by an oracle.

Each round the planner's pairs are measured all at once, then judged:

- for real, by one launch of `commscope-bench pairs --schedule FILE` with one rank per
  host (the schedule holds the round's disjoint pairs, so they run at once; hosts in no
  pair wait), through the sweep's launcher (sweep.run.Sweeper);
- or by `--oracle CMD`, a program that reads the round as one JSON document on stdin,
  {"round": 1, "metric": "bw", "pairs": [["cn00001", "cn00417"], ...]}, and writes
  {"values": [["cn00001", "cn00417", 11873.2], ...]} on stdout (sweep/simulate.py is
  one): simulations at scale through the same code, or a site's own measurement.

An oracle runs through execute/process like every program commscope starts: its answer
and error output go to files (read up to ANSWER_LIMIT and STDERR_TAIL), a stop signal or
--timeout stops it and all it started at once, and what it leaves running when it answers
is stopped too.

A round that fails (a launch that does not complete, an oracle that crashes, hangs,
prints something else or leaves a pair out) stops the sweep with an error naming it,
exit status 1, and nothing is stored: a locate run is stored once judged, as one pairs
run whose points carry their round (Pair.round, 0-based), with the rules and how it
stopped in the provenance's "sweep" entry (mode "locate"), so show, report and check
judge it again as it was judged here (analysis.locate.stored_verdict). It is stored
through execute/keep: a store locked past its busy timeout keeps it as files that
`commscope import` stores later.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shlex
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from commscope import __version__, ui
from commscope.analysis.bad_nodes import located_nodes
from commscope.analysis.fabric import Fabric
from commscope.analysis.locate import Locator
from commscope.analysis.locate_stored import locate_record
from commscope.analysis.locate_verdict import LocateVerdict
from commscope.analysis.sweep import VALUE_KEY, Policy
from commscope.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, CommscopeError, UsageError
from commscope.execute.keep import Destination, Stored, storing, summary
from commscope.execute.process import TIMED_OUT, run_program
from commscope.execute.provenance import default_system
from commscope.execute.signals import StopSignals
from commscope.output.locate_view import locate_document, locate_lines, with_unit
from commscope.records.benchmarks import PAIRS_BENCHMARK
from commscope.records.invocation import now
from commscope.records.run import Pair, Point, Run
from commscope.records.run_kinds import LOCATE_MODE, SWEEP_KEY
from commscope.records.text import format_size
from commscope.records.textsafe import one_line
from commscope.sweep import fabric_hosts
from commscope.sweep.inputs import check_output
from commscope.sweep.modes.base import SweepRequest
from commscope.sweep.outcome import SweepOutcome
from commscope.sweep.run import Sweeper, hosts_of

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

    def measure(self, number: int, pairs: np.ndarray) -> np.ndarray:
        named = [[self.hosts[a], self.hosts[b]] for a, b in pairs.tolist()]
        request = json.dumps({"round": number, "metric": self.metric, "pairs": named})
        out = self._run(number, request.encode())
        return self._values(number, out, named)

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

    def _values(self, number: int, out: str, named: list[list[str]]) -> np.ndarray:
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
        rows = document.get("values") if isinstance(document, dict) else None
        if not isinstance(rows, list):
            raise RoundFailed(f'{where} answered without a "values" list: {out[:60]!r}')
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


class LaunchedRounds:
    """Rounds measured by one `commscope-bench pairs --schedule FILE` launch each; the
    points of every round, tagged with it, become the one locate run (`run`)."""

    def __init__(self, request: SweepRequest, metric: str, signals) -> None:
        self.sweeper = Sweeper(request)
        self.metric = metric
        self.signals = signals
        self.first: Run | None = None  # the launch whose provenance the locate run keeps
        self.points: list[Point] = []
        self.raw: dict[str, bytes] = {}
        self.ended_at: str | None = None
        self.labels = list(self.sweeper.hosts)

    def measure(self, number: int, pairs: np.ndarray) -> np.ndarray:
        with tempfile.TemporaryDirectory(prefix="commscope-locate-", dir=self.sweeper.folder) as folder:
            schedule = Path(folder) / f"round-{number}.pairs"
            schedule.write_text(f"# locate round {number}\n" + "".join(f"{a} {b}\n" for a, b in pairs.tolist()))
            flags = ["--schedule", str(schedule), "--metric", self.metric, *self.sweeper.request.core_flags]
            run = self.sweeper.launch(flags, self.signals)
        if self.signals.received:
            raise Interrupted(number, self.signals.received[0])
        if run.status != "complete":
            raise RoundFailed(f"round {number} did not complete ({run.status_reason or run.status}); nothing is stored")
        if self.first is None and run.hosts:  # the names the core saw, by rank
            for host in run.hosts:
                for rank in host.get("ranks", []):
                    self.labels[rank] = host["name"]
        found = {
            frozenset((p.pair.src, p.pair.dst)): p
            for p in run.points
            if p.pair is not None and p.pair.metric == self.metric
        }
        points = [found.get(frozenset(pair)) for pair in pairs.tolist()]
        values = [point.metrics.get(VALUE_KEY[self.metric]) if point else None for point in points]
        missing = [pair for pair, value in zip(pairs.tolist(), values) if not isinstance(value, (int, float))]
        if missing:
            a, b = missing[0]
            raise RoundFailed(f"round {number}: the core measured no {self.metric} for ranks {a} and {b}")
        self.first = self.first or run
        self.points += [dataclasses.replace(p, pair=dataclasses.replace(p.pair, round=number - 1)) for p in points]
        # each launch's own output, by round: a kept run holds its points, not one stream
        self.raw.update({f"round-{number}-{name}": data for name, data in run.raw.items()})
        self.ended_at = run.ended_at
        return np.array(values, dtype=np.float64)

    def run(self) -> Run:
        """The rounds as one run: the first launch's provenance, every round's points."""
        return dataclasses.replace(self.first, points=self.points, raw=self.raw, ended_at=self.ended_at, id=None)


def oracle_run(request: SweepRequest, source: OracleRounds, locator: Locator, started: str) -> Run:
    """A run of what the oracle answered: a point per pair, the host names as ranks."""
    hosts = source.hosts
    key = VALUE_KEY[source.metric]
    points = [
        Point(
            size=None,
            metrics={key: float(value)},
            pair=Pair(int(a), int(b), source.metric, hosts[a], hosts[b], None, None, number, slot),
        )
        for number, measured in enumerate(locator.rounds)
        for slot, ((a, b), value) in enumerate(zip(measured.pairs.tolist(), measured.values.tolist()))
    ]
    return Run(
        benchmark=PAIRS_BENCHMARK,
        description=f"locate sweep answered by the oracle {source.command}",
        ranks=len(hosts),
        nodes=len(hosts),
        placement="inter-node",
        label=request.label,
        started_at=started,
        ended_at=now(),
        launcher_argv=source.argv,
        tool_name="commscope",
        tool_version=__version__,
        hosts=[{"name": host, "ranks": [rank]} for rank, host in enumerate(hosts)],
        points=points,
        system=request.system,
    )


def fabric_of(request: SweepRequest, hosts: Sequence[str]) -> Fabric | None:
    """The sweep's fabric from its topology (sweep/fabric_hosts.py), None without one."""
    return None if request.topology is None else fabric_hosts.fabric_of(request.topology, hosts, "locate")


def run_locate(request: SweepRequest, db: Path | None, folder: Path | None = None) -> LocateOutcome:
    """Round by round until the verdict is certain or the rounds run out; stored as one run
    into `db` (and kept as files in `folder`, where given), said, and given back."""
    hosts = hosts_of(request)  # the hostfile is read here, once
    oracle, seed = request.own.get("oracle"), request.own.get("seed")
    argv = oracle_argv(oracle) if oracle is not None else None
    check_output(request.json_out, "--json")
    # named before measuring: a system name the store refuses must not cost the rounds
    request = dataclasses.replace(request, hosts=tuple(hosts), hostfile=None, system=request.system or default_system())
    (metric,) = request.metrics
    policy = request.policy
    started = now()
    destination = Destination(db, request.argv, folder, label=request.label, system=request.system)
    with storing(destination, "sweep") as stored, StopSignals() as signals:
        source = (
            OracleRounds(oracle, argv, hosts, metric, request.timeout, signals)
            if argv is not None
            else LaunchedRounds(request, metric, signals)
        )
        locator = Locator(len(hosts), metric, policy.locate, seed=seed, fabric=fabric_of(request, hosts))
        while True:
            pairs = locator.plan()
            if locator.stop:
                break
            number = len(locator.rounds) + 1
            values = source.measure(number, pairs)
            if signals.received:
                raise Interrupted(number, signals.received[0])
            measured = locator.record(pairs, values)
            ui.note(
                f"locate: round {number}: {len(pairs):,} pair{'s' if len(pairs) != 1 else ''} at once, "
                f"{int(measured.slow.sum()):,} slow "
                f"(pairs' median {with_unit(measured.reference.median, metric)})"
            )
            if locator.stop:
                break
        verdict = locator.verdict()
        if isinstance(source, LaunchedRounds):
            run = source.run()
        else:
            run = oracle_run(request, source, locator, started)
        run.provenance = {
            **(run.provenance or {}),
            SWEEP_KEY: locate_record(policy, metric, verdict.stop, seed, oracle, locator.fabric, hosts),
        }
        stored.add(run)
    return said(request, verdict, source.labels, stored, db)


@dataclass
class LocateOutcome(SweepOutcome):
    """A locate sweep's outcome: its verdict (the --json)."""

    verdict: LocateVerdict | None = None
    policy: Policy | None = None

    def document(self, drained: list[str] | None) -> dict:
        document = locate_document(self.verdict, self.hosts, self.policy, self.run_id)
        if drained is not None:
            document["drained"] = drained
        return document


def said(
    request: SweepRequest, verdict: LocateVerdict, labels: Sequence[str], stored: Stored, db: Path | None
) -> LocateOutcome:
    """The verdict said, and given back with the stored run's id."""
    for level, line in locate_lines(verdict, labels):
        (ui.warn if level == "warn" else ui.note)(line)
    run_id = stored.runs[0].id if stored.runs else None
    if not stored.kept and db is not None:
        ui.note(f"stored {LOCATE_MODE} run {run_id} in {db}")
    sys.stdout.flush()
    # a bad switch is a fault found as much as a bad node, an undecided uplink as much
    # left open as an undecided host: the sweep fails for either
    found = verdict.bad_nodes or verdict.bad_switches or verdict.undecided or verdict.undecided_switches
    return LocateOutcome(
        mode=request.mode.name,
        hosts=tuple(labels),
        run_id=run_id,
        bad_nodes=located_nodes(verdict, labels),
        status=EXIT_FAILED if found else EXIT_OK,
        json_out=request.json_out,
        kept_status=summary(stored, db) if stored.kept else None,
        verdict=verdict,
        policy=request.policy,
    )
