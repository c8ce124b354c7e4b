"""`commscope sweep locate`: name the broken parts of a fabric — bad nodes, and with a
topology the switch uplinks — in a few rounds of disjoint pairs, not n-1, with a known
bound on false accusations and a stated detection limit.

Every round's pairs are measured at once. Each pair's value weighs for and against every
part it crosses (its two hosts and, with a topology, the uplinks between their leaf
switches): analysis.evidence's sequential likelihood ratio per part, noise and contention
estimated from the sweep's healthy pairs. A pair counts against a part (says it is slow)
only when every other part it crosses is cleared: slowness is blamed on the one part that
explains it, confirmed against known-good partners. A fast pair counts for every part
it crosses. A pair through a part already named explains nothing more.

1. Round 1 is a random perfect matching; with a topology half of each leaf's hosts are
   paired inside their leaf and the rest across leaves, so one round already tells a slow
   host (slow both ways) from a slow uplink (slow only across).
2. Every later round probes each undecided uplink with cleared hosts on both sides of it,
   then pairs each undecided host with a cleared host it has not met (inside its leaf and
   across, in turn); only when no cleared partner is left are two undecided hosts paired.
3. A part is named when its averaged likelihood ratio reaches parts / alpha (at most alpha
   of the sweeps of a healthy fabric name anything), and for a host when it was slow with
   `confirm` different cleared partners; it is cleared when a slowdown of `detect` or more
   is ruled out at beta. The sweep stops when every part is cleared or named (certain at
   that detection limit), at the round limit, or when no undecided part has a partner left.
   A host MPI cannot start on is set aside: in no round, named by the launcher's words.

What a few rounds cannot show: a slow pair whose parts are all cleared otherwise is a
*suspect pair* (contention, or a bad link): `sweep all-pairs` measures every pair.

The judgement is a function of the rounds measured (their pairs and values), the rules and
the topology (a stored run is judged again by replaying its rounds, `replay`). numpy
throughout: 10,000 hosts plan and judge a round in well under a second.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from commscope.analysis.evidence import (
    Noise,
    averaged,
    clear_from,
    grid,
    named_threshold,
    pair_evidence,
    weights,
)
from commscope.analysis.fabric import NO_SWITCH, Fabric
from commscope.analysis.locate_verdict import (
    CERTAIN,
    MIN_HOSTS,
    NO_PARTNER,
    ROUND_LIMIT,
    AsideNode,
    BadNode,
    BadSwitch,
    LocateVerdict,
    Round,
    Seen,
    SuspectPair,
)
from commscope.analysis.sweep import HIGHER_IS_WORSE, LocateRules, population

#: A value of nothing (0 MB/s) is the slowest there is, not an error.
_FLOOR = 1e-30
#: Round 1's pairs alone estimate the noise from this many on (fewer: the cleared parts' pairs).
NOISE_PAIRS = 30
#: How often judging goes round the parts until what is cleared and named settles.
_SETTLE = 12


@dataclass
class Locator:
    """The rounds of one locate sweep: `plan()` the next round, `record()` what it
    measured, until `stop` says why not; then `verdict()`."""

    n: int
    metric: str
    rules: LocateRules = field(default_factory=LocateRules)
    seed: int | None = None
    fabric: Fabric | None = None
    rounds: list[Round] = field(default_factory=list)
    stop: str | None = None

    def __post_init__(self) -> None:
        if self.n < MIN_HOSTS:
            raise ValueError(f"locating a bad node needs {MIN_HOSTS} hosts or more, not {self.n}")
        if self.fabric is None:
            self.fabric = Fabric(self.n)
        self._rng = np.random.default_rng(self.seed)
        self._partners: list[set[int]] = [set() for _ in range(self.n)]
        self._inside = np.zeros(self.n, dtype=np.int64)  # pairs inside its leaf, per host
        self.slowdowns = grid(self.rules.detect)
        self._target = int(np.searchsorted(self.slowdowns, round(self.rules.detect, 6)))
        self._prior = weights(self.slowdowns, self._target)
        parts = self.fabric.parts
        self.cleared = np.zeros(parts, dtype=bool)
        self.bad = np.zeros(parts, dtype=bool)
        self.evidence = np.zeros((parts, len(self.slowdowns)))
        # per part, the index of the smallest slowdown ruled out so far (len: none yet):
        # a slowdown once ruled out stays ruled out, the test of it stopped there
        self.ruled_out_from = np.full(parts, len(self.slowdowns))
        self.noise: Noise | None = None
        self._pair_evidence = np.empty((0, len(self.slowdowns)))
        self._paths = np.empty((0, self.fabric.width), dtype=np.int64)
        # an uplink no pair of the hosts swept can cross (no host below it, or none beyond)
        # is out of the verdict: nothing measured can decide it
        self._decidable = np.concatenate([np.ones(self.n, dtype=bool), self.fabric.crossable()])
        self.aside: dict[int, AsideNode] = {}

    def set_aside(self, host: int, reason: str, evidence: str) -> None:
        """A host MPI cannot start on (start_faults.py): in no round or judging from now on."""
        self.aside[host] = AsideNode(host, reason, evidence, len(self.rounds) + 1)
        self._decidable[host] = False

    @property
    def healthy(self) -> np.ndarray:
        """Hosts cleared (the host parts)."""
        return self.cleared[: self.n]

    @property
    def undecided(self) -> np.ndarray:
        """Parts neither cleared nor named, of those a pair can cross."""
        return self._decidable & ~self.cleared & ~self.bad

    # -- planning -------------------------------------------------------------------

    def plan(self) -> np.ndarray:
        """The next round's pairs (k x 2 host indices, disjoint); none when `stop` is set."""
        if self.stop is not None:
            return np.empty((0, 2), dtype=np.int64)
        pairs = self._first_round() if not self.rounds else self._confirmation_pairs()
        if not pairs:
            self.stop = NO_PARTNER
        return np.array(pairs, dtype=np.int64).reshape(-1, 2)

    def _first_round(self) -> list[tuple[int, int]]:
        """A random perfect matching; with a topology, half of each leaf inside it (a leaf of
        2 or 3 hosts one pair: with none, its slow uplink would look like its hosts)."""
        order = self._rng.permutation(np.setdiff1d(np.arange(self.n), list(self.aside)))
        if not self.fabric.known:
            return [tuple(pair) for pair in order[: order.size // 2 * 2].reshape(-1, 2).tolist()]
        pairs, across = [], []
        leaves = self.fabric.leaf[order]
        for leaf in np.unique(leaves):
            members = order[leaves == leaf]
            inside = max(members.size // 4, 1) * 2 if leaf != NO_SWITCH and members.size >= 2 else 0
            pairs += [tuple(pair) for pair in members[:inside].reshape(-1, 2).tolist()]
            across += members[inside:].tolist()
        across = self._rng.permutation(across).tolist()
        pairs += [(across[k], across[k + 1]) for k in range(0, len(across) // 2 * 2, 2)]
        return pairs

    def _confirmation_pairs(self) -> list[tuple[int, int]]:
        fabric = self.fabric
        used = np.zeros(self.n, dtype=bool)
        pairs: list[tuple[int, int]] = []
        # partners: cleared hosts, those cleared of the smallest slowdown first
        cleared = np.flatnonzero(self.healthy)
        cleared = cleared[np.lexsort((self._rng.random(cleared.size), self.ruled_out_from[cleared]))]
        by_leaf: dict[int, list[int]] = {}
        for host in cleared.tolist():
            by_leaf.setdefault(int(fabric.leaf[host]), []).append(host)
        everywhere = cleared.tolist()
        starts: dict[int, int] = {}  # per pool, where its unused hosts begin

        def partner_for(host: int, inside: bool | None) -> int | None:
            met = self._partners[host]
            leaf = int(fabric.leaf[host])
            pool = by_leaf.get(leaf, []) if inside else everywhere
            start = starts.get(id(pool), 0)
            while start < len(pool) and used[pool[start]]:
                start += 1
            starts[id(pool)] = start
            for candidate in pool[start:]:
                if used[candidate] or candidate in met or candidate == host:
                    continue
                if inside is False and (fabric.leaf[candidate] == leaf or not self._path_cleared(host, candidate)):
                    continue
                return candidate
            return None

        # uplinks first: on a small fabric the undecided hosts take every partner beyond them
        for switch in np.flatnonzero(self.undecided[self.n :]).tolist():
            pairs += self._probes(switch, used, by_leaf, everywhere)
        undecided_hosts = np.flatnonzero(self.undecided[: self.n])
        self._rng.shuffle(undecided_hosts)
        alone = []
        for host in undecided_hosts.tolist():
            if used[host]:
                continue
            if fabric.known:
                # alternate: inside its leaf (no uplink to blame) and across (its uplink cleared)
                inside_first = self._inside[host] <= len(self._partners[host]) - self._inside[host]
                order = (True, False) if inside_first else (False, True)
            else:
                order = (None,)
            partner = next((p for p in (partner_for(host, inside) for inside in order) if p is not None), None)
            if partner is None:
                alone.append(host)
                continue
            used[host] = used[partner] = True
            pairs.append((host, partner))
        for index, host in enumerate(alone):  # no cleared partner left: two undecided hosts
            if used[host]:
                continue
            partner = next((h for h in alone[index + 1 :] if not used[h] and h not in self._partners[host]), None)
            if partner is not None:
                used[partner] = used[host] = True
                pairs.append((host, partner))
        return pairs

    def _path_cleared(self, a: int, b: int) -> bool:
        uplinks = self.fabric.crossed(int(self.fabric.leaf[a]), int(self.fabric.leaf[b]))
        return all(self.cleared[part] for part in uplinks)

    def _probes(self, switch: int, used: np.ndarray, by_leaf: dict, everywhere: list[int]) -> list[tuple[int, int]]:
        """Pairs of cleared hosts through an undecided uplink: one below it, one beyond, no
        uplink between them named (`confirm` of them at most per round)."""
        below = set(self.fabric.hosts_under(switch).tolist())
        found = []
        inner = [h for leaf in {int(self.fabric.leaf[h]) for h in below} for h in by_leaf.get(leaf, []) if h in below]
        outer = iter(h for h in everywhere if h not in below)
        for host in inner:
            if len(found) >= self.rules.confirm or used[host]:
                continue
            for other in outer:
                if used[other] or other in self._partners[host]:
                    continue
                crossed = self.fabric.crossed(int(self.fabric.leaf[host]), int(self.fabric.leaf[other]))
                # no part named on the way; the others need not be cleared yet (none is at first)
                if not any(self.bad[part] for part in crossed):
                    used[host] = used[other] = True
                    found.append((host, other))
                    break
        return found

    # -- judging --------------------------------------------------------------------

    def record(self, pairs: np.ndarray, values: Sequence[float] | np.ndarray) -> Round:
        """Judge a round's measured values (in the order of `pairs`) and every part again."""
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (len(pairs),):
            raise ValueError(f"{len(pairs)} pairs but {values.size} values")
        for a, b in pairs.tolist():
            self._partners[a].add(b)
            self._partners[b].add(a)
            self._inside[[a, b]] += bool(self.fabric.known and self.fabric.leaf[a] == self.fabric.leaf[b])
        self._paths = np.concatenate([self._paths, self.fabric.paths(pairs)])
        all_values = np.concatenate([*(r.values for r in self.rounds), values])
        logs = np.log(np.maximum(all_values, _FLOOR)) * (-1.0 if HIGHER_IS_WORSE[self.metric] else 1.0)
        # a pair that moved nothing (0 MB/s) is no sample of the noise, and slow whatever the
        # others did: were all pairs at 0 MB/s, no host may be cleared by what was never measured
        healthy = self._noise_sample(logs) & (all_values > 0)
        noise = Noise.of(logs[healthy])
        if noise == self.noise:  # as before (round 1 estimates it): only the new pairs weighed
            new = pair_evidence(logs[-len(pairs) :] - noise.median, noise, self.slowdowns)
            self._pair_evidence = np.concatenate([self._pair_evidence, new])
        else:
            self._pair_evidence = pair_evidence(logs - noise.median, noise, self.slowdowns)
        self.noise = noise
        slow_now = self._slow(self._pair_evidence[len(self._pair_evidence) - len(pairs) :])
        reference = population(all_values[healthy].astype(np.float64))
        measured = Round(pairs, values, slow_now, reference)
        self.rounds.append(measured)
        self._judge()
        if not self.undecided.any():
            self.stop = CERTAIN
        elif len(self.rounds) >= self.rules.max_rounds:
            self.stop = ROUND_LIMIT
        return measured

    def _noise_sample(self, logs: np.ndarray) -> np.ndarray:
        """The pairs the noise is estimated from, less those through a part already named:
        round 1's, a random matching of every host and so an unbiased sample of the fabric
        (later rounds pair the suspects); where round 1 is small, the pairs of parts cleared
        so far (while fewer than 3, the faster half of the pairs so far: a fault only slows,
        and on a few hosts it is in half the pairs or more, whose median would be its speed)."""
        known = self._paths >= 0
        safe = np.where(known, self._paths, 0)
        named = np.any(known & self.bad[safe], axis=1)
        first = len(self.rounds[0].pairs) if self.rounds else len(logs)
        sample = np.zeros(len(logs), dtype=bool)
        if first >= NOISE_PAIRS:
            sample[:first] = True
        else:
            sample[: len(self._paths)] = np.all(~known | self.cleared[safe], axis=1)
            if np.count_nonzero(sample) < 3:
                sample[:] = logs >= np.median(logs)
        return sample & ~named if np.count_nonzero(sample & ~named) >= 2 else sample

    def _slow(self, evidence: np.ndarray) -> np.ndarray:
        """Pairs better explained by a slowdown of `detect` or more than by a healthy one."""
        return evidence[:, self._target :].max(axis=1) > 0

    def _judge(self) -> None:
        """Clear and name parts from every pair so far, again and again until nothing
        changes: clearing a part lets the pairs through it blame the others."""
        from scipy.sparse import csr_matrix  # here: planning alone needs none of scipy

        paths, evidence = self._paths, self._pair_evidence
        known = paths >= 0
        safe = np.where(known, paths, 0)
        pair_of, slot_of = np.nonzero(known)  # one entry per part a pair crosses
        part_of = paths[pair_of, slot_of]
        parts = self.fabric.parts
        fast, slow_part = np.minimum(evidence, 0.0), np.maximum(evidence, 0.0)
        threshold = named_threshold(int(self._decidable.sum()), self.rules.alpha)
        slow = self._slow(evidence)
        for _ in range(_SETTLE):
            uncleared = (known & ~self.cleared[safe]).sum(axis=1)
            named = (known & self.bad[safe]).sum(axis=1)
            # per entry: does the pair count for this part (no other part of it named), and
            # may its slowness blame this part (every other part of it cleared)?
            counts = named[pair_of] - self.bad[part_of] == 0
            blames = counts & (uncleared[pair_of] - ~self.cleared[part_of] == 0)
            # only the undecided parts' evidence can change a decision (decisions stand)
            open_entry = self.undecided[part_of]
            shape = (parts, len(paths))
            rows, columns = part_of[open_entry], pair_of[open_entry]
            for_fast = csr_matrix((counts[open_entry].astype(np.float64), (rows, columns)), shape=shape)
            for_slow = csr_matrix((blames[open_entry].astype(np.float64), (rows, columns)), shape=shape)
            self.evidence = for_fast @ fast + for_slow @ slow_part
            self.confirming = np.bincount(part_of, weights=blames & slow[pair_of], minlength=parts)
            open_parts = np.flatnonzero(self.undecided)
            named_now = self.bad.copy()
            named_now[open_parts] |= (averaged(self.evidence[open_parts], self._prior) >= threshold) & (
                self.confirming[open_parts] >= self.rules.confirm
            )
            ruled_out = self.ruled_out_from.copy()
            ruled_out[open_parts] = np.minimum(
                ruled_out[open_parts], clear_from(self.evidence[open_parts], self.rules.beta)
            )
            self.ruled_out_from = ruled_out
            # a decision taken in an earlier round stands: each part's test stops when it decides
            cleared_now = (self.ruled_out_from <= self._target) & ~named_now & self._decidable
            if np.array_equal(named_now, self.bad) and np.array_equal(cleared_now, self.cleared):
                break
            self.bad, self.cleared = named_now, cleared_now

    # -- verdict --------------------------------------------------------------------

    def seen(self, host: int) -> list[Seen]:
        found = []
        for number, measured in enumerate(self.rounds, start=1):
            rows = np.flatnonzero((measured.pairs == host).any(axis=1))
            for row in rows.tolist():
                a, b = measured.pairs[row].tolist()
                found.append(Seen(number, b if a == host else a, float(measured.values[row]), bool(measured.slow[row])))
        return found

    def detection_limit(self) -> float | None:
        """The smallest slowdown of the grid ruled out for every host and uplink not named
        (None when even the largest is not ruled out for some part)."""
        open_parts = self._decidable & ~self.bad
        if not open_parts.any():
            return float(self.slowdowns[0])
        worst = int(self.ruled_out_from[open_parts].max())
        return float(self.slowdowns[worst]) if worst < len(self.slowdowns) else None

    def verdict(self) -> LocateVerdict:
        last = self.rounds[-1].reference if self.rounds else None
        reference = last.median if last is not None else float("nan")
        all_pairs = np.concatenate([r.pairs for r in self.rounds] or [np.empty((0, 2), np.int64)])
        all_values = np.concatenate([r.values for r in self.rounds] or [np.empty(0)])
        all_rounds = np.concatenate([np.full(len(r.pairs), k) for k, r in enumerate(self.rounds, 1)] or [[]])
        slow = np.concatenate([r.slow for r in self.rounds] or [np.empty(0, dtype=bool)])
        bad_nodes = []
        for host in np.flatnonzero(self.bad[: self.n]).tolist():
            pairs = self.seen(host)
            partners = tuple(sorted({p.partner for p in pairs if p.slow and self.cleared[p.partner]}))
            value = float(np.median([p.value for p in pairs]))
            bad_nodes.append(BadNode(host, value, reference, len(partners), tuple(pairs), partners))
        bad_switches = []
        for switch in np.flatnonzero(self.bad[self.n :]).tolist():
            through = np.flatnonzero((self._paths == self.fabric.uplink(switch)).any(axis=1))
            evidence = [
                (int(all_rounds[k]), int(all_pairs[k, 0]), int(all_pairs[k, 1]), float(all_values[k]))
                for k in through.tolist()
                if slow[k] and self.cleared[all_pairs[k]].all()
            ]
            bad_switches.append(
                BadSwitch(
                    self.fabric.switches[switch],
                    tuple(self.fabric.hosts_under(switch).tolist()),
                    float(np.median(all_values[through])) if through.size else float("nan"),
                    reference,
                    len(evidence),
                    tuple(evidence),
                )
            )
        suspects = []
        for number, measured in enumerate(self.rounds, start=1):
            offset = sum(len(r.pairs) for r in self.rounds[: number - 1])
            for row in np.flatnonzero(measured.slow).tolist():
                path = self._paths[offset + row]
                if not self.bad[path[path >= 0]].any():
                    a, b = measured.pairs[row].tolist()
                    suspects.append(
                        SuspectPair(
                            (min(a, b), max(a, b)), number, float(measured.values[row]), measured.reference.median
                        )
                    )
        undecided = self.undecided
        return LocateVerdict(
            metric=self.metric,
            n=self.n,
            rounds=len(self.rounds),
            pairs_measured=sum(len(r.pairs) for r in self.rounds),
            stop=self.stop or ROUND_LIMIT,
            bad_nodes=bad_nodes,
            suspect_pairs=suspects,
            cleared=np.flatnonzero(self.healthy).tolist(),
            undecided=np.flatnonzero(undecided[: self.n]).tolist(),
            reference=last,
            round_summary=[(len(r.pairs), int(r.slow.sum()), r.reference.median) for r in self.rounds],
            bad_switches=bad_switches,
            undecided_switches=[self.fabric.switches[s] for s in np.flatnonzero(undecided[self.n :]).tolist()],
            target=self.rules.detect,
            detection_limit=self.detection_limit(),
            alpha=self.rules.alpha,
            beta=self.rules.beta,
            noise=self.noise,
            uplinks=int(self._decidable[self.n :].sum()),
            set_aside=sorted(self.aside.values(), key=lambda node: node.host),
        )


def replay(
    n: int,
    metric: str,
    rules: LocateRules,
    rounds: Sequence[tuple[np.ndarray, np.ndarray]],
    stop: str,
    fabric: Fabric | None = None,
    aside: Sequence[AsideNode] = (),
) -> LocateVerdict:
    """The verdict of rounds measured before (a stored run), judged as they were then (a host
    set aside before its round); `stop` is why that sweep stopped (a replay cannot know)."""
    locator = Locator(n, metric, rules, fabric=fabric)
    for number, measured in enumerate([*rounds, None], start=1):
        for node in (node for node in aside if min(node.round, len(rounds) + 1) == number):
            locator.set_aside(node.host, node.reason, node.evidence)
        if measured is not None:
            locator.record(*measured)
    locator.stop = stop
    return locator.verdict()
