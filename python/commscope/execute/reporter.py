"""What the runner says about each launch as it ends. `commscope run` prints the core's
own table, the precision line, what went wrong and a summary line (TerminalReporter); a
caller that prints a table of its own, a sweep, wants only what went wrong
(QuietReporter)."""

from __future__ import annotations

import sys
from typing import Protocol

from commscope import ui
from commscope.records.run import Run
from commscope.records.suite import Entry
from commscope.records.text import precision_line

STDERR_TAIL_LINES = 15


class Reporter(Protocol):
    def launched(self, run: Run, seconds: float) -> None:
        """Say how the launch that made `run` went; it took `seconds`."""


class QuietReporter:
    """What went wrong in a launch, with the end of its stderr when it did not complete;
    nothing about a launch that went well."""

    def launched(self, run: Run, seconds: float) -> None:
        if run.status == "complete" and run.status_reason:
            ui.warn(f"{run.benchmark}: {run.status_reason}")
        if run.status != "complete":
            ui.warn(f"{run.benchmark}: {run.status}: {run.status_reason}")
            stderr_text = run.raw["stderr"].decode(errors="replace") if run.raw else ""
            tail = stderr_text.strip().splitlines()[-STDERR_TAIL_LINES:]
            if tail:
                ui.note("  last lines of its stderr:\n" + "\n".join(f"    {line}" for line in tail))


class TerminalReporter(QuietReporter):
    """`commscope run`'s: the core's OSU table on stdout, then what went wrong and where
    the ranks ran on stderr. `ranks_given`: the user typed --np, so a refused rank count
    is theirs, not the suite's."""

    def __init__(self, ranks_given: bool = False) -> None:
        self.ranks_given = ranks_given

    def launched(self, run: Run, seconds: float) -> None:
        table = run.raw["stdout"].decode(errors="replace") if run.raw else ""
        if table:
            sys.stdout.write(table if table.endswith("\n") else table + "\n")
        line = precision_line(run)
        if line:
            sys.stdout.write(f"# {line}\n")
            sys.stdout.flush()
        super().launched(run, seconds)
        refused = run.status == "failed" and not run.points and "ranks" in (run.status_reason or "")
        if refused and not self.ranks_given:
            ui.note(
                f"  {run.benchmark} was started on {run.ranks} ranks (the suite entry's `ranks`, or "
                f"{Entry.ranks} for a benchmark named directly): `--np N` sets them"
            )
        hosts = {host["name"] for host in run.hosts or []}
        if run.placement == "inter-node" and len(hosts) == 1:
            ui.warn(
                f"{run.benchmark} asks for inter-node placement but all ranks ran on {hosts.pop()}; "
                "give two hosts with --hosts/--hostfile or run inside a multi-node allocation"
            )
        elif run.placement == "intra-node" and len(hosts) > 1:
            ui.warn(f"{run.benchmark} asks for intra-node placement but ran on {len(hosts)} hosts")
        ui.note(f"{run.benchmark}: {run.status}, {len(run.points)} points in {seconds:.1f} s")
