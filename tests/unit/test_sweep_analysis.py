"""Sweep flags (analysis/sweep.py) on hand-made matrices: the bad node of four hosts (half
the pairs), the bad link, contention cleared by a retest, rule files with FILE:LINE
errors, and a pairs run's points through the store with their pair."""

from __future__ import annotations

import numpy as np
import pytest

from commscope.analysis.sweep import (
    DEFAULT_RULES,
    MetricRule,
    Policy,
    find_suspects,
    judge,
    matrix_from_points,
)
from commscope.analysis.sweep_check import compare_to_baseline
from commscope.analysis.sweep_rules import RulesError, load_rules
from commscope.records.invocation import invocation
from commscope.records.run import Pair, Point, Run
from commscope.store.db import Store

HOSTS = ["vnode1", "vnode2", "vnode3", "vnode4"]


def points(values: dict[tuple[int, int], float], metric: str = "bw") -> list[Point]:
    key = "latency_us" if metric == "latency" else "bandwidth_MBps"
    return [
        Point(size=8, metrics={key: value}, pair=Pair(a, b, metric, HOSTS[a], HOSTS[b], 0, 0, 0, 0))
        for (a, b), value in values.items()
    ]


def bw_matrix(values):
    return matrix_from_points(points(values), n=4)


ALL = [(a, b) for a in range(4) for b in range(a + 1, 4)]


def test_one_bad_node_of_four_is_named_although_it_is_half_the_pairs():
    values = {pair: (6.0 if 2 in pair else 500.0 + 7 * i) for i, pair in enumerate(ALL)}
    m = bw_matrix(values)
    assert m.labels == HOSTS
    suspects = find_suspects(m.values["bw"], "bw", DEFAULT_RULES["bw"])
    assert suspects.nodes == [2]
    retest = {pair: 6.1 for pair in suspects.retest_pairs(Policy(), m.values["bw"])}
    assert all(2 in pair for pair in retest)
    verdict = judge(suspects, DEFAULT_RULES["bw"], retest, m.values["bw"])
    assert verdict.bad_nodes() == {2} and verdict.bad_links() == set()
    (flag,) = verdict.flags
    assert "bad with 3 of 3 partners" in flag.evidence(m.labels) and "alone 6.1 MB/s" in flag.evidence(m.labels)


def test_a_node_bad_with_noisy_partners_is_retested_and_confirmed():
    """The sweep of the docs: the host is bad, but its partners vary so much that no single
    pair of it is far from the pairs' median; its pairs are retested all the same."""
    values = {(0, 1): 27.17, (0, 2): 4.97, (0, 3): 21.57, (1, 2): 4.21, (1, 3): 38.18, (2, 3): 5.15}
    m = bw_matrix(values)
    suspects = find_suspects(m.values["bw"], "bw", DEFAULT_RULES["bw"])
    assert suspects.nodes == [2]
    to_retest = suspects.retest_pairs(Policy(), m.values["bw"])
    assert sorted(to_retest) == [(0, 2), (1, 2), (2, 3)]
    verdict = judge(suspects, DEFAULT_RULES["bw"], {pair: 5.0 for pair in to_retest}, m.values["bw"])
    (flag,) = verdict.flags
    assert (flag.kind, flag.where, flag.retest, flag.partners_bad, flag.partners) == ("node", (2,), 5.0, 3, 3)
    # measured alone at full speed: the node was contention, and nothing is flagged
    verdict = judge(suspects, DEFAULT_RULES["bw"], {pair: 30.0 for pair in to_retest}, m.values["bw"])
    assert verdict.flags == [] and len(verdict.cleared) == 3


def test_one_bad_link_is_a_link_not_a_node():
    values = {pair: (50.0 if pair == (0, 1) else 500.0 + 3 * i) for i, pair in enumerate(ALL)}
    m = bw_matrix(values)
    suspects = find_suspects(m.values["bw"], "bw", DEFAULT_RULES["bw"])
    assert suspects.nodes == [] and suspects.pairs == [(0, 1)]
    verdict = judge(suspects, DEFAULT_RULES["bw"], {(0, 1): 48.0}, m.values["bw"])
    assert verdict.bad_links() == {(0, 1)} and verdict.bad_nodes() == set()


def test_a_pair_fine_alone_was_contention():
    values = {pair: (200.0 if pair == (1, 3) else 500.0) for pair in ALL}
    m = bw_matrix(values)
    suspects = find_suspects(m.values["bw"], "bw", DEFAULT_RULES["bw"])
    verdict = judge(suspects, DEFAULT_RULES["bw"], {(1, 3): 505.0}, m.values["bw"])
    assert verdict.flags == [] and [c.pair for c in verdict.cleared] == [(1, 3)]


def test_latency_needs_both_far_and_twice_the_minimum():
    values = {pair: 10.0 + i * 0.1 for i, pair in enumerate(ALL)}
    values[(0, 3)] = 15.0  # far from the others, but not twice the minimum
    m = matrix_from_points(points(values, "latency"), n=4)
    assert find_suspects(m.values["latency"], "latency", DEFAULT_RULES["latency"]).pairs == []
    values[(0, 3)] = 25.0
    m = matrix_from_points(points(values, "latency"), n=4)
    assert find_suspects(m.values["latency"], "latency", DEFAULT_RULES["latency"]).pairs == [(0, 3)]


def test_baseline_comparison_is_per_pair():
    base = bw_matrix({pair: 500.0 for pair in ALL})
    new = bw_matrix({pair: (300.0 if pair == (2, 3) else 500.0) for pair in ALL})
    (change,) = compare_to_baseline(base, new, Policy())
    assert change.pair == (2, 3) and change.ratio == pytest.approx(0.6)


def test_rules_file(tmp_path):
    good = tmp_path / "rules.yaml"
    good.write_text("bw:\n  mad_k: 4\n  margin: 0.8\nmax_retests: 10\n")
    policy = load_rules(good)
    assert policy.rules["bw"] == MetricRule(4.0, 0.8) and policy.rules["latency"] == DEFAULT_RULES["latency"]
    assert policy.max_retests == 10
    bad = tmp_path / "bad.yaml"
    bad.write_text("bw:\n  mad_k: 3\n  margn: 0.8\nlatency:\n  margin: -1\n")
    with pytest.raises(RulesError) as error:
        load_rules(bad)
    text = str(error.value)
    assert f"{bad}:3: bw.margn: unknown key" in text
    assert f"{bad}:5: latency.margin:" in text and "greater than 0" in text


def test_pairs_survive_the_store(tmp_path):
    run = Run(benchmark="pairs", ranks=4, points=points({(0, 2): 123.0, (1, 3): 456.0}))
    with Store(tmp_path / "r.db") as store:
        run_id = store.add_run(run, store.add_invocation(invocation("test", [])))
        loaded = store.run(run_id)
    assert [p.pair for p in loaded.points] == [p.pair for p in run.points]
    assert matrix_from_points(loaded.points, 4).values["bw"][2, 0] == np.float32(123.0)
