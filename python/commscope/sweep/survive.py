"""A sweep that survives the node it looks for: a launch that fails or hangs at MPI start is
looked into, and the host at fault set aside, named with the launcher's words, while the
sweep goes on with the others (analysis/start_faults.py says when a host is at fault).

After a launch that failed at start (a rank died, or the launcher failed, before anything
was measured), the launcher's words name the host: the same host in two launches in a row
is probed, second in a start-up probe with a host that started, and set aside when it fails
there too; so is a host the last launch named where the one before named none (no start is
left to wait for a second naming). A death that follows the launch, not the host, passes
there and names none: Open MPI 4.1's TCP wire-up on a loaded machine kills rank 0 when its
peers' connects to it time out ("connect() to ... failed: Operation now in progress"), the
same first host launch after launch, and a healthy host named for it would be drained.

After a launch stopped for not getting going (no header within START_LIMIT_S, or --timeout),
the hosts whose ranks never said they started (the core's start lines) are
probed: `commscope-bench hello` over them and one host that did start, a launch of a few
seconds; failing again, they are set aside (one at a time, by halving, when several). Where
the launch said nothing of a host (no start line at all: rank 0's host hung, or MPI_Init
itself waits for the bad host on every rank; a death the launcher names no host for, twice),
probes over halves of the hosts, side by side, find the hosts a probe fails with: about
2 log2(n) short launches for a host among n.

The same rules serve a launch of the core (`Sweeper`, here) and a round answered by
`--oracle` (sweep/locate.py): each says what a try showed as an `Attempt`. The caller (a
link sweep, a locate round) plans again without the hosts set aside: what was measured
before stays measured.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from commscope import ui
from commscope.analysis.start_faults import FAILS, HANGS, DeathWatch, StartFault, halves, not_started
from commscope.execute.outcome import NO_START, ONCE_MORE, Death, cause_deaths, failed_at_start, timed_out
from commscope.execute.stream import ended_complete, started_of
from commscope.records.benchmarks import HELLO_BENCHMARK, PAIRS_BENCHMARK
from commscope.records.run import Run

if TYPE_CHECKING:
    from commscope.execute.signals import StopSignals

#: Seconds a sweep's launch may take to get going (the core's header: MPI_Init on every
#: rank, the hosts gathered): past it, the ranks that never said they started are looked into.
START_LIMIT_S = 120.0
#: Seconds a start-up probe may take: `hello` on a few hosts starts in seconds.
PROBE_LIMIT_S = 60.0

Tried = TypeVar("Tried")


@dataclass(frozen=True)
class Launch:
    """What one launch runs: the benchmark, how long its header may take to come (None:
    --timeout alone), its own timeout (None: the sweep's), and whether it measures (the
    sweep's own launches, within --time-limit) or only probes a start."""

    benchmark: str
    start_limit: float | None = None
    timeout: float | None = None
    measures: bool = True

    def start_limit_under(self, timeout: float | None) -> float | None:
        """The start-up it may take under the sweep's --timeout: a launch that measures takes
        --timeout when given (a large machine's MPI start-up may want more than START_LIMIT_S,
        a test's hang is found sooner); a probe's stays as short as its own limit."""
        if timeout is None or self.start_limit is None:
            return timeout if self.start_limit is None else self.start_limit
        return timeout if self.measures else min(self.start_limit, timeout)


#: A launch of the sweep's measurement: `pairs`, within the start-up a sweep allows.
PAIRS = Launch(PAIRS_BENCHMARK, START_LIMIT_S)
#: A start-up probe: `hello`, stopped at PROBE_LIMIT_S.
PROBE = Launch(HELLO_BENCHMARK, PROBE_LIMIT_S, 2 * PROBE_LIMIT_S, measures=False)


@dataclass(frozen=True)
class Attempt:
    """What one try showed of its start: whether it went through (`ok`), measured part of
    its pairs before it ended, failed at start (`deaths`: the ranks the launcher said died of
    their own, in its words; none where it named none), or never got going (`started`: the
    hosts whose rank said it started; None: no start line at all); `reason` as its run says it."""

    ok: bool
    reason: str = ""
    measured: bool = False
    failed_at_start: bool = False
    deaths: tuple[Death, ...] = ()
    not_going: bool = False
    started: tuple[str, ...] | None = None


def retry_reason(run: Run, signals: StopSignals, attempt: int = 1, retries: int = 1) -> str | None:
    """Why a launch is started again, as the warning says it (None: it is not). The one
    place that decides it: a launch stopped at --timeout or for not getting going, or one a
    rank of which died (or whose launcher failed) before anything was measured; never one a
    stop signal ended. `attempt` of `retries` (--retries) is the start about to be made again."""
    if signals.received:
        return None
    if timed_out(run.status, run.status_reason):
        why, once = "the launch was stopped at --timeout", "starting it once more (only once)"
    elif (run.status_reason or "").startswith(NO_START) or failed_at_start(
        run.status, run.status_reason, len(run.points)
    ):
        why, once = run.status_reason, ONCE_MORE
    else:
        return None
    return f"{why}; {once if retries == 1 else f'starting it again (retry {attempt} of {retries})'}"


def attempt_of(run: Run, hosts: Sequence[str], probe: bool = False) -> Attempt:
    """What a launch of the core on `hosts` (rank i on the i-th) showed, from its run: the
    launcher's words on stderr and stdout, the core's start lines and header in its stream."""
    raw = run.raw or {}
    stream = raw.get("jsonl", b"")
    reason = run.status_reason or run.status
    if (ended_complete(stream) if probe else run.status == "complete") or (run.points and not probe):
        return Attempt(ok=run.status == "complete" or probe, reason=reason, measured=bool(run.points))
    started = started_of(stream)
    going = b'{"header"' in stream
    not_going = not going and (reason.startswith(NO_START) or timed_out(run.status, reason))
    return Attempt(
        ok=False,
        reason=reason,
        failed_at_start=failed_at_start(run.status, run.status_reason, len(run.points)) or (probe and going),
        # a launch stopped for hanging: the ranks the launcher says died are those it killed
        deaths=() if not_going else tuple(cause_deaths(words_of(raw))),
        not_going=not_going,
        started=tuple(started_hosts(started, hosts)) if started else None,
    )


def survive(
    launch: Callable[[], Tried],
    attempt: Callable[[Tried], Attempt],
    probe: Callable[[list[list[str]]], list[Attempt]] | None,
    hosts: Sequence[str],
    retries: int,
    retry: Callable[[Tried, int], str | None],
    signals: StopSignals,
) -> tuple[Tried, list[StartFault]]:
    """Tries of one launch on `hosts`, started again as `retry` says (--retries times at
    most), each failure at start looked into; the last try, and the hosts it set aside (the
    caller plans again without them; with no `probe`, none is: the ranks of a launch on one
    host). A try that measured part of its pairs is given back at once: what it measured is
    kept, the rest planned again by the caller."""
    watch = DeathWatch()
    tried = launch()
    for number in range(1, retries + 2):
        shown = attempt(tried)
        if signals.received or shown.ok or shown.measured:
            return tried, []
        found = look_into(shown, hosts, watch, probe, last=number > retries) if probe else []
        if found:
            for fault in found:
                ui.warn(f"sweep: {fault.host} {fault.reason}, set aside: {fault.evidence}")
            return tried, found
        why = retry(tried, number) if number <= retries else None
        if why is None:
            return tried, []
        ui.warn(f"sweep: {why}")
        tried = launch()
    return tried, []


def look_into(
    shown: Attempt,
    hosts: Sequence[str],
    watch: DeathWatch,
    probe: Callable[[list[list[str]]], list[Attempt]],
    last: bool,
) -> list[StartFault]:
    """The hosts a failed try sets aside (none: start it again, or give up); `last`: no try
    is left, so a failure at start that named no host is probed now."""
    if shown.failed_at_start:
        named = {death.host: words(death) for death in shown.deaths if death.host in hosts}
        faults = watch.died(named)
        if faults:
            return confirmed_deaths(faults, hosts, watch, probe)
        if watch.moved and named:
            ui.warn(f"sweep: the deaths at start moved from host to host ({', '.join(watch.moved)}): none is blamed")
            return []
        if not last or len(watch.tries) < 2:
            return []
        # no try is left: the host the last launch named (the one before named none: MPICH's
        # MPI_Init on another rank gave up on it first) is probed as one named twice would be
        return confirmed_deaths(watch.named_last(), hosts, watch, probe) if named else bisect(list(hosts), None, probe)
    if not shown.not_going:
        return []  # it got going and measured nothing: started again, or the round fails
    said = "in the launch"
    if shown.started is None and len(hosts) > 1:
        # no start line at all: rank 0's host may be the one; a probe with another first tells
        ui.note(
            f"sweep: the launch hung without a start line; a start-up probe of its {len(hosts)} hosts, rank 0 moved"
        )
        (shown,) = probe([[*hosts[1:], hosts[0]]])
        said = "in a start-up probe of every host"
        if shown.ok:
            return []
    missing = not_started(hosts, shown.started or ())
    if shown.started is None or not missing:
        ui.note(f"sweep: no start line named a host; start-up probes over halves of the {len(hosts)} hosts")
        return bisect(list(hosts), None, probe)
    partner = next(host for host in hosts if host not in missing)
    (failed,) = probe([[*missing, partner]])
    if failed.ok:
        ui.note(f"sweep: a start-up probe of {', '.join(missing)} with {partner} passed: the launch starts again")
        return []
    if len(missing) > 1:
        return bisect(missing, partner, probe)
    first = f"its rank never started {said} ({len(shown.started)} of {len(hosts)} did)"
    return [fault_of(missing[0], failed, f"{first}, nor in a start-up probe with {partner}")]


def confirmed_deaths(
    faults: list[StartFault],
    hosts: Sequence[str],
    watch: DeathWatch,
    probe: Callable[[list[list[str]]], list[Attempt]],
) -> list[StartFault]:
    """The deaths at start a start-up probe reproduces: each host the launcher named in the
    last launches in a row, second (never rank 0) in a probe with the first host it did not
    name, side by side. One that passes is not named, and its deaths are forgotten: the
    launch starts again as --retries allows."""
    accused = {fault.host for fault in faults}
    partner = next((host for host in hosts if host not in accused), None)
    if partner is None:  # every host died: nothing to probe beside
        return faults
    shown = probe([[partner, fault.host] for fault in faults])
    cleared = [fault.host for fault, probed in zip(faults, shown) if probed.ok]
    if cleared:
        ui.warn(
            f"sweep: {', '.join(cleared)}: its rank died at start in {len(watch.tries)} launches, yet started in a "
            f"start-up probe with {partner} (rank 0 there): not named, the deaths followed the launch, not the host"
        )
        watch.forget(cleared)
    return [
        dataclasses.replace(fault, evidence=f"{fault.evidence} and a probe with {partner}")
        for fault, probed in zip(faults, shown)
        if not probed.ok
    ]


def bisect(
    hosts: list[str], partner: str | None, probe: Callable[[list[list[str]]], list[Attempt]]
) -> list[StartFault]:
    """Halves probed side by side (each with `partner`, where given), those that fail halved
    again, down to single hosts: the faults of those. A fault that needs two hosts to show
    passes every half and names none."""
    groups, found, launched = halves(hosts), [], 0
    while groups:
        results = probe([[*group, *([partner] if partner else [])] for group in groups])
        launched += len(groups)
        failing = [(group, shown) for group, shown in zip(groups, results) if not shown.ok]
        found += [
            fault_of(group[0], shown, f"start-up probes failed with it and passed without it ({launched} probes)")
            for group, shown in failing
            if len(group) == 1
        ]
        groups = [half for group, _ in failing if len(group) > 1 for half in halves(group)]
    if not found:
        ui.note("sweep: every start-up probe passed: no host is named")
    return found


def words(death: Death) -> str:
    """The launcher's words of a death, without the host the fault names."""
    return f"rank {death.rank} died by {death.how}" if death.rank is not None else f"a rank died ({death.how})"


def fault_of(host: str, shown: Attempt, evidence: str) -> StartFault:
    """The fault of `host` as a failed probe shows it: a death fails, anything else hangs."""
    if shown.deaths:
        return StartFault(host, FAILS, f"MPI fails to start on {host}: {words(shown.deaths[0])}; {evidence}")
    return StartFault(host, HANGS, f"MPI hangs at start on {host}: {evidence}")


def words_of(raw: dict) -> str:
    """What the launcher printed (stderr, and Hydra's stdout), as text."""
    return (raw.get("stderr", b"") + raw.get("stdout", b"")).decode(errors="replace")


def started_hosts(started: dict[int, str], hosts: Sequence[str]) -> list[str]:
    """The hosts whose rank said it started: by the name it gave where the sweep knows the
    name, else by rank (rank i runs on the launch's i-th host)."""
    known = set(hosts)
    if all(name in known for name in started.values()):
        return list(started.values())
    return [hosts[rank] for rank in started if 0 <= rank < len(hosts)]
