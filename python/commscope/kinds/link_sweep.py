"""The link sweep: `commscope sweep`'s pairs runs, a value per pair of hosts (or cores),
judged by the sweep's rules with its serial retest, checked pair by pair, drawn as
heatmaps."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from commscope.analysis.check import CheckResult, Policy
from commscope.analysis.sweep import matrix_from_run
from commscope.analysis.sweep_check import check_sweep, sweeps_of
from commscope.analysis.sweep_verdicts import judge_stored, record_of, retest_of, stored_topology
from commscope.analysis.sweep_verdicts import retest_of as retest_id
from commscope.errors import UsageError
from commscope.kinds.base import PlotRequest, ReportContext, RetestLoader
from commscope.kinds.curve import Curve
from commscope.records import run_kinds
from commscope.records.run import Run
from commscope.records.run_kinds import kind_of_run

if TYPE_CHECKING:
    from commscope.analysis.monitoring import Sample
    from commscope.output.report.content import ReportPart


class LinkSweep:
    """Repeated, shown and compared as a curve; checked, plotted and reported as a sweep. Not
    followed over time (its value is a matrix of pairs, which `check` compares pair by pair)
    and not modelled (it measures no time over message size)."""

    name = run_kinds.LINK_SWEEP
    title = "link sweeps (pairs of hosts)"
    plural = "sweep runs"
    compare_options = Curve.compare_options
    repeats = Curve.repeats
    table_text = Curve.table_text
    compare = Curve.compare

    def check(
        self, baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy: Policy, metric: str | None
    ) -> CheckResult:
        """Each sweep against the baseline's latest sweep, pair by pair; a retest run goes
        with its sweep."""

        base_sweeps = sweeps_of([run for run in base_runs if kind_of_run(run) == self.name])
        result = CheckResult(baseline, [], [])
        for run in sweeps_of(new_runs):
            if base_sweeps:
                result.sweeps.append(check_sweep(run, base_sweeps[-1]))
            else:
                result.unmatched.append(run)
        return result

    def monitoring(self, run: Run, retest: Run | None) -> list[Sample]:
        """The run's own samples and, per host and metric, whether the sweep named it a bad node."""
        from commscope.analysis.monitoring import host_samples, run_info_samples

        if retest_of(run) is not None:  # a serial retest: its sweep's samples speak for it
            return run_info_samples(run)
        judgement = judge_stored(run, retest)
        hosts = judgement.matrix.labels
        samples = run_info_samples(run)
        aside = [fault.host for fault in judgement.set_aside]  # in no pair: bad for every metric
        for metric, verdict in judgement.verdicts.items():
            bad = verdict.bad_nodes()
            samples += host_samples(
                run,
                [*aside, *(hosts[i] for i in sorted(bad))],
                [h for i, h in enumerate(hosts) if i not in bad],
                metric,
            )
        return samples

    def plot(self, runs: Sequence[Run], request: PlotRequest, retest_of: RetestLoader) -> dict[Path, bytes]:
        """Heatmaps of one sweep, judged as the sweep was (for the outlines)."""
        from commscope.output.sweep_view import heatmap_figures

        ids = {run.id for run in runs}
        sweeps = [run for run in runs if retest_id(run) not in ids]  # a retest goes with its sweep
        if len(sweeps) != 1 or request.reference is not None:
            raise UsageError(
                "a sweep is plotted alone, as heatmaps: name one sweep run (its retest run may come with it), "
                "without --ratio-to"
            )
        (run,) = sweeps
        judgement = judge_stored(run, retest_of(run))
        return heatmap_figures(
            judgement.matrix,
            judgement.flags(),
            request.path,
            request.fmt,
            request.metric,
            request.title,
            judgement.leaf_groups,
        )

    def report(self, runs: Sequence[Run], context: ReportContext) -> ReportPart:
        """Each sweep judged again from the store with its retest run; a retest run among
        `runs` with its sweep goes in the sweep's section, one without it is shown alone."""
        from commscope.output.report import sweep
        from commscope.output.report.content import HEADLINE, ReportPart

        ids = {run.id for run in runs}
        part = ReportPart()
        for run in runs:
            sweep_id = retest_of(run)
            if sweep_id is not None:
                if sweep_id not in ids:
                    part.sweeps.append(sweep.retest_alone(run, sweep_id, matrix_from_run(run)))
                part.summary[run.id] = {HEADLINE: f"retest of sweep run {sweep_id}"}
                continue
            retest, mode = context.retests.get(run.id), record_of(run).get("mode")
            judgement = judge_stored(run, retest)
            topology = stored_topology(run) if mode == "intra" else None
            part.sweeps.append(sweep.section(run, judgement, retest, mode, topology))
            part.summary[run.id] = {HEADLINE: sweep.headline(judgement, mode)}
        return part


LINK_SWEEP = LinkSweep()


def verdict_text(run: Run, retest: Run | None) -> str:
    """`show` of a stored sweep: its verdict judged again as `commscope sweep` printed it
    (with its retest run and recorded topology), after the notes on how; "" for another
    run or a retest run."""
    from commscope.output.sweep_view import verdict_lines

    if kind_of_run(run) != LINK_SWEEP.name or retest_of(run) is not None:
        return ""
    judgement = judge_stored(run, retest)
    lines = [f"note: {note}" for note in judgement.notes]
    lines += [f"{'warning' if level == 'warn' else 'note'}: {line}" for level, line in verdict_lines(judgement)]
    return "\n".join(["# the sweep's verdict, judged again from the store:", *lines] if lines else [])
