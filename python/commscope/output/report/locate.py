"""The report's section of a locate sweep, as kinds/locate judged it again from its stored
rounds: the bad nodes with their evidence (and how they were confirmed), the suspect pairs
beyond what the bursts fitted explain, the rounds, the fabric map (every host, leaf by
leaf, at any scale: output.fabric_map), then the pairs measured (flagged pairs only beyond
MAX_HEATMAP_HOSTS hosts) and a heatmap of them, in the link sweeps' section layout
(output.report.sweep). A sweep of more hosts than a heatmap of pairs shows to anyone
(kinds.locate.SUMMARY_HOSTS) keeps the fabric map and is summarised otherwise: the counts
of hosts by verdict, the flagged hosts and their pairs, the suspect pairs and the rounds;
no matrix of every pair is built for it."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.analysis.locate_verdict import LocateVerdict
from commscope.analysis.sweep_verdicts import SweepJudgement
from commscope.output.fabric_map import fabric_map_svg
from commscope.output.locate_view import (
    BAD_NODE_HEADER,
    ROUND_HEADER,
    STOP_TEXT,
    SUSPECT_HEADER,
    SUSPECT_NOTE,
    bad_node_rows,
    explained_text,
    round_rows,
    suspect_rows,
    with_unit,
)
from commscope.output.report.sweep import Heatmap, SweepSection, pair_table
from commscope.output.report.table import Table
from commscope.output.sweep_view import CLEARED_HEADER, heatmap_svgs
from commscope.records.run import Run

#: The summary of a large sweep: its hosts by verdict, one row.
COUNT_HEADER = ["Hosts", "Cleared", "Bad nodes", "Undecided", "Suspect pairs beyond bursts", "Rounds", "Pairs measured"]
#: The pairs a bad node was measured in: a row per pair and round.
FLAGGED_PAIR_HEADER = ["Source", "Destination", "Round", "Value", "Flag"]


def _title(run: Run, verdict: LocateVerdict) -> str:
    name = run.label or run.system
    return f"Run {run.id}: locate sweep of {verdict.n} hosts in {verdict.rounds} rounds" + (
        f" ({name})" if name else ""
    )


def _notes(verdict: LocateVerdict, labels: Sequence[str]) -> list[str]:
    notes = [f"Verdict after {verdict.rounds} rounds: {STOP_TEXT[verdict.stop]}."]
    if verdict.suspect_pairs:
        explained = explained_text(verdict)
        notes.append(f"{explained[0].upper()}{explained[1:]}.")
    if verdict.beyond_bursts:
        notes.append(f"{SUSPECT_NOTE[0].upper()}{SUSPECT_NOTE[1:]}.")
    if verdict.undecided:
        notes.append(f"Undecided hosts: {', '.join(labels[host] for host in verdict.undecided)}.")
    return notes


def _verdict_tables(verdict: LocateVerdict, labels: Sequence[str]) -> list[tuple[str, Table]]:
    return [
        (
            "Suspect pairs beyond what the bursts fitted explain: slow once, not reproduced",
            Table(SUSPECT_HEADER, suspect_rows(verdict, labels)),
        ),
        ("Rounds", Table(ROUND_HEADER, round_rows(verdict))),
    ]


def _fabric_map(run: Run, verdict: LocateVerdict, labels: Sequence[str]) -> Heatmap:
    alt = f"run {run.id}: the fabric map, each host against the sweep, named hosts and switches outlined"
    return Heatmap("fabric", alt, fabric_map_svg(verdict, labels))


def locate_section(run: Run, verdict: LocateVerdict, labels: Sequence[str], judgement: SweepJudgement) -> SweepSection:
    """The section of one locate run: its verdict, and its pairs as a link sweep's
    (`judgement`: the pairs measured as a matrix, the bad nodes as its flags)."""
    section = SweepSection(
        run.id,
        _title(run, verdict),
        notes=_notes(verdict, labels),
        flagged=Table(BAD_NODE_HEADER, bad_node_rows(verdict, labels)),
        cleared=Table(CLEARED_HEADER, []),
        pairs=pair_table(judgement),
        nothing_flagged=f"Nothing flagged: no bad node among the {verdict.n} hosts.",
        extra=_verdict_tables(verdict, labels),
    )
    section.heatmaps.append(_fabric_map(run, verdict, labels))
    for metric, svg in heatmap_svgs(judgement.matrix, judgement.flags()).items():
        alt = f"run {run.id}: {metric} of the pairs measured, bad nodes outlined"
        section.heatmaps.append(Heatmap(metric, alt, svg))
    return section


def summary_section(
    run: Run,
    verdict: LocateVerdict,
    labels: Sequence[str],
    flagged_pairs: Sequence[tuple[int, int, int, float]],
    limit: int,
) -> SweepSection:
    """The section of a locate run of more than `limit` hosts: counts and flagged hosts,
    no heatmap. `flagged_pairs` are (source, destination, round, value) of the pairs a bad
    node was measured in."""
    bad = {node.host for node in verdict.bad_nodes}
    counts = [
        f"{verdict.n:,}",
        f"{len(verdict.cleared):,}",
        f"{len(verdict.named_hosts):,}",
        f"{len(verdict.undecided):,}",
        f"{len(verdict.beyond_bursts):,} ({len(verdict.suspect_pairs):,} in all)",
        str(verdict.rounds),
        f"{verdict.pairs_measured:,}",
    ]
    rows = [
        [
            labels[src],
            labels[dst],
            str(round_ + 1),
            with_unit(value, verdict.metric),
            "; ".join(f"bad node {labels[host]}" for host in (src, dst) if host in bad),
        ]
        for src, dst, round_, value in flagged_pairs
    ]
    notes = _notes(verdict, labels) + [
        f"{verdict.n:,} hosts, more than {limit:,}: the fabric map, no heatmap of pairs and no table of every pair "
        "measured; the hosts by verdict, the flagged hosts and the pairs they were measured in instead."
    ]
    section = SweepSection(
        run.id,
        _title(run, verdict),
        notes=notes,
        flagged=Table(BAD_NODE_HEADER, bad_node_rows(verdict, labels)),
        cleared=Table(CLEARED_HEADER, []),
        pairs=Table(FLAGGED_PAIR_HEADER, rows, "The pairs each bad node was measured in, round by round"),
        nothing_flagged=f"Nothing flagged: no bad node among the {verdict.n:,} hosts.",
        extra=[("Hosts by verdict", Table(COUNT_HEADER, [counts])), *_verdict_tables(verdict, labels)],
    )
    section.heatmaps.append(_fabric_map(run, verdict, labels))
    return section


def headline(verdict: LocateVerdict, labels: Sequence[str]) -> str:
    """The locate run's line in the report's summary table."""
    bad = ", ".join(labels[host] for host in verdict.named_hosts)
    return (
        f"locate of {verdict.n} hosts in {verdict.rounds} rounds: "
        + (f"{len(verdict.named_hosts)} bad node(s) ({bad})" if bad else "no bad node")
        + f", {len(verdict.beyond_bursts)} suspect pair(s) beyond the bursts fitted"
    )
