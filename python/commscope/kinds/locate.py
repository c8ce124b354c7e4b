"""The locate sweep (`commscope sweep locate`): a pairs run of a few rounds of disjoint
pairs, judged by replaying its rounds (analysis.locate), not as a matrix of every pair.
Shown as its rounds and verdict, checked pair by pair like a link sweep plus its bad
nodes, plotted as a heatmap of the pairs measured with the bad nodes outlined."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from commscope.analysis.check import CheckResult, Policy
from commscope.analysis.sweep import VALUE_KEY, Verdict, matrix_from_run
from commscope.analysis.sweep_verdicts import SweepJudgement, rules_problem, stored_policy
from commscope.errors import UsageError
from commscope.kinds.base import PlotRequest, ReportContext, RetestLoader
from commscope.kinds.link_sweep import LinkSweep
from commscope.records.run import Run
from commscope.records.run_kinds import LOCATE_SWEEP

if TYPE_CHECKING:
    from commscope.analysis.locate_verdict import LocateVerdict
    from commscope.analysis.monitoring import Sample
    from commscope.output.report.content import ReportPart

#: Beyond this many hosts a locate run's report section is a summary (hosts by verdict,
#: the flagged hosts and their pairs) instead of a pair table and heatmap: a heatmap of
#: thousands of hosts is a picture no one reads, and its matrix of every pair is what made
#: the report of 10,000 hosts run out of time (and take 880 MB).
SUMMARY_HOSTS = 512


class LocateSweep(LinkSweep):
    name = LOCATE_SWEEP
    title = "locate sweeps (bad nodes in a few rounds)"
    plural = "locate runs"

    def table_text(self, run: Run, outputs: Mapping[str, bytes]) -> str:
        from commscope.analysis.locate_stored import stored_verdict
        from commscope.output.locate_view import locate_text

        problem = rules_problem(run)
        return (f"note: {problem}\n" if problem else "") + locate_text(*stored_verdict(run))

    def check(
        self, baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy: Policy, metric: str | None
    ) -> CheckResult:
        """Pair by pair where both sweeps measured a pair (as a link sweep), and a bad node
        named fails whatever the baseline."""
        from commscope.analysis.locate_stored import stored_verdict

        result = super().check(baseline, base_runs, new_runs, policy, metric)
        for sweep in result.sweeps:
            verdict, labels = stored_verdict(sweep.run)
            sweep.bad_nodes = [labels[host] for host in verdict.named_hosts]
        return result

    def plot(self, runs: Sequence[Run], request: PlotRequest, retest_of: RetestLoader) -> dict[Path, bytes]:
        from commscope.analysis.locate_stored import stored_verdict
        from commscope.analysis.locate_verdict import node_flags
        from commscope.output.sweep_view import heatmap_figures

        if len(runs) != 1 or request.reference is not None:
            raise UsageError("a locate sweep is plotted alone, as a heatmap: name one run, without --ratio-to")
        (run,) = runs
        verdict, _ = stored_verdict(run)
        return heatmap_figures(
            matrix_from_run(run), node_flags(verdict), request.path, request.fmt, request.metric, request.title
        )

    def monitoring(self, run: Run, retest: Run | None) -> list[Sample]:
        """The run's own samples and each host's verdict: named bad (1) or cleared (0)."""
        from commscope.analysis.locate_stored import stored_verdict
        from commscope.analysis.monitoring import host_samples, run_info_samples

        verdict, labels = stored_verdict(run)
        bad = [labels[host] for host in verdict.named_hosts]
        return run_info_samples(run) + host_samples(run, bad, [labels[i] for i in verdict.cleared], verdict.metric)

    def report(self, runs: Sequence[Run], context: ReportContext) -> ReportPart:
        """Each locate run judged again from its rounds; beyond SUMMARY_HOSTS hosts
        summarised by its flagged hosts, without the matrix of every pair (10,000 hosts
        would be 10^8 cells per metric, which no one reads)."""
        from commscope.analysis.locate_stored import stored_verdict
        from commscope.analysis.locate_verdict import node_flags
        from commscope.output.report import locate
        from commscope.output.report.content import HEADLINE, ReportPart

        part = ReportPart()
        for run in runs:
            verdict, labels = stored_verdict(run)
            if verdict.n > SUMMARY_HOSTS:
                section = locate.summary_section(run, verdict, labels, flagged_pairs(run, verdict), SUMMARY_HOSTS)
            else:
                flags = {verdict.metric: Verdict(node_flags(verdict), [])}
                judgement = SweepJudgement(matrix_from_run(run), stored_policy(run), flags)
                section = locate.locate_section(run, verdict, labels, judgement)
            part.sweeps.append(section)
            part.summary[run.id] = {HEADLINE: locate.headline(verdict, labels)}
        return part


def flagged_pairs(run: Run, verdict: LocateVerdict) -> list[tuple[int, int, int, float]]:
    """(source, destination, round, value) of every pair of the verdict's metric that a bad
    node was measured in, read from the run's points (no matrix of every pair)."""

    bad = {node.host for node in verdict.bad_nodes}
    key = VALUE_KEY[verdict.metric]
    return [
        (point.pair.src, point.pair.dst, point.pair.round, float(point.metrics[key]))
        for point in run.points
        if point.pair is not None
        and point.pair.metric == verdict.metric
        and (point.pair.src in bad or point.pair.dst in bad)
        and isinstance(point.metrics.get(key), (int, float))
    ]


LOCATE_SWEEP = LocateSweep()
