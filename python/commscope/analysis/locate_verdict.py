"""What a locate sweep found, as data: its rounds, the bad nodes and switches with their
evidence, the suspect pairs, what was cleared and left undecided, the detection limit, and
why it stopped (analysis/locate.py judges; output/locate_view.py renders)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from commscope.analysis.evidence import Noise
from commscope.analysis.locate_confirm import Confirmation
from commscope.analysis.sweep import Flag, LocateRules, Population

#: Fewer hosts give round 1 too few pairs (two) for the healthy pairs' spread to be known,
#: and all-pairs measures them in at most 4 rounds anyway.
MIN_HOSTS = 6
#: Why a locate sweep stopped.
CERTAIN, ROUND_LIMIT, NO_PARTNER = "certain", "round limit", "no partner left"


@dataclass(frozen=True)
class Round:
    """One round: its pairs (k x 2 host indices), their values, which were slow, and the
    healthy pairs' values it was judged against."""

    pairs: np.ndarray
    values: np.ndarray
    slow: np.ndarray
    reference: Population  # a confirmation round's: its control pairs'
    alone: bool = False  # a confirmation round, measured one pair at a time


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
    slow_with_healthy: int  # distinct cleared partners it was slow with
    pairs: tuple[Seen, ...]
    slow_with: tuple[int, ...] = ()  # those partners
    confirmed_by: Confirmation | None = None  # its pairs measured alone before it was named


@dataclass(frozen=True)
class BadSwitch:
    """A switch whose uplink slows every pair through it: its hosts fine with each other."""

    switch: str
    hosts: tuple[int, ...]  # the hosts under it
    value: float  # median of the pairs through its uplink
    reference: float
    slow_pairs: int  # pairs of cleared hosts through it that were slow
    pairs: tuple[tuple[int, int, int, float], ...]  # (round, host, host, value) of those
    confirmed_by: Confirmation | None = None


@dataclass(frozen=True)
class AsideNode:
    """A host set aside in `round` (1-based) because MPI fails or hangs at start on it
    (analysis/start_faults.py): named bad by the launcher's words, without a confirmation
    round (a host that cannot start MPI twice has nothing left to confirm), and in no round
    after. `reason` and `evidence` as start_faults.StartFault says them."""

    host: int
    reason: str
    evidence: str
    round: int = 1


@dataclass(frozen=True)
class SuspectPair:
    """A slow pair between two hosts not named bad: contention, or a bad link."""

    pair: tuple[int, int]
    round: int
    value: float
    reference: float
    # how many pairs as slow the bursts fitted would give among the pairs measured: from one
    # on, they explain it (the 1,255 suspects of 10,000 hosts at 5 % contention are that)
    expected: float = 0.0

    @property
    def explained(self) -> bool:
        return self.expected >= 1.0


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
    reference: Population | None = None  # the healthy pairs' of the last round at once
    round_summary: list[tuple[int, int, float, bool]] = field(default_factory=list)  # pairs, slow, median, alone
    bad_switches: list[BadSwitch] = field(default_factory=list)
    undecided_switches: list[str] = field(default_factory=list)
    target: float = LocateRules.detect  # the slowdown asked to be ruled out (--detect)
    detection_limit: float | None = None  # the smallest slowdown ruled out for every part not named
    alpha: float = LocateRules.alpha
    beta: float = LocateRules.beta
    noise: Noise | None = None
    uplinks: int = 0  # switch uplinks judged (a topology's; none without one)
    set_aside: list[AsideNode] = field(default_factory=list)  # hosts MPI fails or hangs at start on
    # parts that passed the screen but were not confirmed when the sweep stopped (never named)
    unconfirmed: list[int] = field(default_factory=list)
    unconfirmed_switches: list[str] = field(default_factory=list)
    # confirmations that did not reproduce: (host index or switch name, what was measured)
    not_reproduced: list[tuple[int | str, Confirmation]] = field(default_factory=list)
    # the fabric map's: the hosts leaf by leaf (a topology's; none without one), and each
    # host's median over its pairs measured at once (NaN: none)
    leaves: list[tuple[str, list[int]]] = field(default_factory=list)
    host_values: np.ndarray = field(default_factory=lambda: np.empty(0), compare=False)

    @property
    def beyond_bursts(self) -> list[SuspectPair]:
        """The suspect pairs slower than the bursts fitted explain."""
        return [pair for pair in self.suspect_pairs if not pair.explained]

    @property
    def alone_rounds(self) -> list[int]:
        """The confirmation rounds' numbers (1-based)."""
        return [k for k, (*_, alone) in enumerate(self.round_summary, start=1) if alone]

    @property
    def certain(self) -> bool:
        return self.stop == CERTAIN

    @property
    def named_hosts(self) -> list[int]:
        """Every host named bad: those MPI cannot start on, then the slow ones."""
        return [node.host for node in self.set_aside] + [node.host for node in self.bad_nodes]


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
