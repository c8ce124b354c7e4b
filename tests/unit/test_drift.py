"""Which of many hosts drifted over many sweeps (analysis.drift, analysis.host_history.many):
ten thousand healthy hosts over thirty simulated nights name none, heavy tails included;
one host's drift among them is named alone, with its size and the night it began; the
change test's p-values hold their level exactly where a normal approximation would not."""

from __future__ import annotations

import numpy as np
import pytest

from commscope.analysis import drift
from commscope.analysis.check import Policy
from commscope.analysis.host_history import HOST, LINK, TOLERANCE, many, matrix, one, sweep_pairs
from commscope.records.run import Run
from commscope.sweep.simulate import Network

HOSTS = [f"cn{index:05d}" for index in range(10000)]


def nights(count: int, hosts: list[str], slow: dict[str, float] | None = None, start: int = 0, **network):
    """`count` nights of one round of disjoint random pairs each (most hosts measured once a
    night, as a locate sweep measures them), simulated; `slow` from night `start` on."""
    found = []
    for night in range(count):
        run = Run("pairs", id=night + 1, started_at=f"2026-01-{night + 1:02d}", invocation_id=night + 1)
        faults = slow if slow and night >= start else {}
        pairs = np.random.default_rng(night).permutation(len(hosts)).reshape(-1, 2)
        values = Network(seed=night, slow_nodes=faults, **network).measure(
            0, "bw", [(hosts[a], hosts[b]) for a, b in pairs]
        )
        found.append(sweep_pairs(run, hosts, pairs[:, 0], pairs[:, 1], values))
    return found


@pytest.mark.slow  # 300,000 host-nights simulated and tested: seconds
def test_ten_thousand_healthy_hosts_over_thirty_nights_name_none():
    history = many(matrix(nights(30, HOSTS), "bw", HOST), Policy(TOLERANCE))
    assert history.series == [] and not history.regressed
    assert history.test.kept.sum() == 0
    # without the correction over the hosts, a few hundred would have been "significant"
    assert (history.test.p < 0.05).sum() > 100


@pytest.mark.slow  # 300,000 host-nights simulated and tested: seconds
def test_one_drift_among_ten_thousand_is_named_alone_with_its_size_and_night():
    found = matrix(nights(30, HOSTS, {"cn04242": 0.8}, start=19), "bw", HOST)
    history = many(found, Policy(TOLERANCE))
    [named] = history.series
    assert named.subject == "cn04242" and named.regressed
    assert named.changes[-1].after.id == 20 and named.changes[-1].before.id == 19
    assert 1.15 < named.drift < 1.35


@pytest.mark.slow  # 300,000 host-nights simulated and tested: seconds
def test_contention_two_nights_running_is_no_drift():
    """1 % of pairs contended at 30-80 % of their speed: some host has two contended nights
    in a row; the null of the change test is the sweeps' own scores, so it stays quiet."""
    found = matrix(nights(30, HOSTS, contention=0.03), "bw", HOST)
    slow = np.nan_to_num(found.values) > 1.2
    assert (slow[:, 1:] & slow[:, :-1]).any()  # two slow nights running, somewhere
    assert many(found, Policy(TOLERANCE)).series == []


def test_the_change_test_keeps_its_level_under_heavy_tails():
    rng = np.random.default_rng(3)
    values = rng.normal(0, 0.04, (20000, 12))
    contended = rng.random(values.shape) < 0.05
    values[contended] += np.log(1 / rng.uniform(0.3, 0.8, contended.sum()))
    p = drift.change_p(drift.scores(values))
    for level in (0.05, 0.01, 0.001):
        assert (p <= level).mean() <= level * 1.2, f"{(p <= level).mean()} of the p-values at or below {level}"


def test_benjamini_hochberg():
    p = np.array([0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216])
    assert drift.benjamini_hochberg(p, 0.05).tolist() == [True, True] + [False] * 8
    assert drift.benjamini_hochberg(np.array([0.01, 0.02, 0.03]), 0.05).all()
    assert not drift.benjamini_hochberg(np.array([]), 0.05).any()


def test_one_link_of_an_all_pairs_history():
    hosts = [f"h{index}" for index in range(6)]
    sweeps = []
    for night in range(8):
        run = Run("pairs", id=night + 1, started_at=f"2026-02-{night + 1:02d}", invocation_id=night + 1)
        a, b = np.triu_indices(6, 1)
        link = {frozenset(("h1", "h4")): 0.5} if night >= 4 else {}
        network = Network(seed=night, bad_links=link, contention=0.0)
        values = network.measure(0, "bw", [(hosts[i], hosts[j]) for i, j in zip(a, b)])
        sweeps.append(sweep_pairs(run, hosts, a, b, values))
    links = matrix(sweeps, "bw", LINK)
    assert len(links.names) == 15 and "h1,h4" in links.names
    [series] = one(links, "h1,h4", Policy(TOLERANCE)).series
    assert series.regressed and series.changes[-1].after.id == 5 and series.drift > 1.8
    assert not one(links, "h1,h2", Policy(TOLERANCE)).regressed


def test_one_bad_link_among_every_pair_of_24_hosts_is_named_alone():
    hosts = [f"h{index:02d}" for index in range(24)]
    a, b = np.triu_indices(len(hosts), 1)
    sweeps = []
    for night in range(10):
        run = Run("pairs", id=night + 1, started_at=f"2026-03-{night + 1:02d}", invocation_id=night + 1)
        link = {frozenset(("h03", "h17")): 0.6} if night >= 6 else {}
        network = Network(seed=night, bad_links=link)
        sweeps.append(
            sweep_pairs(run, hosts, a, b, network.measure(0, "bw", [(hosts[i], hosts[j]) for i, j in zip(a, b)]))
        )
    history = many(matrix(sweeps, "bw", LINK), Policy(TOLERANCE))
    assert [series.subject for series in history.series] == ["h03,h17"]
    assert history.series[0].changes[-1].after.id == 7 and history.series[0].drift > 1.4
    assert many(matrix(sweeps, "bw", HOST), Policy(TOLERANCE)).series == []  # one link: no host drifted


@pytest.mark.parametrize("value", [0.0, -5.0, float("nan"), float("inf")])
def test_values_that_are_no_speed_are_left_out(value):
    run = Run("pairs", id=1)
    pairs = sweep_pairs(run, ["a", "b", "c", "c"], [0, 1, 2, 0], [1, 2, 3, 3], [10.0, value, 5.0, 7.0])
    assert pairs.values.tolist() == [10.0, 7.0]  # the pair within host c and the bad value are gone
