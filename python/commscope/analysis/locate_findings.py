"""A locate sweep's verdict assembled from its Locator (analysis.locate): each bad node with
its pairs and the confirmation that named it, each bad switch with the slow pairs across it,
the suspect pairs, what was cleared, left undecided or not confirmed."""

from __future__ import annotations

import numpy as np

from commscope.analysis.evidence import slower_than
from commscope.analysis.locate_verdict import ROUND_LIMIT, BadNode, BadSwitch, LocateVerdict, Seen, SuspectPair
from commscope.analysis.sweep import HIGHER_IS_WORSE


def seen(locator, host: int) -> list[Seen]:
    """Every pair of `host` so far, from its side."""
    found = []
    for number, measured in enumerate(locator.rounds, start=1):
        rows = np.flatnonzero((measured.pairs == host).any(axis=1))
        for row in rows.tolist():
            a, b = measured.pairs[row].tolist()
            found.append(Seen(number, b if a == host else a, float(measured.values[row]), bool(measured.slow[row])))
    return found


def verdict_of(locator) -> LocateVerdict:
    n, rounds, fabric = locator.n, locator.rounds, locator.fabric
    ordinary = [r for r in rounds if not r.alone]
    last = ordinary[-1].reference if ordinary else None
    reference = last.median if last is not None else float("nan")
    all_pairs = np.concatenate([r.pairs for r in rounds] or [np.empty((0, 2), np.int64)])
    all_values = np.concatenate([r.values for r in rounds] or [np.empty(0)])
    all_rounds = np.concatenate([np.full(len(r.pairs), k) for k, r in enumerate(rounds, 1)] or [[]])
    slow = np.concatenate([r.slow for r in rounds] or [np.empty(0, dtype=bool)])
    paths = locator.paths
    bad_nodes = []
    for host in np.flatnonzero(locator.bad[:n]).tolist():
        pairs = seen(locator, host)
        confirmation = locator.confirmations.get(host)
        # healthy partners: those with the slowdown it was named for ruled out (on a noisy
        # fabric a partner cleared of 80 %, not of 20 %, says a host 90 % slow is the slow one)
        index = np.searchsorted(locator.slowdowns, confirmation.slowdown) if confirmation else locator.target
        healthy = locator.ruled_out_from <= index
        partners = tuple(sorted({p.partner for p in pairs if p.slow and healthy[p.partner]}))
        median = float(np.median([p.value for p in pairs]))
        bad_nodes.append(BadNode(host, median, reference, len(partners), tuple(pairs), partners, confirmation))
    bad_switches = []
    for switch in np.flatnonzero(locator.bad[n:]).tolist():
        through = np.flatnonzero((paths == fabric.uplink(switch)).any(axis=1))
        evidence = [
            (int(all_rounds[k]), int(all_pairs[k, 0]), int(all_pairs[k, 1]), float(all_values[k]))
            for k in through.tolist()
            if slow[k] and locator.cleared[all_pairs[k]].all()
        ]
        bad_switches.append(
            BadSwitch(
                fabric.switches[switch],
                tuple(fabric.hosts_under(switch).tolist()),
                float(np.median(all_values[through])) if through.size else float("nan"),
                reference,
                len(evidence),
                tuple(evidence),
                locator.confirmations.get(fabric.uplink(switch)),
            )
        )
    suspects = []
    offset = 0
    known = paths >= 0
    explaining = np.any(known & (locator.bad | locator.pending)[np.where(known, paths, 0)], axis=1)
    ordinary = np.concatenate([np.full(len(r.pairs), not r.alone) for r in rounds] or [np.empty(0, dtype=bool)])
    # as slow a pair, how many the bursts fitted would give among the pairs measured at once
    eligible = int(np.count_nonzero(ordinary & ~explaining))
    sign = -1.0 if HIGHER_IS_WORSE[locator.metric] else 1.0
    for number, measured in enumerate(rounds, start=1):
        rows = [row for row in np.flatnonzero(measured.slow).tolist() if not explaining[offset + row]]
        # a pair through a part named or waiting for its confirmation is that part's
        residuals = sign * (np.log(np.maximum(measured.values[rows], 1e-30)) - measured.reference.log_median)
        expected = eligible * slower_than(residuals, locator.noise) if locator.noise else np.zeros(len(rows))
        for row, expect in zip(rows, expected.tolist()):
            a, b = measured.pairs[row].tolist()
            value, median = float(measured.values[row]), measured.reference.median
            suspects.append(SuspectPair((min(a, b), max(a, b)), number, value, median, expect))
        offset += len(measured.pairs)
    undecided = locator.undecided
    pending = np.flatnonzero(locator.pending).tolist()
    return LocateVerdict(
        metric=locator.metric,
        n=n,
        rounds=len(rounds),
        pairs_measured=sum(len(r.pairs) for r in rounds),
        stop=locator.stop or ROUND_LIMIT,
        bad_nodes=bad_nodes,
        suspect_pairs=suspects,
        cleared=np.flatnonzero(locator.healthy).tolist(),
        undecided=np.flatnonzero(undecided[:n]).tolist(),
        reference=last,
        round_summary=[(len(r.pairs), int(r.slow.sum()), r.reference.median, r.alone) for r in rounds],
        bad_switches=bad_switches,
        undecided_switches=[fabric.switches[s] for s in np.flatnonzero(undecided[n:]).tolist()],
        target=locator.rules.detect,
        detection_limit=locator.detection_limit(),
        alpha=locator.rules.alpha,
        beta=locator.rules.beta,
        noise=locator.noise,
        uplinks=locator.uplinks,
        unconfirmed=[part for part in pending if part < n],
        unconfirmed_switches=[fabric.switches[part - n] for part in pending if part >= n],
        not_reproduced=[
            (part if part < n else fabric.switches[part - n], found) for part, found in locator.not_reproduced
        ],
        set_aside=sorted(locator.aside.values(), key=lambda node: node.host),
        leaves=[(name, hosts) for name, hosts in fabric.leaf_groups()] if fabric.known else [],
        host_values=host_medians(n, rounds),
    )


def host_medians(n: int, rounds) -> np.ndarray:
    """Each host's median over its pairs measured at once (NaN for a host in none)."""
    at_once = [r for r in rounds if not r.alone]
    if not at_once:
        return np.full(n, np.nan)
    pairs = np.concatenate([r.pairs for r in at_once])
    values = np.concatenate([r.values for r in at_once])
    hosts, doubled = pairs.T.ravel(), np.concatenate([values, values])
    order = np.argsort(hosts, kind="stable")
    hosts, doubled = hosts[order], doubled[order]
    found = np.full(n, np.nan)
    starts = np.flatnonzero(np.r_[True, hosts[1:] != hosts[:-1]])
    for host, part in zip(hosts[starts].tolist(), np.split(doubled, starts[1:])):
        found[host] = float(np.median(part))
    return found
