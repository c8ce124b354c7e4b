"""The locate sweep (`commscope sweep locate`): a pairs run of a few rounds of disjoint
pairs, judged by replaying its rounds (analysis.locate), not as a matrix of every pair.
Shown as its rounds and verdict, checked pair by pair like a link sweep plus its bad
nodes, plotted as a heatmap of the pairs measured with the bad nodes outlined."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from commscope.errors import UsageError
from commscope.kinds.base import PlotRequest, ReportContext
from commscope.kinds.link_sweep import LinkSweep
from commscope.records.run import Run


class LocateSweep(LinkSweep):
    name = "locate-sweep"
    title = "locate sweeps (bad nodes in a few rounds)"
    plural = "locate runs"

    def recognises(self, run: Run) -> bool:
        from commscope.analysis.locate_stored import is_locate

        return super().recognises(run) and is_locate(run)

    def table_text(self, run: Run, outputs: Mapping[str, bytes]) -> str:
        from commscope.analysis.locate_stored import stored_verdict
        from commscope.output.locate_view import locate_text

        return locate_text(*stored_verdict(run))

    def check(self, baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy, metric: str | None):
        """Pair by pair where both sweeps measured a pair (as a link sweep), and a bad node
        named fails whatever the baseline."""
        from commscope.analysis.locate_stored import stored_verdict

        result = super().check(baseline, base_runs, new_runs, policy, metric)
        for sweep in result.sweeps:
            verdict, labels = stored_verdict(sweep.run)
            sweep.bad_nodes = [labels[node.host] for node in verdict.bad_nodes]
        return result

    def plot(self, runs: Sequence[Run], request: PlotRequest, retest_of) -> dict[Path, bytes]:
        from commscope.analysis.locate_stored import stored_verdict
        from commscope.analysis.locate_verdict import node_flags
        from commscope.analysis.sweep import matrix_from_run
        from commscope.output.sweep_view import heatmap_figures

        if len(runs) != 1 or request.reference is not None:
            raise UsageError("a locate sweep is plotted alone, as a heatmap: name one run, without --ratio-to")
        (run,) = runs
        verdict, _ = stored_verdict(run)
        return heatmap_figures(
            matrix_from_run(run), node_flags(verdict), request.path, request.fmt, request.metric, request.title
        )

    def monitoring(self, run: Run, retest: Run | None = None) -> list:
        """The run's own samples and each host's verdict: named bad (1) or cleared (0)."""
        from commscope.analysis.locate_stored import stored_verdict
        from commscope.analysis.monitoring import host_samples, run_info_samples

        verdict, labels = stored_verdict(run)
        bad = [labels[node.host] for node in verdict.bad_nodes]
        return run_info_samples(run) + host_samples(run, bad, [labels[i] for i in verdict.cleared], verdict.metric)

    def report(self, runs: Sequence[Run], context: ReportContext):
        from commscope.output.report.locate import locate_section

        sections, headlines = [], {}
        for run in runs:
            section, headlines[run.id] = locate_section(run)
            sections.append(section)
        return self.report_part(sections, headlines)


LOCATE_SWEEP = LocateSweep()
