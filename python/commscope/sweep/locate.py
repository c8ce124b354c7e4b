"""`commscope sweep locate`: the rounds of analysis.locate measured for real or by an oracle.

Each round the planner's pairs are measured all at once, then judged:

- for real, by one launch of `commscope-bench pairs --schedule FILE` with one rank per
  host (the schedule holds the round's disjoint pairs, so they run at once; hosts in no
  pair wait), through the sweep's launcher (sweep.run.Sweeper);
- or by `--oracle CMD`, a program that reads the round as one JSON document on stdin,
  {"round": 1, "metric": "bw", "pairs": [["cn00001", "cn00417"], ...]}, and writes
  {"values": [["cn00001", "cn00417", 11873.2], ...]} on stdout (sweep/simulate.py is
  one): simulations at scale through the same code, or a site's own measurement.

A round that fails (a launch that does not complete, an oracle that crashes, hangs,
prints something else or leaves a pair out) stops the sweep with an error naming it,
exit status 1, and nothing is stored: a locate run is stored once judged, as one pairs
run whose points carry their round (Pair.round, 0-based), with the rules and how it
stopped in the provenance's "sweep" entry (mode "locate"), so show, report and check
judge it again as it was judged here (analysis.locate.stored_verdict).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from commscope import __version__, ui
from commscope.analysis.locate import LOCATE_MODE, MIN_HOSTS, LocateVerdict, Locator, locate_record
from commscope.analysis.sweep import VALUE_KEY
from commscope.analysis.sweep_verdicts import SWEEP_KEY
from commscope.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, CommscopeError, UsageError
from commscope.execute.provenance import default_system
from commscope.output.locate_view import locate_document, locate_lines, with_unit
from commscope.records.benchmarks import PAIRS_BENCHMARK
from commscope.records.inputs import read_text
from commscope.records.invocation import invocation, now
from commscope.records.run import Pair, Point, Run
from commscope.store.db import Store
from commscope.sweep.inputs import check_output
from commscope.sweep.run import Sweeper, SweepRequest, hosts_of

#: Seconds an oracle may take for one round unless --timeout says otherwise.
ORACLE_TIMEOUT_S = 600.0


class RoundFailed(CommscopeError):
    """A round could not be measured: the sweep stops, nothing is stored."""

    exit_code = EXIT_FAILED


class Interrupted(CommscopeError):
    exit_code = EXIT_INTERRUPTED

    def __init__(self, number: int) -> None:
        super().__init__(f"round {number} was interrupted; nothing is stored")


def locate_hosts(request: SweepRequest) -> list[str]:
    """The hosts, each named once, at least MIN_HOSTS of them."""
    given = list(request.hosts)
    if request.hostfile and not request.hosts:
        lines = read_text(Path(request.hostfile), "hostfile").splitlines()
        given = [line.split("#", 1)[0].split()[0].split(":")[0] for line in lines if line.split("#", 1)[0].strip()]
    twice = sorted({host for host in given if given.count(host) > 1})
    if twice:
        raise UsageError(f"locate: {', '.join(twice)} named more than once: each host is one rank of every round")
    if given and len(given) < MIN_HOSTS:
        raise UsageError(
            f"locate needs at least {MIN_HOSTS} hosts, got {len(given)}: with fewer, one round's pairs cannot "
            f"single out a slow one; `commscope sweep all-pairs` measures them in {max(len(given) - 1, 1)} rounds"
        )
    hosts = hosts_of(request)
    return hosts


class OracleRounds:
    """Rounds answered by --oracle CMD (split like a shell would, never run by one)."""

    def __init__(self, command: str, hosts: Sequence[str], metric: str, timeout: float | None) -> None:
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise UsageError("--oracle: give the command to run")
        self.hosts = list(hosts)
        self.metric = metric
        self.timeout = timeout or ORACLE_TIMEOUT_S
        self.labels = self.hosts

    def measure(self, number: int, pairs: np.ndarray) -> np.ndarray:
        named = [[self.hosts[a], self.hosts[b]] for a, b in pairs.tolist()]
        request = json.dumps({"round": number, "metric": self.metric, "pairs": named})
        out = self._run(number, request)
        return self._values(number, out, named)

    def _run(self, number: int, request: str) -> str:
        where = f"round {number}: the oracle `{self.command}`"
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,  # a hung oracle is stopped with what it started
            )
        except OSError as exc:
            raise UsageError(f"--oracle {self.command}: cannot run {self.argv[0]}: {exc.strerror}") from exc
        try:
            out, err = process.communicate(request, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise RoundFailed(f"{where} did not answer within {self.timeout:g} s (--timeout); stopped it") from None
        if process.returncode != 0:
            how = (
                f"was killed by signal {-process.returncode}"
                if process.returncode < 0
                else f"failed (exit status {process.returncode})"
            )
            tail = "\n".join(err.strip().splitlines()[-5:])
            raise RoundFailed(f"{where} {how}" + (f":\n{tail}" if tail else ""))
        return out

    def _values(self, number: int, out: str, named: list[list[str]]) -> np.ndarray:
        where = f"round {number}: the oracle `{self.command}`"
        try:
            document = json.loads(out)
        except json.JSONDecodeError as exc:
            raise RoundFailed(f"{where} printed no JSON document ({exc.msg}); it began {out[:60]!r}") from None
        rows = document.get("values") if isinstance(document, dict) else None
        if not isinstance(rows, list):
            raise RoundFailed(f'{where} answered without a "values" list: {out[:60]!r}')
        index = {frozenset(pair): k for k, pair in enumerate(named)}
        values = np.full(len(named), np.nan)
        for row in rows:
            if not (isinstance(row, list) and len(row) == 3 and all(isinstance(host, str) for host in row[:2])):
                raise RoundFailed(f"{where}: {row!r} is not [HOST, HOST, VALUE]")
            a, b, value = row
            k = index.get(frozenset((a, b)))
            if k is None:
                raise RoundFailed(f"{where} answered for {a} <-> {b}, which is not a pair of the round")
            if not np.isnan(values[k]):
                raise RoundFailed(f"{where} answered twice for {a} <-> {b}")
            good = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            if not good or value < 0 or (value == 0 and self.metric == "latency"):
                raise RoundFailed(f"{where} gave {a} <-> {b} the value {value!r}: not a {self.metric}")
            values[k] = value
        missing = [named[k] for k in np.flatnonzero(np.isnan(values)).tolist()]
        if missing:
            shown = ", ".join(f"{a} <-> {b}" for a, b in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            raise RoundFailed(f"{where} left out {len(missing)} pair(s) of the round: {shown}{more}")
        return values


class LaunchedRounds:
    """Rounds measured by one `commscope-bench pairs --schedule FILE` launch each."""

    def __init__(self, request: SweepRequest, metric: str, signals) -> None:
        self.sweeper = Sweeper(request)
        self.metric = metric
        self.signals = signals
        self.runs: list[Run] = []
        self.labels = list(self.sweeper.hosts)

    def measure(self, number: int, pairs: np.ndarray) -> np.ndarray:
        with tempfile.TemporaryDirectory(prefix="commscope-locate-", dir=self.sweeper.folder) as folder:
            schedule = Path(folder) / f"round-{number}.pairs"
            schedule.write_text(f"# locate round {number}\n" + "".join(f"{a} {b}\n" for a, b in pairs.tolist()))
            flags = ["--schedule", str(schedule), "--metric", self.metric, *self.sweeper.request.core_flags]
            run = self.sweeper.launch(flags, self.signals)
        if self.signals.received:
            raise Interrupted(number)
        if run.status != "complete":
            raise RoundFailed(f"round {number} did not complete ({run.status_reason or run.status}); nothing is stored")
        if number == 1 and run.hosts:  # the names the core saw, by rank
            for host in run.hosts:
                for rank in host.get("ranks", []):
                    self.labels[rank] = host["name"]
        found = {
            frozenset((p.pair.src, p.pair.dst)): p.metrics.get(VALUE_KEY[self.metric])
            for p in run.points
            if p.pair is not None and p.pair.metric == self.metric
        }
        values = [found.get(frozenset(pair)) for pair in pairs.tolist()]
        missing = [pair for pair, value in zip(pairs.tolist(), values) if not isinstance(value, (int, float))]
        if missing:
            a, b = missing[0]
            raise RoundFailed(f"round {number}: the core measured no {self.metric} for ranks {a} and {b}")
        run.points = [
            _with_round(point, number) for point in run.points if point.pair and point.pair.metric == self.metric
        ]
        self.runs.append(run)
        return np.array(values, dtype=np.float64)


def _with_round(point: Point, number: int) -> Point:
    pair = point.pair
    point.pair = Pair(**{**pair.as_dict(), "round": number - 1})
    return point


def merged_run(rounds: LaunchedRounds) -> Run:
    """The rounds' launches as one run: the first one's provenance, every round's points."""
    first, last = rounds.runs[0], rounds.runs[-1]
    first.points = [point for run in rounds.runs for point in run.points]
    first.ended_at = last.ended_at
    first.raw = {
        key: b"".join(f"# locate round {k}\n".encode() + run.raw.get(key, b"") for k, run in enumerate(rounds.runs, 1))
        for key in first.raw
    }
    return first


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


def run_locate(request: SweepRequest, oracle: str | None, seed: int | None, db: Path) -> int:
    from commscope.execute.signals import StopSignals

    hosts = locate_hosts(request)
    check_output(request.json_out, "--json")
    # named before measuring: a system name the store refuses must not cost the rounds
    request = dataclasses.replace(request, system=request.system or default_system())
    (metric,) = request.metrics
    policy = request.policy
    started = now()
    with StopSignals() as signals:
        source = (
            OracleRounds(oracle, hosts, metric, request.timeout) if oracle else LaunchedRounds(request, metric, signals)
        )
        locator = Locator(len(hosts), metric, policy.locate, seed=seed)
        while True:
            pairs = locator.plan()
            if locator.stop:
                break
            number = len(locator.rounds) + 1
            values = source.measure(number, pairs)
            if signals.received:
                raise Interrupted(number)
            measured = locator.record(pairs, values)
            ui.note(
                f"locate: round {number}: {len(pairs):,} pair{'s' if len(pairs) != 1 else ''} at once, "
                f"{int(measured.slow.sum()):,} slow "
                f"(pairs' median {with_unit(measured.reference.median, metric)})"
            )
            if locator.stop:
                break
    verdict = locator.verdict()
    run = merged_run(source) if isinstance(source, LaunchedRounds) else oracle_run(request, source, locator, started)
    run.provenance = {
        **(run.provenance or {}),
        SWEEP_KEY: locate_record(policy, metric, verdict.stop, seed, oracle),
    }
    with Store(db) as store:
        invocation_id = store.add_invocation(invocation("sweep", request.argv))
        run.id = store.add_run(run, invocation_id)
    return report_verdict(request, verdict, source.labels, run.id, db)


def report_verdict(request: SweepRequest, verdict: LocateVerdict, labels: Sequence[str], run_id: int, db: Path) -> int:
    for level, line in locate_lines(verdict, labels):
        (ui.warn if level == "warn" else ui.note)(line)
    unwritten = False
    if request.json_out:
        document = locate_document(verdict, labels, request.policy, run_id)
        try:
            request.json_out.write_text(json.dumps(document, indent=1) + "\n")
        except OSError as exc:
            ui.warn(f"cannot write --json {request.json_out}: {exc.strerror or exc}")
            unwritten = True
    ui.note(f"stored {LOCATE_MODE} run {run_id} in {db}")
    sys.stdout.flush()
    if unwritten:
        return EXIT_USAGE
    return EXIT_FAILED if verdict.bad_nodes or verdict.undecided else EXIT_OK
