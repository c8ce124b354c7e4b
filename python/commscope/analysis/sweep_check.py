"""`commscope check` for sweeps: a stored sweep against the sweep of a baseline, pair by
pair and metric by metric, pairs matched by their host names (not rank numbers: a
later sweep may list the hosts in another order or lack some).

A pair fails where it got worse than its baseline value by the margin of the sweep's
own rules (those stored with the sweep, as `commscope sweep --baseline RUN` judges at
the end of a sweep): bandwidth below margin x baseline, latency above it. A host of the
baseline that the new sweep lacks fails too: a sweep that left a node out must not pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from commscope.analysis.sweep import HIGHER_IS_WORSE, Policy, SweepMatrix, matrix_from_run
from commscope.analysis.sweep_verdicts import retest_of, stored_policy
from commscope.records.run import Run


@dataclass(frozen=True)
class PairChange:
    metric: str
    pair: tuple[int, int]
    base: float
    new: float

    @property
    def ratio(self) -> float:
        return self.new / self.base if self.base else float("inf")


def compare_to_baseline(base: SweepMatrix, new: SweepMatrix, policy: Policy) -> list[PairChange]:
    """Pairs (matched by their host labels) that got worse than the baseline sweep by the
    rule's margin: bandwidth below margin x its baseline value, latency above margin x it."""
    index = {label: i for i, label in enumerate(base.labels)}
    mapping = np.array([index.get(label, -1) for label in new.labels])
    changes: list[PairChange] = []
    for metric, matrix in new.values.items():
        if metric not in base.values:
            continue
        rule = policy.rule(metric)
        old = base.values[metric]
        for i in range(new.n):
            for j in range(i + 1, new.n):
                a, b = mapping[i], mapping[j]
                if a < 0 or b < 0 or np.isnan(matrix[i, j]) or np.isnan(old[a, b]):
                    continue
                value, reference = float(matrix[i, j]), float(old[a, b])
                got_worse = (
                    value > rule.margin * reference if HIGHER_IS_WORSE[metric] else value < rule.margin * reference
                )
                if got_worse:
                    changes.append(PairChange(metric, (i, j), reference, value))
    return changes


@dataclass
class SweepCheck:
    run: Run
    base_run: Run
    policy: Policy
    matrix: SweepMatrix
    metrics: list[str]  # the metrics both sweeps measured
    changes: list[PairChange]
    missing_hosts: list[str]
    bad_nodes: list[str] = field(default_factory=list)  # a locate sweep's verdict (kinds.locate)

    @property
    def passed(self) -> bool:
        return not self.changes and not self.missing_hosts and not self.bad_nodes

    def margin(self, metric: str) -> float:
        return self.policy.rule(metric).margin


def sweeps_of(runs: Sequence[Run]) -> list[Run]:
    """The sweeps among link-sweep runs; a serial retest run belongs to its sweep and is left out."""
    return [run for run in runs if retest_of(run) is None]


def check_sweep(run: Run, base_run: Run) -> SweepCheck:
    new, base = matrix_from_run(run), matrix_from_run(base_run)
    policy = stored_policy(run) or stored_policy(base_run) or Policy()
    metrics = [metric for metric in new.values if metric in base.values]
    missing = [label for label in base.labels if label not in new.labels]
    return SweepCheck(run, base_run, policy, new, metrics, compare_to_baseline(base, new, policy), missing)
