"""What a link sweep has left to measure after a launch that did not complete, and its
launches as one run (issue 45: nothing measured is lost).

A launch may end part-way (a host that hangs while measuring: the rounds before it are in
the core's stream) or not start at all (a host set aside: sweep/survive.py). The pairs
measured stay measured; the next launch, on the hosts still in the sweep, measures the
pairs of the mode's schedule that are left, in the schedule's own order (a FILE schedule
keeps rounds of disjoint pairs: the core puts each pair into the first round after both
its ranks' last). The launches become one run over the hosts still in the sweep, in the
sweep's order: every point's ranks those hosts' indices, as the matrix and the store take
them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

from commscope.records.run import Point, Run


def schedule_pairs(schedule: str, n: int) -> Iterator[tuple[int, int]]:
    """The pairs of a generated schedule of the core (src/util/schedule.c) over n ranks, in
    its order: "all-pairs" (the circle method, round by round) or "one-to-all:ROOT"."""
    if schedule.startswith("one-to-all"):
        root = int(schedule.partition(":")[2] or 0)
        yield from ((root, rank) for rank in range(n) if rank != root)
        return
    size = n + n % 2  # an odd count gets a bye
    ring = list(range(size))
    for _ in range(size - 1):
        for k in range(size // 2):
            a, b = ring[k], ring[size - 1 - k]
            if a < n and b < n:
                yield min(a, b), max(a, b)
        ring = [ring[0], ring[-1], *ring[1:-1]]


def measured_keys(points: Sequence[Point], hosts: Sequence[str]) -> set[tuple[str, str, str]]:
    """(host, host, metric) of every pair measured, the hosts by name in sweep order."""
    found = set()
    for point in points:
        pair = point.pair
        if pair is not None and 0 <= pair.src < len(hosts) and 0 <= pair.dst < len(hosts):
            a, b = sorted((hosts[pair.src], hosts[pair.dst]))
            found.add((a, b, pair.metric))
    return found


def rest_schedule(schedule: str, live: Sequence[str], metrics: Sequence[str], done: set) -> str:
    """A FILE schedule of the pairs of `schedule` over the `live` hosts (their ranks in the
    next launch) that some metric has not measured yet; empty when none is left."""
    lines = []
    for a, b in schedule_pairs(schedule, len(live)):
        low, high = sorted((live[a], live[b]))
        if any((low, high, metric) not in done for metric in metrics):
            lines.append(f"{a} {b}\n")
    return "".join(lines)


def in_sweep_order(run: Run, launched: Sequence[str], hosts: Sequence[str]) -> list[Point]:
    """The points of a launch on `launched` (rank i on its i-th host) with their ranks made
    indices into `hosts`; points of a host no longer in the sweep are left out."""
    index = {host: k for k, host in enumerate(hosts)}
    kept = []
    for point in run.points:
        pair = point.pair
        if pair is None or pair.src >= len(launched) or pair.dst >= len(launched):
            continue
        src, dst = index.get(launched[pair.src]), index.get(launched[pair.dst])
        if src is not None and dst is not None:
            kept.append(dataclasses.replace(point, pair=dataclasses.replace(pair, src=src, dst=dst)))
    return kept


def one_run(launches: Sequence[tuple[Run, Sequence[str]]], hosts: Sequence[str]) -> Run:
    """Launches (each with the hosts it ran on) as one run over `hosts`: the last launch's
    status and provenance, every launch's points once (a pair and metric measured twice
    keeps its first value), and each launch's own output by number where there were more."""
    last = launches[-1][0]
    points, seen = [], set()
    for run, launched in launches:
        for point in in_sweep_order(run, launched, hosts):
            pair = point.pair
            key = (min(pair.src, pair.dst), max(pair.src, pair.dst), pair.metric)
            if key not in seen:
                seen.add(key)
                points.append(point)
    names = {}
    for run, launched in launches:  # the names the core saw, where it saw them
        for host in run.hosts or []:
            for rank in host.get("ranks", []):
                if 0 <= rank < len(launched):
                    names[launched[rank]] = host["name"]
    raw = (
        last.raw
        if len(launches) == 1
        else {
            f"launch-{number}-{name}": data
            for number, (run, _) in enumerate(launches, 1)
            for name, data in run.raw.items()
        }
    )
    return dataclasses.replace(
        last,
        points=points,
        ranks=len(hosts),
        nodes=len(hosts),
        hosts=[{"name": names.get(host, host), "ranks": [k]} for k, host in enumerate(hosts)],
        raw=raw,
        started_at=launches[0][0].started_at,
    )
