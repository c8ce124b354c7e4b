"""The report's sweep sections: a `pairs` run shown as a sweep, not as a benchmark over
message size, as kinds/link_sweep judged it again from the store (analysis.sweep_verdicts:
the rules and retest run the sweep recorded). In the order a reader needs them: the flags
with their evidence, the pairs cleared as contention, the pair table, an intra sweep's
core pairs by relation, and a heatmap per metric. Beyond MAX_HEATMAP_HOSTS hosts the pair
table lists the flagged pairs only and the heatmaps show block means, and the section
says so."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from commscope.analysis.sweep import SweepMatrix
from commscope.analysis.sweep_verdicts import SweepJudgement
from commscope.output.report.table import Table
from commscope.output.sweep_view import (
    CLEARED_HEADER,
    FLAG_HEADER,
    INTRA_HEADER,
    MAX_HEATMAP_HOSTS,
    SWITCH_HEADER,
    cleared_rows,
    flag_rows,
    heatmap_svgs,
    intra_rows,
    pair_rows,
    switch_line,
    switch_rows,
    where_text,
)
from commscope.records.run import Run
from commscope.records.textsafe import one_line

if TYPE_CHECKING:
    from commscope.records.core_paths import Cpu


@dataclass
class Heatmap:
    metric: str
    alt: str
    svg: bytes


@dataclass
class SweepSection:
    run_id: int
    title: str
    notes: list[str] = field(default_factory=list)
    flagged: Table | None = None  # None: not judged (a retest run shown without its sweep)
    cleared: Table | None = None
    pairs: Table = field(default_factory=lambda: Table([], []))
    intra: Table | None = None
    heatmaps: list[Heatmap] = field(default_factory=list)
    nothing_flagged: str = "Nothing flagged: no bad node, no bad link."
    extra: list[tuple[str, Table]] = field(default_factory=list)  # (heading, table) after the cleared pairs


def _title(run: Run, hosts: int, mode: str | None) -> str:
    what = f"{mode} sweep" if mode else "pairs sweep"
    if mode == "intra":
        where = f"{hosts} cores of {run.hosts[0]['name']}" if run.hosts else f"{hosts} cores"
    else:
        where = f"{hosts} hosts"
    name = run.label or run.system
    return f"Run {run.id}: {what} of {where}" + (f" ({name})" if name else "")


def headline(judgement: SweepJudgement, mode: str | None) -> str:
    """The sweep's line in the report's summary table."""
    swept = f"{judgement.matrix.n} {'cores' if mode == 'intra' else 'hosts'}"
    flags = judgement.flags()
    count = len(flags) + len(judgement.switches) + len(judgement.set_aside)
    if not count:
        return f"sweep of {swept}: nothing flagged"
    labels = judgement.matrix.labels
    named = dict.fromkeys(
        [
            *(f"bad node {one_line(fault.host)} ({fault.reason})" for fault in judgement.set_aside),
            *(switch_line(switch) for switch in judgement.switches),
            *(f"bad {flag.kind} {where_text(flag.where, labels)}" for flag in flags),
        ]
    )
    return f"sweep of {swept}: {count} flag{'s' if count != 1 else ''} ({'; '.join(named)})"


def pair_table(judgement: SweepJudgement) -> Table:
    matrix, flags = judgement.matrix, judgement.flags()
    aggregated = matrix.n > MAX_HEATMAP_HOSTS
    header, rows = pair_rows(matrix, flags, only_flagged=aggregated, switches=judgement.switches)
    if not aggregated:
        return Table(header, rows)
    total = len(pair_rows(matrix, ())[1])
    caption = (
        f"Flagged pairs only: {len(rows)} of the {total} pairs measured ({matrix.n} hosts, more than "
        f"{MAX_HEATMAP_HOSTS}); the heatmaps show every pair, as means of blocks of hosts"
    )
    return Table(header, rows, caption)


def section(
    run: Run, judgement: SweepJudgement, retest: Run | None, mode: str | None, topology: dict[int, Cpu] | None
) -> SweepSection:
    """The section of a sweep run judged with its `retest` run (None: none stored); an
    intra sweep's core pairs grouped by its recorded `topology` (None: not recorded)."""
    matrix, labels = judgement.matrix, judgement.matrix.labels
    result = SweepSection(run.id, _title(run, matrix.n, mode), notes=list(judgement.notes))
    if judgement.retest_run_id is not None and retest is not None:
        result.notes.append(
            f"Suspect pairs were measured again one at a time, alone on the network: retest run {retest.id}."
        )
    result.flagged = Table(FLAG_HEADER, flag_rows(judgement.flags(), labels))
    if judgement.set_aside:  # named by the launcher's words, measured in no pair
        rows = [[one_line(fault.host), fault.reason, fault.evidence] for fault in judgement.set_aside]
        result.extra.append(
            ("Bad nodes MPI could not start on, set aside", Table(["Host", "Reason", "Evidence"], rows))
        )
    result.cleared = Table(CLEARED_HEADER, cleared_rows(judgement.cleared(), labels))
    if judgement.switches:
        result.nothing_flagged = "No bad node, no bad link: the slow pairs are the bad switch uplinks below."
        heading = "Bad switches: hosts fine with each other, slow across the switch's uplink"
        result.extra.append((heading, Table(SWITCH_HEADER, switch_rows(judgement.switches, labels))))
    elif judgement.fabric is not None:
        result.notes.append("Judged with the fabric's topology the sweep recorded: no switch uplink is slow.")
    result.pairs = pair_table(judgement)
    if mode == "intra":
        if topology is None:
            result.notes.append("The cores' topology was not recorded with this run: core pairs are not grouped.")
        else:
            result.intra = Table(INTRA_HEADER, intra_rows(run, topology))
    by_leaf = " (hosts by leaf switch)" if judgement.leaf_groups else ""
    for metric, svg in heatmap_svgs(matrix, judgement.flags(), judgement.leaf_groups).items():
        alt = f"run {run.id}: {metric} of every pair{by_leaf}, flagged cells outlined"
        result.heatmaps.append(Heatmap(metric, alt, svg))
    return result


def retest_alone(run: Run, sweep: int, matrix: SweepMatrix) -> SweepSection:
    """A retest run of sweep run `sweep` reported without it: its pairs, and where the verdicts are."""
    note = f"Run {run.id} is the serial retest of sweep run {sweep}: report on that run for the verdicts."
    header, rows = pair_rows(matrix, ())
    return SweepSection(run.id, f"Run {run.id}: retest of sweep run {sweep}", [note], pairs=Table(header, rows))
