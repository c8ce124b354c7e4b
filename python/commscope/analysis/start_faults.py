"""Hosts whose MPI cannot start: what a sweep's failed launches said of them, and when that
names a host bad (issue 45).

The nodes a site sweeps for are most often those whose MPI cannot even start (a bad
adapter, driver or firmware, a full /tmp). Such a host is set aside, named bad with the
launcher's own words as evidence and left out of the launches and rounds that follow,
while the others are measured:

- its ranks died at start (by a signal, before anything was measured, as the launcher
  says it) in two launches in a row, the same host named both times: "MPI fails to start
  on vnode3: rank 2 died by SIGSEGV in 2 of 2 launches". A death that moves from host to
  host is blamed on none (Open MPI's TCP wire-up kills a rank of a healthy host now and
  then);
- it never said it started (the core's start line, src/mpi/started.c) in a launch stopped
  for not getting going, and a start-up probe with it failed again: "MPI hangs at start on
  vnode3: ...";
- start-up probes over halves of the hosts failed with it and passed without it, where the
  launch named no host (a rank 0 that hangs, a launcher that says no more than "crashed").

No confirmation round follows (analysis/locate.py confirms slow parts, whose evidence is
noise): a host that cannot start MPI twice has shown what it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

#: Why a host is set aside, as the verdict's `reason` says it.
FAILS = "fails at MPI start"
HANGS = "hangs at MPI start"
#: Launches in a row that must name the same host before its death at start names it bad.
DEATHS_NEEDED = 2


@dataclass(frozen=True)
class StartFault:
    """A host set aside: its name, why (FAILS or HANGS), and the evidence in a sentence."""

    host: str
    reason: str
    evidence: str

    def record(self) -> dict:
        """As the stored sweep and the --json keep it."""
        return {"host": self.host, "reason": self.reason, "evidence": self.evidence}

    @classmethod
    def of(cls, record: object) -> StartFault | None:
        """From a stored record; None for one that is not (a stored run read back never fails)."""
        if not isinstance(record, dict) or not all(isinstance(record.get(key), str) for key in cls.__annotations__):
            return None
        return cls(record["host"], record["reason"], record["evidence"])


def stored_faults(records: object) -> list[StartFault]:
    """The hosts a stored sweep set aside (its record's `set_aside`), those it can read."""
    found = [StartFault.of(record) for record in records] if isinstance(records, list) else []
    return [fault for fault in found if fault is not None]


@dataclass
class DeathWatch:
    """The tries of one launch that failed at start, and the hosts each try's launcher said
    a rank died on, with its words. `died` names a host bad once it was named in each of the
    last DEATHS_NEEDED tries; a host named once, then another, blames none."""

    tries: list[dict[str, str]] = field(default_factory=list)

    def died(self, named: dict[str, str]) -> list[StartFault]:
        """One more try failed at start; `named` holds the hosts its launcher said a rank died
        on, each with the words without the host ("rank 2 died by SIGSEGV"): the faults this
        try makes certain."""
        self.tries.append(dict(named))
        if len(self.tries) < DEATHS_NEEDED:
            return []
        recent = self.tries[-DEATHS_NEEDED:]
        return [self._fault(host, how) for host, how in named.items() if all(host in tried for tried in recent)]

    def named_last(self) -> list[StartFault]:
        """The hosts the last try named, however few tries named them: what is left to probe
        once no try is (a start that failed naming no host, then one that named a host)."""
        return [self._fault(host, how) for host, how in (self.tries[-1] if self.tries else {}).items()]

    def _fault(self, host: str, how: str) -> StartFault:
        times = sum(host in tried for tried in self.tries)
        return StartFault(host, FAILS, f"MPI fails to start on {host}: {how} in {times} of {len(self.tries)} launches")

    def forget(self, hosts: Sequence[str]) -> None:
        """The deaths of `hosts` no longer count against them: a probe cleared them."""
        self.tries = [{host: how for host, how in tried.items() if host not in hosts} for tried in self.tries]

    @property
    def moved(self) -> list[str]:
        """The hosts named in turn, where the deaths moved between hosts and none was named in
        the last tries in a row (empty: they did not)."""
        named = [host for tried in self.tries for host in tried]
        return list(dict.fromkeys(named)) if len(set(named)) > 1 else []


def not_started(hosts: Sequence[str], started: Sequence[str]) -> list[str]:
    """The hosts of a launch (one rank each) without a start line; all of them when no rank
    said it started (then the start lines tell nothing: rank 0 writes them)."""
    seen = set(started)
    return [host for host in hosts if host not in seen]


def halves(hosts: Sequence[str]) -> list[list[str]]:
    """A group of hosts split for the next probes: two halves, or the host alone."""
    middle = (len(hosts) + 1) // 2
    return [list(hosts[:middle]), list(hosts[middle:])] if len(hosts) > 1 else [list(hosts)]
