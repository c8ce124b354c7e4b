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
3. A part whose evidence passes a screen (half the naming threshold's log, slow with two
   cleared partners) is pending: the next round is its confirmation, a round of its own
   measured one pair at a time, `confirm` pairs through it with cleared partners beside
   control pairs of cleared hosts (analysis.locate_confirm). It is named only when each of
   those pairs is slow against the controls and its averaged likelihood ratio, those pairs
   included, reaches parts / alpha (at most alpha of the sweeps of a healthy fabric name
   anything, under the noise fitted); else it is undecided again. A part is cleared when a
   slowdown of `detect` or more is ruled out at beta. The sweep stops when every part is
   cleared or named (certain at that detection limit), at the round limit, or when no
   undecided part has a partner left.
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
    noise_beside,
    weights,
)
from commscope.analysis.fabric import Fabric
from commscope.analysis.locate_confirm import (
    CONTROLS,
    MAX_CONFIRMATIONS,
    SCREEN_PARTNERS,
    SCREEN_SHARE,
    Confirmation,
    controls_of,
    part_pairs,
    plan_confirmation,
)
from commscope.analysis.locate_findings import verdict_of
from commscope.analysis.locate_noise import NOISE_PAIRS, Sampling
from commscope.analysis.locate_plan import Planning
from commscope.analysis.locate_verdict import (
    CERTAIN,
    MIN_HOSTS,
    NO_PARTNER,
    ROUND_LIMIT,
    AsideNode,
    LocateVerdict,
    Round,
)
from commscope.analysis.sweep import HIGHER_IS_WORSE, LocateRules, population

#: The sweep's noise counts as this many control pairs where a confirmation round's controls
#: say how noisy pairs measured alone are.
CONTROL_WEIGHT = 4
#: A value of nothing (0 MB/s) is the slowest there is, not an error.
_FLOOR = 1e-30
#: How often judging goes round the parts until what is cleared and named settles.
_SETTLE = 12


@dataclass
class Locator(Planning, Sampling):
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
        # about to be named: the next round confirms them (analysis.locate_confirm)
        self.pending = np.zeros(parts, dtype=bool)
        self.refuted = np.zeros(parts, dtype=np.int64)  # confirmations that did not reproduce
        self._pending_since = np.zeros(parts, dtype=np.int64)  # the rounds judged when it became so
        self.confirmations: dict[int, Confirmation] = {}  # part -> the one that named it
        self.not_reproduced: list[tuple[int, Confirmation]] = []
        self.alone = False  # whether the round planned is a confirmation round
        self._suspicion = np.zeros(parts, dtype=np.int64)  # slow pairs through each part
        self._pair_evidence = np.empty((0, len(self.slowdowns)))
        self._paths = np.empty((0, self.fabric.width), dtype=np.int64)
        # per pair its round (0-based); per confirmation round the noise of its control pairs
        # (measured alone as its pairs were) and how many they were
        self._round_of = np.empty(0, dtype=np.int64)
        self._control_noise: dict[int, tuple[Noise, int]] = {}
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
        """Parts neither cleared nor named, of those a pair can cross (pending ones included)."""
        return self._decidable & ~self.cleared & ~self.bad

    @property
    def in_sweep(self) -> np.ndarray:
        """Per host: not set aside (a host MPI cannot start on is in no round after)."""
        return self._decidable[: self.n]

    @property
    def open(self) -> np.ndarray:
        """Undecided parts not waiting for their confirmation: what ordinary rounds pair."""
        return self.undecided & ~self.pending

    def _confirm_now(self) -> bool:
        """Whether the next round confirms the pending parts: as soon as they are pending
        while few parts are open (the confirmation round decides a few open hosts too), else
        once one of them has waited an ordinary round for the others (several pending parts
        of a large sweep share one confirmation round instead of one each)."""
        pending = np.flatnonzero(self.pending)
        if not pending.size:
            return False
        few = np.count_nonzero(self.open[: self.n]) <= CONTROLS * self.rules.confirm
        return few or bool((len(self.rounds) - self._pending_since[pending] >= 1).any())

    # -- planning -------------------------------------------------------------------

    def plan(self) -> np.ndarray:
        """The next round's pairs (k x 2 host indices); none when `stop` is set. An ordinary
        round's pairs are disjoint, measured at once; a confirmation round's (`alone` set)
        are measured one at a time, and a host may be in several."""
        self.alone = False
        if self.stop is not None:
            return np.empty((0, 2), dtype=np.int64)
        if not self.rounds:
            pairs = self._first_round()
        else:
            pairs = plan_confirmation(self) if self._confirm_now() else []
            self.alone = bool(pairs)
            pairs = pairs or self._later_pairs()
        if not pairs:
            self.stop = NO_PARTNER
        return np.array(pairs, dtype=np.int64).reshape(-1, 2)

    # -- judging --------------------------------------------------------------------

    def record(self, pairs: np.ndarray, values: Sequence[float] | np.ndarray, alone: bool | None = None) -> Round:
        """Judge a round's measured values (in the order of `pairs`) and every part again;
        `alone`: a confirmation round, measured one pair at a time (default: as planned)."""
        alone = self.alone if alone is None else alone
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (len(pairs),):
            raise ValueError(f"{len(pairs)} pairs but {values.size} values")
        for a, b in pairs.tolist():
            self._partners[a].add(b)
            self._partners[b].add(a)
            self._inside[[a, b]] += bool(self.fabric.known and self.fabric.leaf[a] == self.fabric.leaf[b])
        paths = self.fabric.paths(pairs)
        self._paths = np.concatenate([self._paths, paths])
        all_values = np.concatenate([*(r.values for r in self.rounds), values])
        logs = np.log(np.maximum(all_values, _FLOOR)) * (-1.0 if HIGHER_IS_WORSE[self.metric] else 1.0)
        # a pair measured alone is no sample of the noise of a round at once; one that moved
        # nothing (0 MB/s) is none either, and slow whatever the others did: were all pairs at
        # 0 MB/s, no host may be cleared by what was never measured
        kinds = [*(np.full(len(r.pairs), not r.alone) for r in self.rounds), np.full(len(pairs), not alone)]
        ordinary = np.concatenate(kinds).astype(bool)
        self._logs, self._usable = logs, ordinary & (all_values > 0)
        healthy = self._noise_sample(logs) & self._usable
        # round 1 of a large sweep is an unbiased sample of everything, spread included (and the
        # noise then stays as it is, unless a part is named: no pair's evidence weighed again);
        # on a small one the spread is every pair's measured at once but a named part's
        large = len(self.rounds[0].pairs) >= NOISE_PAIRS if self.rounds else len(pairs) >= NOISE_PAIRS
        spread = healthy if large else ordinary & ~self._through(self.bad | self.pending)
        noise = Noise.of(logs[healthy], logs[spread])
        controls = controls_of(self, pairs, paths) if alone else np.empty(0, dtype=np.int64)
        self._round_of = np.concatenate([self._round_of, np.full(len(pairs), len(self.rounds))])
        if controls.size:  # its pairs are judged by what healthy pairs show alone beside them
            alone_logs = logs[len(logs) - len(pairs) :][controls]
            self._control_noise[len(self.rounds)] = (noise_beside(alone_logs, noise, CONTROL_WEIGHT), controls.size)
        if noise == self.noise:  # as before (round 1 estimates it): only the new pairs weighed
            new = self._evidence(noise, slice(len(logs) - len(pairs), None), logs)
            self._pair_evidence = np.concatenate([self._pair_evidence, new])
        else:
            self._pair_evidence = self._evidence(noise, slice(None), logs)
        self.noise = noise
        slow_now = self._slow(self._pair_evidence[len(self._pair_evidence) - len(pairs) :])
        known = paths >= 0
        self._suspicion += np.bincount(paths[known & slow_now[:, None]], minlength=self.fabric.parts)
        beside = values[controls] if controls.size else all_values[healthy]
        measured = Round(pairs, values, slow_now, population(beside.astype(np.float64)), alone)
        self.rounds.append(measured)
        # the slowdown each pending part's evidence points at, before its confirmation counts
        pointed = {part: int(np.argmax(self.evidence[part])) for part in np.flatnonzero(self.pending).tolist()}
        self._judge()
        if alone:
            self._resolve(measured, paths, controls, pointed)
        if not self.undecided.any():
            self.stop = CERTAIN
        elif len(self.rounds) >= self.rules.max_rounds:
            self.stop = ROUND_LIMIT
        return measured

    def _resolve(self, measured: Round, paths: np.ndarray, controls: np.ndarray, pointed: dict[int, int]) -> None:
        """A confirmation round judged: each part pending when it was planned is named when
        every one of its pairs was slow there, the round's evidence alone passes the screen's
        share and all its evidence the naming threshold; else undecided again, its
        confirmation counted with its other pairs (and confirmed again when it passes the
        screen once more: evidence short of the threshold, its pairs slow again)."""
        threshold = named_threshold(int(self._decidable.sum()), self.rules.alpha)
        beside = tuple((*measured.pairs[k].tolist(), float(measured.values[k])) for k in controls.tolist())
        first = len(self._paths) - len(measured.pairs)
        pair_of, part_of = self._entries
        for part, column in pointed.items():
            rows = part_pairs(self, part, measured.pairs, paths).tolist()
            # slow as the part is judged (on a small sweep, against the noise of its own sample)
            mine = np.flatnonzero((part_of == part) & (pair_of >= first))
            slow = {int(pair_of[k]) - first for k in mine[self._entry_slow[mine]]}
            found = Confirmation(
                len(self.rounds),
                tuple((*measured.pairs[k].tolist(), float(measured.values[k]), k in slow) for k in rows),
                beside,
                measured.reference.median,
                float(self.slowdowns[column]),
            )
            # the round's own likelihood ratio for the slowdown the part's evidence pointed at
            # before it (a fixed alternative, no average) past the rest of the threshold: a
            # healthy part passes the screen with probability at most (alpha / parts) to the
            # SCREEN_SHARE, this with at most (alpha / parts) to the rest; both, alpha / parts
            evidence = self._entry_evidence_now[mine, column]
            alone = float(np.where(self._blame_from[mine] <= column, evidence, np.minimum(evidence, 0.0)).sum())
            total = averaged(self.evidence[[part]], self._prior)[0]
            if found.reproduced and alone >= (1 - SCREEN_SHARE) * threshold and total >= threshold:
                self.bad[part] = True
                self.confirmations[part] = found
            elif not found.reproduced:
                self.refuted[part] += 1
                self.not_reproduced.append((part, found))
            self.pending[part] = False
        self._judge()  # the names taken: their pairs explain nothing more for the others

    def _slow(self, evidence: np.ndarray) -> np.ndarray:
        """Pairs better explained by a slowdown of `detect` or more than by a healthy one."""
        return evidence[:, self._target :].max(axis=1) > 0

    def _judge(self) -> None:
        """Clear and name parts from every pair so far, again and again until nothing
        changes: clearing a part lets the pairs through it blame the others."""
        from scipy.sparse import csr_matrix  # here: planning alone needs none of scipy

        paths = self._paths
        known = paths >= 0
        safe = np.where(known, paths, 0)
        pair_of, slot_of = np.nonzero(known)  # one entry per part a pair crosses
        part_of = paths[pair_of, slot_of]
        entries = np.arange(len(pair_of))
        evidence = self._entry_evidence(pair_of, part_of)
        parts = self.fabric.parts
        fast, slow_part = np.minimum(evidence, 0.0), np.maximum(evidence, 0.0)
        self._entry_evidence_now = evidence
        threshold = named_threshold(int(self._decidable.sum()), self.rules.alpha)
        self._entries, self._entry_slow = (pair_of, part_of), self._slow(evidence)
        # the slowdown each entry's pair points at (its evidence's largest alternative)
        pointed = np.argmax(evidence, axis=1)
        columns = np.arange(len(self.slowdowns))[None, :]
        for _ in range(_SETTLE):
            named = (known & self.bad[safe]).sum(axis=1)
            # per entry: does the pair count for this part (no other part of it named), and
            # from which slowdown on may its slowness blame this part (every other part of it
            # has that slowdown ruled out: a partner too noisy to be cleared of 20 % may still
            # be cleared of 80 %, and a pair 90 % slow then blames the part beside it)
            counts = named[pair_of] - self.bad[part_of] == 0
            blame_from = self._others_ruled_out(known, safe, pair_of, slot_of)
            # only the undecided parts' evidence can change a decision (decisions stand)
            live = entries[self.undecided[part_of]]
            weight = csr_matrix(
                (counts[live].astype(np.float64), (part_of[live], np.arange(live.size))), shape=(parts, live.size)
            )
            self.evidence = weight @ (fast[live] + slow_part[live] * (columns >= blame_from[live, None]))
            blames = counts & (blame_from <= pointed)
            self._blame_from = blame_from
            self.confirming = np.bincount(part_of, weights=blames & self._entry_slow, minlength=parts)
            # a part whose evidence passes the screen waits for its confirmation round; one whose
            # evidence no longer does (its slow pairs another part's, named meanwhile) no longer
            live = np.flatnonzero(self.undecided)
            screen = (averaged(self.evidence[live], self._prior) >= SCREEN_SHARE * threshold) & (
                self.confirming[live] >= SCREEN_PARTNERS
            )
            pending_now = np.zeros_like(self.pending)
            pending_now[live] = screen & (self.refuted[live] < MAX_CONFIRMATIONS)
            self._pending_since[pending_now & ~self.pending] = len(self.rounds)
            open_parts = np.flatnonzero(self.undecided & ~pending_now)
            ruled_out = self.ruled_out_from.copy()
            ruled_out[open_parts] = np.minimum(
                ruled_out[open_parts], clear_from(self.evidence[open_parts], self.rules.beta)
            )
            # a decision taken in an earlier round stands: each part's test stops when it decides
            cleared_now = (ruled_out <= self._target) & ~self.bad & ~pending_now & self._decidable
            settled = np.array_equal(ruled_out, self.ruled_out_from) and np.array_equal(pending_now, self.pending)
            self.ruled_out_from, self.pending, self.cleared = ruled_out, pending_now, cleared_now
            if settled:
                break

    def _others_ruled_out(self, known, safe, pair_of, slot_of) -> np.ndarray:
        """Per entry, the smallest grid index ruled out for every other part of its pair."""
        ruled = np.where(known, self.ruled_out_from[safe], -1)
        top = ruled.max(axis=1)
        first = ruled.argmax(axis=1)
        rest = ruled.copy()
        rest[np.arange(len(ruled)), first] = -1
        second = rest.max(axis=1)
        return np.where(slot_of == first[pair_of], second[pair_of], top[pair_of])

    # -- verdict --------------------------------------------------------------------

    def detection_limit(self) -> float | None:
        """The smallest slowdown of the grid ruled out for every host and uplink not named
        (None when even the largest is not ruled out for some part)."""
        open_parts = self._decidable & ~self.bad
        if not open_parts.any():
            return float(self.slowdowns[0])
        worst = int(self.ruled_out_from[open_parts].max())
        return float(self.slowdowns[worst]) if worst < len(self.slowdowns) else None

    @property
    def paths(self) -> np.ndarray:
        """Every pair's parts so far, a row per pair (Fabric.paths)."""
        return self._paths

    @property
    def target(self) -> int:
        """The grid index of the slowdown asked to be ruled out (--detect)."""
        return self._target

    @property
    def uplinks(self) -> int:
        """The uplinks a pair of the hosts can cross: those the verdict judges."""
        return int(self._decidable[self.n :].sum())

    def verdict(self) -> LocateVerdict:
        return verdict_of(self)


def replay(
    n: int,
    metric: str,
    rules: LocateRules,
    rounds: Sequence[tuple[np.ndarray, np.ndarray]],
    stop: str,
    fabric: Fabric | None = None,
    aside: Sequence[AsideNode] = (),
    alone: Sequence[int] = (),
) -> LocateVerdict:
    """The verdict of rounds measured before (a stored run), judged as they were then (a host
    set aside before its round); `stop` is why that sweep stopped (a replay cannot know),
    `alone` the numbers of its confirmation rounds (1-based)."""
    locator = Locator(n, metric, rules, fabric=fabric)
    for number, measured in enumerate([*rounds, None], start=1):
        for node in (node for node in aside if min(node.round, len(rounds) + 1) == number):
            locator.set_aside(node.host, node.reason, node.evidence)
        if measured is not None:
            locator.record(*measured, alone=number in alone)
    locator.stop = stop
    return locator.verdict()
