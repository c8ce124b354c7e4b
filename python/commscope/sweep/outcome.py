"""What a sweep gives back to whoever asked for it (the command line, `sweep recheck`, the
nightly loop): the stored run's id, the hosts swept, the bad nodes its verdict named with
their evidence, and the verdict's exit status; no JSON read back, no second process.

The sweep has measured, judged, stored and said what it found when it returns one. What
is left is the caller's: acting on the bad nodes (`--drain`, cluster/drain.py), then
`finish`, which writes the --json (with the hosts drained) and --plot and gives the exit
status.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from commscope import ui
from commscope.analysis.bad_nodes import NodeFinding
from commscope.errors import EXIT_USAGE, CommscopeError


@dataclass
class SweepOutcome:
    """A sweep measured and judged: `mode` (its name), `hosts` swept in rank order, the
    stored `run_id` (None: kept as files, see `kept_status`), the `bad_nodes` named,
    `status` (0: nothing found; 1: something named, left undecided or worse than the
    baseline), and `kept_status` (execute.keep.summary's, where the store could not take
    the runs: a drain's reason then has no run to name)."""

    mode: str
    hosts: tuple[str, ...]
    run_id: int | None
    bad_nodes: list[NodeFinding]
    status: int
    json_out: Path | None = None
    kept_status: int | None = None
    retest_run_id: int | None = None

    @property
    def stored(self) -> bool:
        return self.kept_status is None and self.run_id is not None

    def document(self, drained: list[str] | None) -> dict:
        """The --json document, with the hosts drained where --drain was asked."""
        raise NotImplementedError

    def write_plots(self) -> bool:
        """--plot, where the mode draws one; True when it could not be written."""
        return False

    def finish(self, drained: list[str] | None = None, refused: CommscopeError | None = None) -> int:
        """--json and --plot written (checked before measuring; a path gone bad meanwhile is
        warned about, the run stays stored), then the exit status: the store's where the
        runs were kept as files, the drain's refusal raised, 2 for an output not written,
        else the verdict's."""
        unwritten = False
        if self.json_out is not None:
            try:
                self.json_out.write_text(json.dumps(self.document(drained), indent=1) + "\n")
            except OSError as exc:
                unwritten = True
                ui.warn(f"cannot write --json {self.json_out}: {exc.strerror or exc}")
        unwritten = self.write_plots() or unwritten
        if self.kept_status is not None:  # said as every measuring command says it, before the verdict's 1
            return self.kept_status
        if refused is not None:
            raise refused
        return EXIT_USAGE if unwritten else self.status
