"""What a run kind answers, as small protocols: every kind (`RunKind`) groups its runs as
repeats and shows, compares, checks, plots, reports and publishes them; a kind whose runs
have a value over time is also `Followed` (`history`), and one whose runs are times over
message size `Modelled` (`model`). A kind has only what it answers: the dispatch
(kinds/__init__.py) asks `isinstance(kind, Followed)` and refuses the others by name. Which
kind a run is comes from the run itself (records.run_kinds, a column of the store); no
behaviour lives here: a kind that does something as a curve does says so by naming the
curve's method (kinds/curve.py), not by inheriting what it does not have."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

from commscope import ui
from commscope.analysis.check import CheckResult, Floor, Policy
from commscope.records.run import Run
from commscope.records.textsafe import terminal

if TYPE_CHECKING:  # the report's and the fits' modules load matplotlib and numpy: only when asked
    from commscope.analysis.history import Series
    from commscope.analysis.model import Fit
    from commscope.analysis.monitoring import Sample
    from commscope.analysis.titled_tables import TitledTable
    from commscope.output.report.content import ReportPart

#: `compare`'s options that apply to some kinds only, as the command line spells them.
COMPARE_OPTIONS = {
    "metric": "--metric",
    "ratio": "--ratio",
    "pdiff": "--pdiff",
    "peak_per_core": "--peak-per-core",
    "reference": "--reference",
}


@dataclass(frozen=True)
class CompareRequest:
    """What `compare` was asked for; each kind names the options that apply to it."""

    metric: str | None = None
    ratio: bool = False
    pdiff: bool = False
    peak_per_core: float | None = None
    reference: str | None = None  # a published reference's name (records.references)

    def given(self) -> list[str]:
        return [name for name in COMPARE_OPTIONS if getattr(self, name)]


@dataclass
class Compared:
    """A comparison ready to print: `show()` on the terminal, `text(fmt)` in a format."""

    show: Callable[[], None]
    texts: Mapping[str, Callable[[], str]]

    def text(self, fmt: str) -> str:
        return self.texts[fmt]()


@dataclass(frozen=True)
class PlotRequest:
    path: Path
    fmt: str
    metric: str | None = None
    reference: Run | None = None
    band: str = "ci"
    tolerance: float = 0.1
    floor: Floor | None = None
    title: str | None = None


@dataclass(frozen=True)
class HistoryRequest:
    """What `history` was asked for: the rule a change point must pass, and the metric and
    size to follow (None: each benchmark's main metric at its headline size)."""

    policy: Policy = Policy()
    metric: str | None = None
    size: int | None = None
    all_sizes: bool = False


@dataclass
class ReportContext:
    """What every kind's report part may use: the check against a baseline (if asked), the
    retest runs of sweeps by the sweep's run id, and the rule the timelines' change points
    are judged by (as `history` judges them)."""

    check: CheckResult | None = None
    retests: Mapping[int, Run] = field(default_factory=dict)
    policy: Policy = Policy()


#: Loads the stored retest run of a sweep run (None: it has none).
RetestLoader = Callable[[Run], "Run | None"]


@runtime_checkable
class RunKind(Protocol):
    """A kind of run. `kinds.KINDS` holds one of each, named as records.run_kinds names it."""

    name: ClassVar[str]
    title: ClassVar[str]
    #: What the runs are called in messages ("HPL and hpcc runs").
    plural: ClassVar[str]
    #: The CompareRequest options that apply to this kind's runs (COMPARE_OPTIONS).
    compare_options: ClassVar[tuple[str, ...]]

    def repeats(self, runs: Sequence[Run]) -> list[list[Run]]:
        """The runs grouped as repeats, in order of first appearance."""

    def table_text(self, run: Run, outputs: Mapping[str, bytes]) -> str:
        """The table `show` prints below a run's provenance; `outputs` are the raw files stored with it."""

    def compare(self, runs: Sequence[Run], request: CompareRequest) -> Compared:
        """The runs side by side (the options not in compare_options are refused before)."""

    def check(
        self, baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy: Policy, metric: str | None
    ) -> CheckResult:
        """The check of this kind's new runs against the baseline's runs of this kind."""

    def plot(self, runs: Sequence[Run], request: PlotRequest, retest_of: RetestLoader) -> dict[Path, bytes]:
        """The figures of `runs`, by the path each goes to."""

    def report(self, runs: Sequence[Run], context: ReportContext) -> ReportPart:
        """This kind's part of the report: its runs analysed once (comparisons, fits,
        verdicts, timelines) and handed to output/report, which renders them."""

    def monitoring(self, run: Run, retest: Run | None) -> list[Sample]:
        """What monitoring keeps of one run (analysis.monitoring), as Prometheus gauges;
        `retest` is a sweep's serial retest run, if stored."""


@runtime_checkable
class Followed(Protocol):
    """A kind whose runs have a value to follow over time (`commscope history`)."""

    def history(self, runs: Sequence[Run], request: HistoryRequest) -> list[Series]:
        """The series `history` follows over these runs."""


@runtime_checkable
class Modelled(Protocol):
    """A kind whose runs are times over message size, which `commscope model` fits."""

    def model(self, runs: Sequence[Run], each: bool) -> list[tuple[list[Run], Fit]]:
        """The Hockney fits of the runs: of each run, or of each group of repeats."""


def tables_compared(tables: Sequence[TitledTable]) -> Compared:
    """Standard-benchmarks tables (analysis.titled_tables) as a comparison: aligned text on the
    terminal, Markdown, CSV or JSON on request."""
    from commscope.output.titled_tables import FORMATS, text_table

    def show() -> None:
        ui.out.print(terminal("\n".join(text_table(table) for table in tables)), markup=False, highlight=False)

    return Compared(show, {fmt: (lambda write=write: write(tables)) for fmt, write in FORMATS.items()})


def against_reference(runs: Sequence[Run], name: str) -> Compared:
    """`compare --reference NAME`: the runs' figures beside a published system's;
    `--reference list`: the published references."""
    from commscope.analysis.published import place
    from commscope.output.references_view import figures_table, placed_table, references_table
    from commscope.records.references import load, named

    if name == "list":
        return tables_compared([references_table(load())])
    reference = named(name)
    placed = place(runs, [reference])
    table = placed_table(placed, f"against {reference.name}")
    if not placed:
        table.caption = "no run here measured a benchmark, placement, memory kind and size this reference has"
    return tables_compared([table, figures_table(reference)])
