"""A locate sweep as stored: the record in the run's provenance (the rules, why it stopped,
the planner's seed, the oracle, the topology) and a stored run judged again from its rounds."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from commscope.analysis.fabric import Fabric, fabric_of_record, fabric_record
from commscope.analysis.locate import replay
from commscope.analysis.locate_verdict import ROUND_LIMIT, AsideNode, LocateVerdict
from commscope.analysis.start_faults import StartFault
from commscope.analysis.sweep import VALUE_KEY, Policy
from commscope.analysis.sweep_verdicts import record_of, stored_policy, sweep_record
from commscope.errors import UsageError
from commscope.records.run import Run
from commscope.records.run_kinds import LOCATE_MODE


def locate_record(
    policy: Policy,
    metric: str,
    verdict: LocateVerdict,
    seed: int | None,
    oracle: str | None,
    fabric: Fabric | None = None,
    hosts: Sequence[str] = (),
) -> dict:
    """The run's "sweep" entry: the mode, the rules (the rules file's shape), and what
    locate adds: its metric, why it stopped, which rounds confirmed parts (measured one pair
    at a time), the planner's seed, the oracle if any, the topology it judged with (each
    switch's parent, each leaf's hosts), and the hosts set aside at MPI start (by name, with
    the round they were set aside in)."""
    record = sweep_record(LOCATE_MODE, policy, retest=False)
    record["locate"] = {
        "metric": metric,
        "stop": verdict.stop,
        "alone_rounds": verdict.alone_rounds,
        "seed": seed,
        "oracle": oracle,
    }
    if verdict.set_aside:
        record["set_aside"] = [
            {**StartFault(hosts[node.host], node.reason, node.evidence).record(), "round": node.round}
            for node in verdict.set_aside
        ]
    topology = fabric_record(fabric, hosts)
    if topology is not None:
        record["locate"]["topology"] = topology
    return record


def stored_fabric(entry: dict, labels: Sequence[str]) -> Fabric | None:
    """The topology a locate run recorded, over its hosts by rank (None: it had none)."""
    return fabric_of_record(entry.get("topology"), labels)


def stored_verdict(run: Run) -> tuple[LocateVerdict, list[str]]:
    """A stored locate run judged again from its rounds and recorded rules; with the host
    names by index (rank)."""
    record = record_of(run)
    entry = record.get("locate") if isinstance(record.get("locate"), dict) else {}
    policy = stored_policy(run) or Policy()
    metric = entry.get("metric")
    points = [p for p in run.points if p.pair is not None and p.pair.metric == metric and p.pair.round is not None]
    if metric not in VALUE_KEY or not points:
        raise UsageError(f"run {run.id}: a locate sweep without its metric's pairs cannot be judged")
    n = run.ranks or 1 + max(max(p.pair.src, p.pair.dst) for p in points)
    labels = [str(rank) for rank in range(n)]
    for host in run.hosts or []:
        for rank in host.get("ranks", []):
            if 0 <= rank < n:
                labels[rank] = host["name"]
    by_round: dict[int, list] = {}
    for point in points:
        by_round.setdefault(point.pair.round, []).append(point)
    rounds = [
        (
            np.array([(p.pair.src, p.pair.dst) for p in found], dtype=np.int64),
            np.array([p.metrics[VALUE_KEY[metric]] for p in found], dtype=np.float64),
        )
        for _, found in sorted(by_round.items())
    ]
    fabric = stored_fabric(entry, labels)
    aside = stored_aside(record.get("set_aside"), labels)
    # a run stored before confirmation rounds has none: what it would have named is unconfirmed
    alone = [k for k in entry.get("alone_rounds") or [] if isinstance(k, int)]
    stop = entry.get("stop", ROUND_LIMIT)
    verdict = replay(n, metric, policy.locate, rounds, stop, fabric, aside, alone)
    return verdict, labels


def stored_aside(records: object, labels: Sequence[str]) -> list[AsideNode]:
    """The hosts a stored locate run set aside, by index; one the run does not hold, or a
    record that is not one, is left out (a stored run is always shown)."""
    found = []
    for record in records if isinstance(records, list) else []:
        fault = StartFault.of(record)
        if fault is not None and fault.host in labels:
            number = record.get("round")
            at = number if isinstance(number, int) and number >= 1 else 1
            found.append(AsideNode(labels.index(fault.host), fault.reason, fault.evidence, at))
    return found
