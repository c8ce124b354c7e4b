"""`commscope report`: each kind's part of the report, asked once per kind, put together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from commscope.analysis.check import CheckResult, Policy
from commscope.kinds import by_kind
from commscope.kinds.base import ReportContext
from commscope.records.run import Run


def build(
    runs: Sequence[Run],
    database: str,
    check: CheckResult | None = None,
    title: str = "commscope report",
    retests: Mapping[int, Run] | None = None,
    policy: Policy = Policy(),
):
    """The report of `runs` (output.report.content.Report). `retests` holds the retest runs
    of the sweeps among them, by the sweep run's id, so sweeps are judged as they were.
    The curves' headline series get a timeline each, their change points judged by
    `policy` as `commscope history` judges them; two sweeps or more, their hosts over time
    as `history --hosts` judges them (its own tolerance: the report's is the curves')."""
    from commscope.analysis import host_history
    from commscope.analysis.report_warnings import for_runs
    from commscope.output.report.content import assemble
    from commscope.output.report.hosts import hosts_over_time

    context = ReportContext(check, retests or {}, policy)
    parts = [kind.report(found, context) for kind, found in by_kind(runs).items()]
    report = assemble(runs, parts, database, check, title, for_runs(runs))
    report.hosts = hosts_over_time(host_history.of_runs(runs, Policy(host_history.TOLERANCE)))
    return report
