"""How a locate sweep's verdict reads (analysis.locate): lines for the terminal, the
--json document, and the report's rows. Every bad node comes with the partners it was
slow with; every suspect pair says that a few rounds cannot tell contention from a bad
link; the last line compares the rounds with all-pairs'."""

from __future__ import annotations

import math
from collections.abc import Sequence

from commscope.analysis.bad_nodes import SLOW
from commscope.analysis.evidence import Noise
from commscope.analysis.locate_confirm import Confirmation
from commscope.analysis.locate_verdict import (
    CERTAIN,
    NO_PARTNER,
    ROUND_LIMIT,
    BadNode,
    BadSwitch,
    LocateVerdict,
    SuspectPair,
)
from commscope.analysis.sweep import UNIT, Policy, number
from commscope.analysis.sweep_rules import rules_mapping
from commscope.output.sweep_view import shown_labels
from commscope.records.textsafe import one_line

NAMES = {"latency": "latency", "bw": "bandwidth", "bibw": "bidirectional bandwidth"}
#: Suspect pairs printed one a line; the rest are counted (--json and the report list all).
SHOWN_SUSPECTS = 10
SUSPECT_NOTE = (
    "a suspect pair was slow once and its hosts were fine with other partners: transient contention, "
    "or a bad link between those two hosts; a few rounds cannot tell which, only `commscope sweep all-pairs` "
    "measures every pair"
)
STOP_TEXT = {
    CERTAIN: "certain: every host is cleared or named",
    ROUND_LIMIT: "the round limit came first: the undecided hosts need more rounds (locate.max_rounds, --detect)",
    NO_PARTNER: "no undecided host has a partner left it has not met",
}


def all_pairs_rounds(n: int) -> int:
    """Rounds of `sweep all-pairs` (the circle method) over n hosts."""
    return n - 1 if n % 2 == 0 else n


def with_unit(value: float, metric: str) -> str:
    return f"{number(value)} {UNIT[metric]}"


def node_evidence(node: BadNode, metric: str, labels: Sequence[str]) -> str:
    slow = [seen for seen in node.pairs if seen.slow]
    partners = ", ".join(f"{labels[s.partner]} (round {s.round}, {with_unit(s.value, metric)})" for s in slow)
    confirmed = f"; {confirmation_text(node.confirmed_by, metric, labels)}" if node.confirmed_by else ""
    return (
        f"{NAMES[metric]} {with_unit(node.value, metric)} (median over its {len(node.pairs)} pairs; pairs' median "
        f"{with_unit(node.reference, metric)}), slow with {node.slow_with_healthy} different healthy partners "
        f"of {len(slow)} slow pairs: {partners}{confirmed}"
    )


def confirmation_text(found: Confirmation, metric: str, labels: Sequence[str]) -> str:
    """How a part was measured again alone: its pairs against the controls beside them."""
    pairs = ", ".join(f"{labels[a]} <-> {labels[b]} {with_unit(value, metric)}" for a, b, value, _ in found.pairs)
    how = f"confirmed {found.slowdown:.0%} slower" if found.reproduced else "not reproduced"
    return (
        f"{how} alone in round {found.round}: {pairs} against {len(found.controls)} control pair"
        f"{'s' if len(found.controls) != 1 else ''} of hosts cleared of that "
        f"(median {with_unit(found.reference, metric)})"
    )


def confirmation_document(found: Confirmation | None, labels: Sequence[str]) -> dict | None:
    """--json's `confirmed_by`: the confirmation round, its pairs and controls with values."""
    if found is None:
        return None
    return {
        "round": found.round,
        "alone": True,
        "reproduced": found.reproduced,
        "slowdown": found.slowdown,
        "pairs": [{"hosts": [labels[a], labels[b]], "value": value, "slow": slow} for a, b, value, slow in found.pairs],
        "controls": [{"hosts": [labels[a], labels[b]], "value": value} for a, b, value in found.controls],
        "reference": found.reference,
    }


def switch_evidence(switch: BadSwitch, metric: str, labels: Sequence[str]) -> str:
    shown = ", ".join(
        f"{labels[a]} <-> {labels[b]} (round {number_}, {with_unit(value, metric)})"
        for number_, a, b, value in switch.pairs[:5]
    )
    more = f" and {len(switch.pairs) - 5} more" if len(switch.pairs) > 5 else ""
    confirmed = f"; {confirmation_text(switch.confirmed_by, metric, labels)}" if switch.confirmed_by else ""
    return (
        f"{NAMES[metric]} {with_unit(switch.value, metric)} across its uplink (median; pairs' median "
        f"{with_unit(switch.reference, metric)}), slow in {switch.slow_pairs} pairs of cleared hosts across it: "
        f"{shown}{more}; its {len(switch.hosts)} hosts are cleared with partners inside it, so no host of it is "
        f"named: a cable, port or uplink of the switch{confirmed}"
    )


def noise_text(noise: Noise) -> str:
    """The noise model the sweep fitted, in words."""
    tails = "normal tails" if math.isinf(noise.dof) else f"tails of a t with {noise.dof:g} degrees of freedom"
    return (
        f"noise {noise.sigma:.1%} of a pair's value, {tails}, {noise.contention:.1%} of pairs slowed by bursts "
        f"down to {-math.expm1(-noise.span):.0%}, fitted to the sweep's {noise.count:,} healthy pairs"
    )


def detection_text(verdict: LocateVerdict) -> str:
    """What the sweep could have seen: the slowdown ruled out for every part not named; and
    the false accusations it allows, under the noise it fitted."""
    limit = verdict.detection_limit
    noise = verdict.noise
    measured = f" ({noise_text(noise)})" if noise is not None else ""
    confidence = f"{1 - verdict.beta:.0%}"
    if limit is None:
        return (
            f"detection limit not reached: some part is not ruled out even 99.75 % slow{measured}; "
            f"{accusation_text(verdict)}"
        )
    parts = "host or uplink" if verdict.uplinks else "host"
    return (
        f"detection limit {limit:.0%}: a {parts} {limit:.0%} slower or more would have been named with "
        f"{confidence} probability (asked: {verdict.target:.0%}){measured}; {accusation_text(verdict)}"
    )


def accusation_text(verdict: LocateVerdict) -> str:
    return f"false accusations at most {verdict.alpha:.1%} of sweeps under that noise, each name confirmed alone first"


def suspect_evidence(pair: SuspectPair, metric: str) -> str:
    return (
        f"{NAMES[metric]} {with_unit(pair.value, metric)} in round {pair.round} "
        f"(pairs' median {with_unit(pair.reference, metric)}), not reproduced"
    )


def explained_text(verdict: LocateVerdict) -> str:
    """How many suspect pairs the bursts fitted explain: as slow a pair is what they would
    give among the pairs measured (those are in --json, `"explained": true`)."""
    total, beyond = len(verdict.suspect_pairs), len(verdict.beyond_bursts)
    bursts = (
        f"the bursts fitted ({verdict.noise.contention:.1%} of pairs, down to {-math.expm1(-verdict.noise.span):.0%})"
        if verdict.noise
        else "the bursts fitted"
    )
    shown = "all of them" if beyond == 0 else f"{total - beyond:,} of them; the {beyond:,} beyond are listed"
    return f"{total:,} suspect pair{'s' if total != 1 else ''}: {bursts} explain {shown} (--json has every one)"


def summary(verdict: LocateVerdict) -> str:
    n = verdict.n
    bad = len(verdict.bad_nodes) + len(verdict.set_aside)
    # with a topology the switches judged are counted too (none judged: nothing to say)
    named = len(verdict.bad_switches)
    switches = f"{named} bad switch{'es' if named != 1 else ''}, " if verdict.uplinks else ""
    alone = len(verdict.alone_rounds)
    confirming = f" ({alone} to confirm, pairs one at a time)" if alone else ""
    return (
        f"locate: {verdict.rounds} round{'s' if verdict.rounds != 1 else ''}{confirming}, {verdict.pairs_measured:,} "
        f"pairs (all-pairs: {all_pairs_rounds(n):,} rounds, {n * (n - 1) // 2:,} pairs); "
        f"{len(verdict.cleared):,} hosts "
        f"cleared, {bad} bad node{'s' if bad != 1 else ''}, {switches}{len(verdict.beyond_bursts):,} suspect pair"
        f"{'s' if len(verdict.beyond_bursts) != 1 else ''} beyond the bursts fitted "
        f"({len(verdict.suspect_pairs):,} in all), {len(verdict.undecided)} undecided; "
        f"{STOP_TEXT[verdict.stop]}"
    )


def locate_lines(verdict: LocateVerdict, labels: Sequence[str]) -> list[tuple[str, str]]:
    """(level, text): "warn" for bad nodes and undecided hosts, "note" for the rest."""
    labels = shown_labels(labels)
    metric = verdict.metric
    lines = [("warn", f"bad node {labels[node.host]} ({node.reason}): {node.evidence}") for node in verdict.set_aside]
    lines += [
        ("warn", f"bad node {labels[node.host]}: {node_evidence(node, metric, labels)}") for node in verdict.bad_nodes
    ]
    lines += [
        ("warn", f"bad switch {one_line(switch.switch)}: {switch_evidence(switch, metric, labels)}")
        for switch in verdict.bad_switches
    ]
    beyond = verdict.beyond_bursts
    for pair in beyond[:SHOWN_SUSPECTS]:
        a, b = pair.pair
        lines.append(("note", f"suspect pair {labels[a]} <-> {labels[b]}: {suspect_evidence(pair, metric)}"))
    if len(beyond) > SHOWN_SUSPECTS:
        lines.append(("note", f"... and {len(beyond) - SHOWN_SUSPECTS} more suspect pairs (--json)"))
    if verdict.suspect_pairs:
        lines.append(("note", explained_text(verdict)))
    if beyond:
        lines.append(("note", SUSPECT_NOTE))
    if verdict.undecided:
        shown = ", ".join(labels[host] for host in verdict.undecided[:SHOWN_SUSPECTS])
        more = f" and {len(verdict.undecided) - SHOWN_SUSPECTS} more" if len(verdict.undecided) > SHOWN_SUSPECTS else ""
        lines.append(("warn", f"undecided: {shown}{more}: {STOP_TEXT[verdict.stop]}"))
    if verdict.undecided_switches:
        shown = ", ".join(one_line(name) for name in verdict.undecided_switches[:SHOWN_SUSPECTS])
        lines.append(("warn", f"undecided switch uplinks: {shown}: {STOP_TEXT[verdict.stop]}"))
    for part, found in verdict.not_reproduced:
        name = one_line(part) if isinstance(part, str) else labels[part]
        lines.append(("note", f"not named: {name} was slow in the sweep, {confirmation_text(found, metric, labels)}"))
    unconfirmed = [labels[host] for host in verdict.unconfirmed] + [one_line(s) for s in verdict.unconfirmed_switches]
    if unconfirmed:
        lines.append(
            (
                "warn",
                f"not confirmed: {', '.join(unconfirmed)}: slow in the sweep, not measured again alone before it "
                "stopped, so not named",
            )
        )
    lines.append(("note", detection_text(verdict)))
    lines.append(("note", summary(verdict)))
    return lines


def locate_document(verdict: LocateVerdict, labels: Sequence[str], policy: Policy, run_id: int | None) -> dict:
    """The --json verdict."""
    metric = verdict.metric
    return {
        "schema": "commscope-locate",
        "schema_version": 1,
        "run_id": run_id,
        "metric": metric,
        "unit": UNIT[metric],
        "hosts": verdict.n,
        "rounds": verdict.rounds,
        "pairs_measured": verdict.pairs_measured,
        "all_pairs_rounds": all_pairs_rounds(verdict.n),
        "stop": verdict.stop,
        "certain": verdict.certain,
        "bad_nodes": [
            {
                "host": labels[node.host],
                "reason": SLOW,
                "value": node.value,
                "reference": node.reference,
                "slow_with_healthy": node.slow_with_healthy,
                "slow_with": [labels[partner] for partner in node.slow_with],
                "confirmed_by": confirmation_document(node.confirmed_by, labels),
                "partners": [
                    {"host": labels[seen.partner], "round": seen.round, "value": seen.value, "slow": seen.slow}
                    for seen in node.pairs
                ],
                "evidence": node_evidence(node, metric, labels),
            }
            for node in verdict.bad_nodes
        ]
        + [
            {
                "host": labels[node.host],
                "reason": node.reason,
                "evidence": node.evidence,
                "round": node.round,
                # the launcher's words are the evidence: nothing is measured to confirm
                "confirmed_by": "the launcher and a start-up probe (no confirmation round: MPI did not start there)",
            }
            for node in verdict.set_aside
        ],
        "suspect_pairs": [
            {
                "hosts": [labels[i] for i in pair.pair],
                "round": pair.round,
                "value": pair.value,
                "reference": pair.reference,
                "expected": pair.expected,
                "explained": pair.explained,
            }
            for pair in verdict.suspect_pairs
        ],
        "suspect_pairs_explained": len(verdict.suspect_pairs) - len(verdict.beyond_bursts),
        "suspect_pairs_note": SUSPECT_NOTE,
        "bad_switches": [
            {
                "switch": switch.switch,
                "hosts": [labels[i] for i in switch.hosts],
                "value": switch.value,
                "reference": switch.reference,
                "slow_pairs": switch.slow_pairs,
                "confirmed_by": confirmation_document(switch.confirmed_by, labels),
                "pairs": [
                    {"round": number_, "hosts": [labels[a], labels[b]], "value": value}
                    for number_, a, b, value in switch.pairs
                ],
                "evidence": switch_evidence(switch, metric, labels),
            }
            for switch in verdict.bad_switches
        ],
        # a slow pair of hosts otherwise cleared: a bad link or contention, which only
        # all-pairs (every pair measured, the suspects again alone) settles
        "bad_links": [
            {"hosts": [labels[i] for i in pair.pair], "round": pair.round, "value": pair.value, "settled": False}
            for pair in verdict.beyond_bursts
        ],
        "undecided_switches": list(verdict.undecided_switches),
        "alone_rounds": verdict.alone_rounds,
        # slow in the sweep but not named: never measured again alone, or not slow there
        "unconfirmed": [labels[host] for host in verdict.unconfirmed] + list(verdict.unconfirmed_switches),
        "not_reproduced": [
            {"part": part if isinstance(part, str) else labels[part], **confirmation_document(found, labels)}
            for part, found in verdict.not_reproduced
        ],
        "detection_limit": {
            "asked": verdict.target,
            "reached": verdict.detection_limit,
            "confidence": 1 - verdict.beta,
            "false_accusations_at_most": verdict.alpha,
            "noise_sigma": verdict.noise.sigma if verdict.noise else None,
            "contention": verdict.noise.contention if verdict.noise else None,
            "noise_model": noise_document(verdict.noise),
            "statement": detection_text(verdict),
        },
        "cleared": len(verdict.cleared),
        "undecided": [labels[host] for host in verdict.undecided],
        "rules": {metric: rules_mapping(policy)[metric], "locate": rules_mapping(policy)["locate"]},
    }


def noise_document(noise: Noise | None) -> dict | None:
    """The noise model fitted, as --json gives it (the false-accusation bound holds under it)."""
    if noise is None:
        return None
    return {
        "sigma": noise.sigma,
        "tail_dof": None if math.isinf(noise.dof) else noise.dof,
        "bursts": noise.contention,
        "bursts_down_to": -math.expm1(-noise.span),
        "pairs": noise.count,
    }


# -- the report's and `show`'s rows -------------------------------------------------

BAD_NODE_HEADER = ["Host", "Value", "Pairs' median", "Healthy partners slow with", "Evidence"]
SUSPECT_HEADER = ["Pair", "Round", "Value", "Pairs' median"]
ROUND_HEADER = ["Round", "Pairs", "Slow", "Pairs' median", "Measured"]


def bad_node_rows(verdict: LocateVerdict, labels: Sequence[str]) -> list[list[str]]:
    labels = shown_labels(labels)
    metric = verdict.metric
    return [
        [
            labels[node.host],
            with_unit(node.value, metric),
            with_unit(node.reference, metric),
            str(node.slow_with_healthy),
            node_evidence(node, metric, labels),
        ]
        for node in verdict.bad_nodes
    ] + [[labels[node.host], "-", "-", "-", node.evidence] for node in verdict.set_aside]


def suspect_rows(verdict: LocateVerdict, labels: Sequence[str]) -> list[list[str]]:
    """The suspect pairs beyond what the bursts fitted explain (the others are counted)."""
    labels = shown_labels(labels)
    metric = verdict.metric
    return [
        [
            f"{labels[pair.pair[0]]} <-> {labels[pair.pair[1]]}",
            str(pair.round),
            with_unit(pair.value, metric),
            with_unit(pair.reference, metric),
        ]
        for pair in verdict.beyond_bursts
    ]


#: How a round's pairs were measured: at once, or one at a time to confirm (its median: the controls').
MEASURED = {False: "at once", True: "one at a time (confirmation; controls' median)"}


def round_rows(verdict: LocateVerdict) -> list[list[str]]:
    return [
        [str(k), f"{pairs:,}", f"{slow:,}", with_unit(median, verdict.metric), MEASURED[alone]]
        for k, (pairs, slow, median, alone) in enumerate(verdict.round_summary, start=1)
    ]


def round_line(number: int, measured, metric: str) -> str:
    """The line a round of a sweep prints once judged."""
    pairs = f"{len(measured.pairs):,} pair{'s' if len(measured.pairs) != 1 else ''}"
    slow = f"{int(measured.slow.sum()):,} slow"
    if measured.alone:
        return (
            f"locate: round {number}: to confirm, {pairs} one at a time, {slow} (controls' median "
            f"{with_unit(measured.reference.median, metric)})"
        )
    median = with_unit(measured.reference.median, metric)
    return f"locate: round {number}: {pairs} at once, {slow} (pairs' median {median})"


def locate_text(verdict: LocateVerdict, labels: Sequence[str]) -> str:
    """What `show` prints for a stored locate run: its rounds, then the verdict's lines."""
    median = "Pairs' median"
    lines = [f"{'Round':>5}  {'Pairs':>8}  {'Slow':>6}  {median:<14}  Measured"]
    lines += [f"{r[0]:>5}  {r[1]:>8}  {r[2]:>6}  {r[3]:<14}  {r[4]}" for r in round_rows(verdict)]
    lines += [text for _, text in locate_lines(verdict, labels)]
    return "\n".join(lines) + "\n"
