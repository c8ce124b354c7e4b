"""The link sweep: `commscope sweep`'s pairs runs, a value per pair of hosts (or cores),
judged by the sweep's rules with its serial retest, checked pair by pair, drawn as
heatmaps."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from commscope.errors import UsageError
from commscope.kinds.base import PlotRequest, ReportContext, RunKind
from commscope.records.benchmarks import PAIRS_BENCHMARK
from commscope.records.run import Run


class LinkSweep(RunKind):
    name = "link-sweep"
    title = "link sweeps (pairs of hosts)"
    plural = "sweep runs"

    def recognises(self, run: Run) -> bool:
        return run.benchmark == PAIRS_BENCHMARK

    def check(self, baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy, metric: str | None):
        """Each sweep against the baseline's latest sweep, pair by pair; a retest run goes
        with its sweep."""
        from commscope.analysis.check import CheckResult
        from commscope.analysis.sweep_check import check_sweep, sweeps_of

        base_sweeps = sweeps_of([run for run in base_runs if self.recognises(run)])
        result = CheckResult(baseline, [], [])
        for run in sweeps_of(new_runs):
            if base_sweeps:
                result.sweeps.append(check_sweep(run, base_sweeps[-1]))
            else:
                result.unmatched.append(run)
        return result

    def plot(self, runs: Sequence[Run], request: PlotRequest, retest_of) -> dict[Path, bytes]:
        """Heatmaps of one sweep, judged as the sweep was (for the outlines)."""
        from commscope.analysis.sweep_verdicts import judge_stored
        from commscope.analysis.sweep_verdicts import retest_of as retest_id
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
            judgement.matrix, judgement.flags(), request.path, request.fmt, request.metric, request.title
        )

    def monitoring(self, run: Run, retest: Run | None = None) -> list:
        """The run's own samples and, per host and metric, whether the sweep named it a bad node."""
        from commscope.analysis.monitoring import host_samples, run_info_samples
        from commscope.analysis.sweep_verdicts import judge_stored, retest_of

        if retest_of(run) is not None:  # a serial retest: its sweep's samples speak for it
            return run_info_samples(run)
        judgement = judge_stored(run, retest)
        hosts = judgement.matrix.labels
        samples = run_info_samples(run)
        for metric, verdict in judgement.verdicts.items():
            bad = verdict.bad_nodes()
            samples += host_samples(
                run, [hosts[i] for i in sorted(bad)], [h for i, h in enumerate(hosts) if i not in bad], metric
            )
        return samples

    def report(self, runs: Sequence[Run], context: ReportContext):
        from commscope.output.report import sweep

        return self.report_part(*sweep.sections(runs, context.retests))

    def report_part(self, sections, headlines: dict[int, str]):
        """The report's part of these sweep sections, each run's headline in the summary."""
        from commscope.output.report.content import ReportPart

        return ReportPart(
            sweeps=sections,
            headlines=headlines,
            small_latency=dict.fromkeys(headlines, "-"),
            peak_bandwidth=dict.fromkeys(headlines, "-"),
        )


LINK_SWEEP = LinkSweep()
