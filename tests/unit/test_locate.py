"""`sweep locate`'s rounds (analysis/locate.py) against the simulated network
(sweep/simulate.py): planted bad nodes are named, bad links and contention stay suspect
pairs, no healthy host is accused, a single slow pair never names a host, and a stored
sweep replays to the same verdict."""

from __future__ import annotations

import json
import subprocess
import sys
import zlib

import numpy as np
import pytest

from commscope.analysis.locate import Locator, replay
from commscope.analysis.locate_verdict import CERTAIN, MIN_HOSTS, ROUND_LIMIT
from commscope.analysis.sweep import LocateRules
from commscope.analysis.sweep_rules import RulesError, load_rules
from commscope.sweep.simulate import Network, answer


def names(n: int) -> list[str]:
    return [f"cn{i:05d}" for i in range(n)]


def locate(n: int, network: Network, seed: int = 1, rules: LocateRules | None = None, metric: str = "bw"):
    hosts = names(n)
    locator = Locator(n, metric, rules or LocateRules(), seed=seed)
    while True:
        pairs = locator.plan()
        if locator.stop:
            break
        locator.record(
            pairs, network.measure(len(locator.rounds) + 1, metric, [(hosts[a], hosts[b]) for a, b in pairs])
        )
        if locator.stop:
            break
    return locator, locator.verdict()


def planted(n: int, bad: int, seed: int) -> tuple[set[int], Network]:
    rng = np.random.default_rng(seed)
    chosen = set(rng.choice(n, bad, replace=False).tolist())
    hosts = names(n)
    slow = {hosts[i]: float(rng.uniform(0.4, 0.75)) for i in chosen}
    return chosen, Network(seed=seed, slow_nodes=slow, noise=0.04, contention=0.01)


@pytest.mark.parametrize("n,bad,seed", [(1000, 8, 3), (1000, 10, 4), (301, 3, 5), (100, 1, 6)])
def test_every_planted_bad_node_is_named_and_no_healthy_host(n, bad, seed):
    chosen, network = planted(n, bad, seed)
    locator, verdict = locate(n, network, seed=seed)
    assert verdict.stop == CERTAIN
    assert {node.host for node in verdict.bad_nodes} == chosen
    assert not verdict.undecided
    assert verdict.rounds <= 6
    assert len(verdict.cleared) == n - bad
    for node in verdict.bad_nodes:  # slow with several different healthy partners
        partners = {seen.partner for seen in node.pairs if seen.slow}
        assert node.slow_with_healthy >= LocateRules().confirm and len(partners) >= node.slow_with_healthy
        assert node.value < 0.8 * node.reference


def test_a_healthy_cluster_is_cleared_in_a_few_rounds_with_contention_as_suspect_pairs():
    network = Network(seed=9, noise=0.04, contention=0.01)
    _, verdict = locate(2000, network, seed=9)
    assert verdict.stop == CERTAIN and verdict.rounds <= 3
    assert not verdict.bad_nodes and len(verdict.cleared) == 2000
    assert verdict.suspect_pairs  # 1 % of 1,000 pairs slowed by contention
    assert all(pair.value < 0.9 * pair.reference for pair in verdict.suspect_pairs)


def test_a_bad_link_is_a_suspect_pair_not_a_bad_node():
    n, seed = 200, 12
    hosts = names(n)
    probe = Locator(n, "bw", seed=seed)
    first = probe.plan()  # the planner's round 1 for this seed: plant bad links on three of its pairs
    links = [tuple(first[k].tolist()) for k in (0, 5, 9)]
    network = Network(seed=seed, bad_links={frozenset((hosts[a], hosts[b])): 0.3 for a, b in links}, contention=0)
    _, verdict = locate(n, network, seed=seed)
    assert not verdict.bad_nodes
    assert {tuple(sorted(link)) for link in links} <= {pair.pair for pair in verdict.suspect_pairs}
    assert all(host in verdict.cleared for link in links for host in link)


def test_one_slow_pair_alone_never_names_a_host():
    """80 hosts: round 1's 40 pairs are enough for the noise's tails to be fitted, and clear
    every host of the healthy pairs (with fewer than 30 the tails are taken heavy, as a
    loaded machine's, and one pair may not clear its hosts)."""
    network = Network(seed=1, slow_nodes={"cn00007": 0.4}, contention=0)
    locator, verdict = locate(80, network, rules=LocateRules(max_rounds=1))
    assert verdict.stop == ROUND_LIMIT and verdict.rounds == 1
    (pair,) = verdict.suspect_pairs
    assert 7 in pair.pair and not verdict.bad_nodes
    assert verdict.undecided == sorted(pair.pair)


def test_too_few_hosts_to_judge_each_other_are_refused():
    with pytest.raises(ValueError, match="6 hosts or more"):
        Locator(MIN_HOSTS - 1, "bw")


def test_the_round_limit_stops_and_says_so():
    network = Network(seed=2, slow_nodes={"cn00003": 0.5}, contention=0)
    _, verdict = locate(50, network, rules=LocateRules(max_rounds=2))
    assert verdict.stop == ROUND_LIMIT and verdict.rounds == 2
    assert not verdict.bad_nodes and 3 in verdict.undecided


def test_rounds_are_disjoint_never_repeat_a_pair_and_an_odd_host_waits_one_round():
    """Rounds measured at once are disjoint and never repeat a pair; a confirmation round is
    measured one pair at a time, its hosts in several pairs and with partners met before."""
    chosen, network = planted(101, 4, 21)
    locator, verdict = locate(101, network, seed=21)
    first = locator.rounds[0].pairs
    assert len(first) == 50 and len(set(first.ravel().tolist())) == 100
    assert verdict.alone_rounds and all(locator.rounds[k - 1].alone for k in verdict.alone_rounds)
    seen: set[frozenset] = set()
    for measured in (measured for measured in locator.rounds if not measured.alone):
        hosts = measured.pairs.ravel().tolist()
        assert len(hosts) == len(set(hosts))
        pairs = {frozenset(pair) for pair in measured.pairs.tolist()}
        assert not pairs & seen
        seen |= pairs
    left_out = (set(range(101)) - set(first.ravel().tolist())).pop()
    assert left_out in locator.rounds[1].pairs
    assert {node.host for node in verdict.bad_nodes} == chosen


def test_latency_is_worse_higher():
    """Latency's margin is twice the smallest pair: nodes at a quarter of the speed."""
    network = Network(seed=31, slow_nodes={"cn00218": 0.25, "cn00361": 0.25})
    chosen = {218, 361}
    _, verdict = locate(400, network, seed=31, metric="latency")
    assert {node.host for node in verdict.bad_nodes} == chosen


def test_a_replay_of_the_rounds_gives_the_same_verdict():
    _, network = planted(500, 5, 41)
    locator, verdict = locate(500, network, seed=41)
    rounds = [(measured.pairs, measured.values) for measured in locator.rounds]
    again = replay(500, "bw", LocateRules(), rounds, verdict.stop, alone=verdict.alone_rounds)
    assert again == verdict


def test_the_rules_file_has_a_locate_section(tmp_path):
    good = tmp_path / "rules.yaml"
    good.write_text("locate:\n  confirm: 3\n  max_rounds: 6\n")
    assert load_rules(good).locate == LocateRules(confirm=3, max_rounds=6)
    bad = tmp_path / "bad.yaml"
    bad.write_text("bw: {mad_k: 3}\nlocate:\n  confirm: 1\n  rounds: 4\n")
    with pytest.raises(RulesError) as error:
        load_rules(bad)
    assert f"{bad}:3: locate.confirm: Input should be greater than or equal to 2" in str(error.value)
    assert f"{bad}:4: locate.rounds: unknown key; allowed keys: confirm, max_rounds" in str(error.value)


def test_the_simulator_answers_the_oracle_protocol(tmp_path):
    config = tmp_path / "network.json"
    config.write_text(json.dumps({"seed": 3, "slow_nodes": {"a": 0.5}, "noise": 0, "contention": 0}))
    request = {"round": 1, "metric": "bw", "pairs": [["a", "b"], ["c", "d"]]}
    result = subprocess.run(
        [sys.executable, "-m", "commscope.sweep.simulate", str(config)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout) == {"values": [["a", "b", 6000.0], ["c", "d", 12000.0]]}
    assert answer(Network.of(json.loads(config.read_text())), request) == json.loads(result.stdout)


@pytest.mark.slow
def test_planning_and_judging_10000_hosts_take_well_under_a_second_a_round():
    import time

    _, network = planted(10000, 100, 51)
    start = time.process_time()
    locator, verdict = locate(10000, network, seed=51)
    assert len(verdict.bad_nodes) == 100
    measuring = sum(len(r.pairs) for r in locator.rounds) * 2e-6  # the simulator's share, roughly
    assert (time.process_time() - start - measuring) / verdict.rounds < 1.0


def test_a_confirmation_round_measures_each_pair_once():
    """Its pairs are measured one at a time in one launch, which records a pair once: a
    control pair that is also an open host's pair is asked for once (a launch on six
    virtual hosts failed on a second record of the same pair)."""
    for seed in range(20):
        chosen, network = planted(6, 1, seed)
        network = Network(seed=seed, slow_nodes=network.slow_nodes, noise=0.3, contention=0.1)
        locator, verdict = locate(6, network, seed=seed)
        for measured in (r for r in locator.rounds if r.alone):
            assert len({frozenset(pair) for pair in measured.pairs.tolist()}) == len(measured.pairs), measured.pairs


def test_a_host_is_confirmed_with_confirm_cleared_partners_never_fewer():
    """Six hosts as noisy as the virtual cluster's (seed 49: one throttled host pending while
    two hosts were cleared): its confirmation waits for a round that clears a third partner,
    and it is named slow with `confirm` different partners, as the rules ask; it had been
    named through two (seen on the virtual cluster once: vnode3 drained, slow with two)."""
    rules = LocateRules(detect=0.8)
    hosts = [f"vnode{k}" for k in range(1, 7)]
    network = Network.of({"seed": 49, "noise": 0.7, "contention": 0.3, "slow_nodes": {"vnode3": 0.05}})
    locator = Locator(6, "bw", rules, seed=49)
    confirmations = []
    while not locator.stop:
        pairs = locator.plan()
        if locator.stop:
            break
        if locator.alone:
            confirmations.append([pair for pair in pairs.tolist() if 2 in pair])
        locator.record(pairs, network.measure(len(locator.rounds) + 1, "bw", [(hosts[a], hosts[b]) for a, b in pairs]))
    [node] = locator.verdict().bad_nodes
    assert node.host == 2 and confirmations and all(len(pairs) == rules.confirm for pairs in confirmations)
    assert len(node.confirmed_by.pairs) == rules.confirm
    assert len({seen.partner for seen in node.pairs if seen.slow}) >= rules.confirm


def test_the_simulator_s_heavy_tails_bursts_and_outliers():
    """Bursts slow one pair of a host by 20-70 %, outliers (a preempted rank) by 80-98 %;
    a round measured alone has no contention but the bursts and outliers of the hosts; a
    network without them gives the values it gave before they existed."""
    pairs = [(f"h{k}", f"h{k + 1}") for k in range(0, 4000, 2)]
    quiet = Network(seed=3, noise=0.0, contention=0.0)
    assert set(quiet.measure(1, "bw", pairs).tolist()) == {12000.0}
    bursty = Network(seed=3, noise=0.0, contention=0.2, bursts=0.05, outliers=0.02)
    at_once, alone = bursty.measure(1, "bw", pairs) / 12000, bursty.measure(1, "bw", pairs, alone=True) / 12000
    assert 0.15 < np.mean(at_once < 1) < 0.4  # 20 % contended, ~10 % burst, 2 % preempted
    assert 0.08 < np.mean(alone < 1) < 0.16 and alone.min() < 0.2  # no contention alone; outliers still
    assert np.all(at_once <= alone + 1e-12)  # contention only slows
    # the values of a seed before bursts and outliers were added: the same draws, in order
    plain = Network(seed=5, noise=0.04, contention=0.01)
    rng = np.random.default_rng([5, 1, zlib.crc32(b"bw")])
    speed = np.exp(rng.normal(0.0, 0.04, len(pairs)))
    busy = rng.random(len(pairs)) < 0.01
    speed[busy] *= rng.uniform(0.3, 0.8, int(busy.sum()))
    assert np.allclose(plain.measure(1, "bw", pairs), 12000 * speed)
