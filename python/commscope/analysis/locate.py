"""`commscope sweep locate`: name the bad nodes in a few rounds of disjoint pairs, not n-1.

A bad node slows every pair it is in, so it need not be seen with every partner:

1. Round 1 is a random perfect matching: every host in one pair, all pairs at once (an
   odd count leaves one host for round 2). Its pairs are judged by the all-pairs rules
   (analysis.sweep.worse: far from the pairs' median by mad_k scaled MADs of the logs,
   and beyond the margin), against the round's own pairs.
2. Every later round pairs each undecided host with a host already seen healthy that it
   has not met yet (hosts that were never slow first); only when no healthy partner is
   left are two undecided hosts paired. A round's pairs are judged against every pair
   measured so far whose hosts were healthy before the round, so the suspects' own pairs
   never move the reference.
3. After each round every host is judged from all it was seen in:
   healthy    at least one normal pair, and at most one slow pair more than normal ones
              (a slow pair with a bad node or with transient contention, then a normal
              one, is healthy);
   bad        slow with `confirm` different healthy partners, and that many more slow
              pairs than normal ones: never one slow pair alone;
   undecided  the rest, including a host not measured yet.
   The sweep stops when no host is undecided (the verdict is certain under the rules),
   at the round limit, or when no undecided host has a partner left it has not met.

What a few rounds cannot show: a slow pair between two hosts that are healthy otherwise
is a *suspect pair*: transient contention, or a bad link between those two hosts. Only
the pairs measured were seen; `sweep all-pairs` measures every one.

The judgement is a function of the rounds measured (their pairs and values) and the
rules; the random choice of pairs is the planner's alone, so a stored run is judged again
by replaying its rounds (`replay`). numpy throughout: 10,000 hosts plan and judge a round
in milliseconds (performance/sweep/locate.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from commscope.analysis.sweep import VALUE_KEY, Flag, LocateRules, MetricRule, Policy, Population, population, worse
from commscope.analysis.sweep_verdicts import record_of, stored_policy, sweep_record
from commscope.errors import UsageError
from commscope.records.run import Run

#: The mode a locate sweep is recorded with (analysis.sweep_verdicts' "sweep" entry).
LOCATE_MODE = "locate"
#: Fewer hosts give round 1 too few pairs (two) for a median and MAD to single one out,
#: and all-pairs measures them in at most 4 rounds anyway.
MIN_HOSTS = 6
#: Why a locate sweep stopped.
CERTAIN, ROUND_LIMIT, NO_PARTNER = "certain", "round limit", "no partner left"


@dataclass(frozen=True)
class Round:
    """One round: its pairs (k x 2 host indices), their values, and which were slow."""

    pairs: np.ndarray
    values: np.ndarray
    slow: np.ndarray
    reference: Population  # what its pairs were judged against


@dataclass(frozen=True)
class Seen:
    """One pair of a host, from the host's side."""

    round: int  # 1-based
    partner: int
    value: float
    slow: bool


@dataclass(frozen=True)
class BadNode:
    host: int
    value: float  # median over its pairs
    reference: float  # the healthy pairs' median it was judged against
    slow_with_healthy: int  # distinct healthy partners it was slow with
    pairs: tuple[Seen, ...]


@dataclass(frozen=True)
class SuspectPair:
    """A slow pair between two hosts not named bad: contention, or a bad link."""

    pair: tuple[int, int]
    round: int
    value: float
    reference: float


@dataclass
class LocateVerdict:
    metric: str
    n: int
    rounds: int
    pairs_measured: int
    stop: str  # CERTAIN, ROUND_LIMIT or NO_PARTNER
    bad_nodes: list[BadNode]
    suspect_pairs: list[SuspectPair]
    cleared: list[int]
    undecided: list[int]
    reference: Population | None = None
    round_summary: list[tuple[int, int, float]] = field(default_factory=list)  # pairs, slow, reference median

    @property
    def certain(self) -> bool:
        return self.stop == CERTAIN


@dataclass
class Locator:
    """The rounds of one locate sweep: `plan()` the next round, `record()` what it
    measured, until `stop` says why not; then `verdict()`."""

    n: int
    metric: str
    rule: MetricRule
    rules: LocateRules = field(default_factory=LocateRules)
    seed: int | None = None
    rounds: list[Round] = field(default_factory=list)
    stop: str | None = None

    def __post_init__(self) -> None:
        if self.n < MIN_HOSTS:
            raise ValueError(f"locating a bad node needs {MIN_HOSTS} hosts or more, not {self.n}")
        self._rng = np.random.default_rng(self.seed)
        self._partners: list[set[int]] = [set() for _ in range(self.n)]
        self._judge_hosts()

    # -- planning -------------------------------------------------------------------

    def plan(self) -> np.ndarray:
        """The next round's pairs (k x 2 host indices, disjoint); none when `stop` is set."""
        if self.stop is not None:
            return np.empty((0, 2), dtype=np.int64)
        if not self.rounds:
            order = self._rng.permutation(self.n)
            return order[: self.n // 2 * 2].reshape(-1, 2)
        pairs = self._confirmation_pairs()
        if not pairs:
            self.stop = NO_PARTNER
        return np.array(pairs, dtype=np.int64).reshape(-1, 2)

    def _confirmation_pairs(self) -> list[tuple[int, int]]:
        undecided = np.flatnonzero(self.undecided)
        self._rng.shuffle(undecided)
        healthy = np.flatnonzero(self.healthy)
        # partners that were never slow first, then the fewest slow pairs over normal ones
        rank = np.lexsort((self._rng.random(healthy.size), (self.slow_count - self.normal_count)[healthy]))
        pool = healthy[rank].tolist()
        used = np.zeros(self.n, dtype=bool)
        pairs, alone = [], []
        start = 0
        for host in undecided.tolist():
            while start < len(pool) and used[pool[start]]:
                start += 1
            met = self._partners[host]
            partner = next((h for h in pool[start:] if not used[h] and h not in met), None)
            if partner is None:
                alone.append(host)
                continue
            used[partner] = used[host] = True
            pairs.append((host, partner))
        for index, host in enumerate(alone):  # no healthy partner left: two undecided hosts
            if used[host]:
                continue
            partner = next((h for h in alone[index + 1 :] if not used[h] and h not in self._partners[host]), None)
            if partner is not None:
                used[partner] = used[host] = True
                pairs.append((host, partner))
        return pairs

    # -- judging --------------------------------------------------------------------

    def record(self, pairs: np.ndarray, values: Sequence[float] | np.ndarray) -> Round:
        """Judge a round's measured values (in the order of `pairs`) and every host again."""
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (len(pairs),):
            raise ValueError(f"{len(pairs)} pairs but {values.size} values")
        reference = self._reference(pairs, values)
        # a pair that moved nothing is slow whatever the others did: were all pairs at 0 MB/s,
        # the median would be 0 and every host cleared by what was never measured
        slow = np.asarray(worse(self.metric, values, reference, self.rule), dtype=bool).reshape(-1) | (values <= 0)
        measured = Round(pairs, values, slow, reference)
        self.rounds.append(measured)
        for a, b in pairs.tolist():
            self._partners[a].add(b)
            self._partners[b].add(a)
        self._judge_hosts()
        if not self.undecided.any():
            self.stop = CERTAIN
        elif len(self.rounds) >= self.rules.max_rounds:
            self.stop = ROUND_LIMIT
        return measured

    def _reference(self, pairs: np.ndarray, values: np.ndarray) -> Population:
        """Round 1: its own pairs. Later: every pair so far of two hosts healthy before this
        round (all pairs so far while there are fewer than two of those)."""
        all_pairs = np.concatenate([*(r.pairs for r in self.rounds), pairs])
        all_values = np.concatenate([*(r.values for r in self.rounds), values])
        if self.rounds:
            keep = self.healthy[all_pairs[:, 0]] & self.healthy[all_pairs[:, 1]]
            if np.count_nonzero(keep) >= 2:
                all_values = all_values[keep]
        moved = all_values[all_values > 0]  # a pair that moved nothing is no reference
        # float64: the values as measured (float32 made 100.0 a median of 100.0000064, and
        # overflowed for values beyond 3.4e38); a copy, as population() uses it as scratch
        return population(np.array(moved if moved.size else all_values, dtype=np.float64))

    def _judge_hosts(self) -> None:
        n = self.n
        if self.rounds:
            pairs = np.concatenate([r.pairs for r in self.rounds])
            slow = np.concatenate([r.slow for r in self.rounds])
        else:
            pairs, slow = np.empty((0, 2), dtype=np.int64), np.empty(0, dtype=bool)
        normal_pairs, slow_pairs = pairs[~slow], pairs[slow]
        self.normal_count = np.bincount(normal_pairs.ravel(), minlength=n)
        self.slow_count = np.bincount(slow_pairs.ravel(), minlength=n)
        healthy = (self.normal_count >= 1) & (self.slow_count <= self.normal_count + 1)
        # planning never pairs two hosts twice, so these partners are distinct
        a, b = slow_pairs[:, 0], slow_pairs[:, 1]
        self.slow_with_healthy = np.bincount(a, weights=healthy[b], minlength=n) + np.bincount(
            b, weights=healthy[a], minlength=n
        )
        confirm = self.rules.confirm
        self.bad = (self.slow_with_healthy >= confirm) & (self.slow_with_healthy >= self.normal_count + confirm)
        self.healthy = healthy & ~self.bad
        self.undecided = ~self.healthy & ~self.bad

    # -- verdict --------------------------------------------------------------------

    def seen(self, host: int) -> list[Seen]:
        found = []
        for number, measured in enumerate(self.rounds, start=1):
            rows = np.flatnonzero((measured.pairs == host).any(axis=1))
            for row in rows.tolist():
                a, b = measured.pairs[row].tolist()
                found.append(Seen(number, b if a == host else a, float(measured.values[row]), bool(measured.slow[row])))
        return found

    def verdict(self) -> LocateVerdict:
        last = self.rounds[-1].reference if self.rounds else None
        reference = last.median if last is not None else float("nan")
        bad_nodes = []
        for host in np.flatnonzero(self.bad).tolist():
            pairs = self.seen(host)
            bad_nodes.append(
                BadNode(
                    host,
                    float(np.median([p.value for p in pairs])),
                    reference,
                    int(self.slow_with_healthy[host]),
                    tuple(pairs),
                )
            )
        suspects = []
        for number, measured in enumerate(self.rounds, start=1):
            for row in np.flatnonzero(measured.slow).tolist():
                a, b = measured.pairs[row].tolist()
                if not (self.bad[a] or self.bad[b]):
                    pair = (min(a, b), max(a, b))
                    suspects.append(SuspectPair(pair, number, float(measured.values[row]), measured.reference.median))
        return LocateVerdict(
            metric=self.metric,
            n=self.n,
            rounds=len(self.rounds),
            pairs_measured=sum(len(r.pairs) for r in self.rounds),
            stop=self.stop or ROUND_LIMIT,
            bad_nodes=bad_nodes,
            suspect_pairs=suspects,
            cleared=np.flatnonzero(self.healthy).tolist(),
            undecided=np.flatnonzero(self.undecided).tolist(),
            reference=last,
            round_summary=[(len(r.pairs), int(r.slow.sum()), r.reference.median) for r in self.rounds],
        )


def replay(
    n: int,
    metric: str,
    rule: MetricRule,
    rules: LocateRules,
    rounds: Sequence[tuple[np.ndarray, np.ndarray]],
    stop: str,
) -> LocateVerdict:
    """The verdict of rounds measured before (a stored run), judged as they were then;
    `stop` is why that sweep stopped (a replay cannot know whether it ran out of time)."""
    locator = Locator(n, metric, rule, rules)
    for pairs, values in rounds:
        locator.record(pairs, values)
    locator.stop = stop
    return locator.verdict()


# -- the record in the provenance, and a stored run judged again -----------------------


def locate_record(policy: Policy, metric: str, stop: str, seed: int | None, oracle: str | None) -> dict:
    """The run's "sweep" entry: the mode, the rules (the rules file's shape), and what
    locate adds: its metric, why it stopped, the planner's seed, the oracle if any."""
    record = sweep_record(LOCATE_MODE, policy, retest=False)
    record["locate"] = {"metric": metric, "stop": stop, "seed": seed, "oracle": oracle}
    return record


def is_locate(run: Run) -> bool:
    return record_of(run).get("mode") == LOCATE_MODE


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
    verdict = replay(n, metric, policy.rule(metric), policy.locate, rounds, entry.get("stop", ROUND_LIMIT))
    return verdict, labels


def node_flags(verdict: LocateVerdict) -> list[Flag]:
    """The bad nodes as the link sweeps' flags, for their pair table and heatmaps."""
    return [
        Flag(
            "node",
            verdict.metric,
            (node.host,),
            node.value,
            node.reference,
            None,
            partners_bad=sum(seen.slow for seen in node.pairs),
            partners=len(node.pairs),
        )
        for node in verdict.bad_nodes
    ]
