"""The report's section of a locate sweep (analysis.locate), judged again from its stored
rounds: the bad nodes with their evidence, the suspect pairs, the rounds, the pairs
measured (flagged pairs only beyond MAX_HEATMAP_HOSTS hosts) and a heatmap of them, in
the link sweeps' section layout (output.report.sweep)."""

from __future__ import annotations

from commscope.analysis.locate_stored import stored_verdict
from commscope.analysis.locate_verdict import node_flags
from commscope.analysis.sweep import Verdict, matrix_from_run
from commscope.analysis.sweep_verdicts import SweepJudgement, stored_policy
from commscope.output.locate_view import (
    BAD_NODE_HEADER,
    ROUND_HEADER,
    STOP_TEXT,
    SUSPECT_HEADER,
    SUSPECT_NOTE,
    bad_node_rows,
    round_rows,
    suspect_rows,
)
from commscope.output.report.sweep import Heatmap, SweepSection, pair_table
from commscope.output.report.table import Table
from commscope.output.sweep_view import CLEARED_HEADER, heatmap_svgs
from commscope.records.run import Run


def locate_section(run: Run) -> tuple[SweepSection, str]:
    """The section of one stored locate run and its line in the summary table."""
    verdict, labels = stored_verdict(run)
    matrix = matrix_from_run(run)
    flags = node_flags(verdict)
    judgement = SweepJudgement(matrix, stored_policy(run), {verdict.metric: Verdict(flags, [])})
    name = run.label or run.system
    title = f"Run {run.id}: locate sweep of {verdict.n} hosts in {verdict.rounds} rounds" + (
        f" ({name})" if name else ""
    )
    notes = [f"Verdict after {verdict.rounds} rounds: {STOP_TEXT[verdict.stop]}."]
    if verdict.suspect_pairs:
        notes.append(f"{SUSPECT_NOTE[0].upper()}{SUSPECT_NOTE[1:]}.")
    if verdict.undecided:
        notes.append(f"Undecided hosts: {', '.join(labels[host] for host in verdict.undecided)}.")
    section = SweepSection(
        run.id,
        title,
        notes=notes,
        flagged=Table(BAD_NODE_HEADER, bad_node_rows(verdict, labels)),
        cleared=Table(CLEARED_HEADER, []),
        pairs=pair_table(judgement),
        nothing_flagged=f"Nothing flagged: no bad node among the {verdict.n} hosts.",
        extra=[
            ("Suspect pairs: slow once, not reproduced", Table(SUSPECT_HEADER, suspect_rows(verdict, labels))),
            ("Rounds", Table(ROUND_HEADER, round_rows(verdict))),
        ],
    )
    for metric, svg in heatmap_svgs(matrix, flags).items():
        alt = f"run {run.id}: {metric} of the pairs measured, bad nodes outlined"
        section.heatmaps.append(Heatmap(metric, alt, svg))
    bad = ", ".join(labels[node.host] for node in verdict.bad_nodes)
    headline = (
        f"locate of {verdict.n} hosts in {verdict.rounds} rounds: "
        + (f"{len(verdict.bad_nodes)} bad node(s) ({bad})" if bad else "no bad node")
        + f", {len(verdict.suspect_pairs)} suspect pair(s)"
    )
    return section, headline
