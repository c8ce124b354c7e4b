"""The curve: an OSU-style benchmark measured over message sizes (and the other axes the
core sweeps), OMB's own kind and every run that no other kind claims."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.kinds.base import ReportContext, RunKind
from commscope.records.run import Run


class Curve(RunKind):
    name = "curve"
    title = "network benchmarks over message size"
    plural = "network benchmark runs"

    def recognises(self, run: Run) -> bool:
        return True  # the last kind asked: every run the others leave

    def report(self, runs: Sequence[Run], context: ReportContext):
        from commscope.output.report.content import network_sections
        from commscope.output.report.peaks import published_section, rule_section

        part = network_sections(runs, context.check)
        part.system_sections += rule_section(runs) + published_section(runs)
        return part


CURVE = Curve()
