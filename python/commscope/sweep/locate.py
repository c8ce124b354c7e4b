"""`commscope sweep locate`: the rounds of analysis.locate measured for real or by an oracle.

Each round the planner's pairs are measured all at once, then judged:

- for real, by one launch of `commscope-bench pairs --schedule FILE` with one rank per
  host (the schedule holds the round's disjoint pairs, so they run at once; hosts in no
  pair wait), through the sweep's launcher (sweep.run.Sweeper);
- or by `--oracle CMD`, a program that answers each round with its values (sweep/oracle.py).

A round whose launch fails or hangs at MPI start because of a host sets that host aside
(sweep/survive.py): the Locator leaves it out of every round from then on, the verdict
names it by the launcher's words, and the round is measured again without it. A round that
fails otherwise (a launch that does not complete naming no host, an oracle that crashes,
hangs, prints something else or leaves a pair out) stops the sweep with an error naming
it, exit status 1, and nothing is stored: a locate run is stored once judged, as one pairs
run whose points carry their round (Pair.round, 0-based), with the rules and how it
stopped in the provenance's "sweep" entry (mode "locate"), so show, report and check
judge it again as it was judged here (analysis.locate.stored_verdict). It is stored
through execute/keep: a store locked past its busy timeout keeps it as files that
`commscope import` stores later.
"""

from __future__ import annotations

import dataclasses
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
from commscope.analysis.start_faults import StartFault
from commscope.analysis.sweep import VALUE_KEY, Policy
from commscope.errors import EXIT_FAILED, EXIT_OK
from commscope.execute.keep import Destination, Stored, storing, summary
from commscope.execute.provenance import default_system
from commscope.execute.signals import StopSignals
from commscope.output.locate_view import locate_document, locate_lines, round_line
from commscope.records.benchmarks import PAIRS_BENCHMARK
from commscope.records.invocation import now
from commscope.records.run import Pair, Point, Run
from commscope.records.run_kinds import LOCATE_MODE, SWEEP_KEY
from commscope.sweep import fabric_hosts
from commscope.sweep.inputs import check_output
from commscope.sweep.modes.base import SweepRequest
from commscope.sweep.oracle import Interrupted, OracleRounds, RoundFailed, oracle_argv
from commscope.sweep.outcome import SweepOutcome
from commscope.sweep.run import Sweeper, hosts_of


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

    @property
    def aside(self) -> list[StartFault]:
        """The hosts set aside so far, in the order they were."""
        return self.sweeper.aside

    def measure(self, number: int, pairs: np.ndarray, alone: bool = False) -> np.ndarray:
        """The round's values, in the order of `pairs`; NaN for a pair of a host set aside
        meanwhile (it failed or hung at MPI start: the round is measured again without it).
        `alone`: a confirmation round, measured one pair at a time."""
        values = np.full(len(pairs), np.nan)
        while True:
            aside = {self.sweeper.hosts.index(fault.host) for fault in self.sweeper.aside}
            todo = [k for k, (a, b) in enumerate(pairs.tolist()) if a not in aside and b not in aside]
            if not todo:
                return values
            before = len(self.sweeper.aside)
            run, hosts = self._launch(number, pairs[todo], alone)
            if len(self.sweeper.aside) > before and run.status != "complete":
                continue  # planned again without them
            if run.status != "complete":
                why = run.status_reason or run.status
                raise RoundFailed(f"round {number} did not complete ({why}); the rounds before it are kept")
            values[todo] = self._values(number, pairs[todo], run, hosts)
            return values

    def _launch(self, number: int, pairs: np.ndarray, alone: bool) -> tuple[Run, list[str]]:
        """One launch of the round's `pairs` (host indices) on the live hosts, as their ranks;
        a confirmation round's one pair at a time, every other rank waiting (the core's --serial)."""
        rank = {host: r for r, host in enumerate(self.sweeper.live)}
        ranks = [(rank[self.sweeper.hosts[a]], rank[self.sweeper.hosts[b]]) for a, b in pairs.tolist()]
        with tempfile.TemporaryDirectory(prefix="commscope-locate-", dir=self.sweeper.folder) as folder:
            schedule = Path(folder) / f"round-{number}.pairs"
            schedule.write_text(f"# locate round {number}\n" + "".join(f"{a} {b}\n" for a, b in ranks))
            serial = ["--serial"] if alone else []
            flags = ["--schedule", str(schedule), *serial, "--metric", self.metric, *self.sweeper.request.core_flags]
            run = self.sweeper.launch(flags, self.signals)
        if self.signals.received:
            raise Interrupted(number, self.signals.received[0])
        return run, list(self.sweeper.launched_on)

    def _values(self, number: int, pairs: np.ndarray, run: Run, hosts: list[str]) -> np.ndarray:
        """The values a launch on `hosts` measured for `pairs` (host indices); its points kept,
        their ranks made host indices."""
        index = {host: k for k, host in enumerate(self.sweeper.hosts)}
        for host in run.hosts or []:  # the names the core saw, by host
            for local in host.get("ranks", []):
                if 0 <= local < len(hosts):
                    self.labels[index[hosts[local]]] = host["name"]
        found = {}
        for point in run.points:
            pair = point.pair
            if pair is None or pair.metric != self.metric or max(pair.src, pair.dst) >= len(hosts):
                continue
            a, b = index[hosts[pair.src]], index[hosts[pair.dst]]
            found[frozenset((a, b))] = dataclasses.replace(point, pair=dataclasses.replace(pair, src=a, dst=b))
        points = [found.get(frozenset(pair)) for pair in pairs.tolist()]
        values = [point.metrics.get(VALUE_KEY[self.metric]) if point else None for point in points]
        missing = [pair for pair, value in zip(pairs.tolist(), values) if not isinstance(value, (int, float))]
        if missing:
            a, b = missing[0]
            raise RoundFailed(
                f"round {number}: the core measured no {self.metric} for {self.labels[a]} and {self.labels[b]}"
            )
        self.first = self.first or run
        self.points += [dataclasses.replace(p, pair=dataclasses.replace(p.pair, round=number - 1)) for p in points]
        # each launch's own output, by round: a kept run holds its points, not one stream
        self.raw.update({f"round-{number}-{name}": data for name, data in run.raw.items()})
        self.ended_at = run.ended_at
        return np.array(values, dtype=np.float64)

    def run(self) -> Run:
        """The rounds as one run: the first launch's provenance, every round's points, every
        host by its index (a host set aside has none)."""
        n = len(self.labels)
        hosts = [{"name": name, "ranks": [k]} for k, name in enumerate(self.labels)]
        return dataclasses.replace(
            self.first, points=self.points, raw=self.raw, ended_at=self.ended_at, id=None, ranks=n, nodes=n, hosts=hosts
        )


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
            values = source.measure(number, pairs, locator.alone)
            if signals.received:
                raise Interrupted(number, signals.received[0])
            for fault in source.aside[len(locator.aside) :]:  # set aside while the round was measured
                locator.set_aside(hosts.index(fault.host), fault.reason, fault.evidence)
            kept = ~np.isnan(values)
            if not kept.any():
                continue  # every pair had a host set aside: planned again without them
            measured = locator.record(pairs[kept], values[kept])
            ui.note(round_line(number, measured, metric))
            if locator.stop:
                break
        verdict = locator.verdict()
        if isinstance(source, LaunchedRounds):
            run = source.run()
        else:
            run = oracle_run(request, source, locator, started)
        run.provenance = {
            **(run.provenance or {}),
            SWEEP_KEY: locate_record(policy, metric, verdict, seed, oracle, locator.fabric, hosts),
            **request.provenance,
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
    found = verdict.bad_nodes or verdict.set_aside or verdict.bad_switches or verdict.undecided
    found = found or verdict.undecided_switches
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
