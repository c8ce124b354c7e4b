"""What every run kind answers: how its runs are recognised, grouped as repeats, shown,
compared, checked, plotted and reported. A curve (an OSU-style benchmark over message
sizes) is the default behaviour; a kind overrides what it does differently."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from commscope import ui
from commscope.records.run import Run
from commscope.records.textsafe import terminal

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
    floor: object = None
    title: str | None = None


@dataclass
class ReportContext:
    """What every kind's report part may use: the check against a baseline (if asked) and
    the retest runs of sweeps, by the sweep's run id."""

    check: object = None
    retests: Mapping[int, Run] = field(default_factory=dict)


class RunKind:
    """A kind of run. Subclasses set `name` and `title` and override what differs."""

    name = ""
    title = ""
    #: What the runs are called in messages ("HPL and hpcc runs").
    plural = ""
    #: The CompareRequest options that apply to this kind's runs (COMPARE_OPTIONS).
    compare_options: tuple[str, ...] = ("metric", "ratio", "pdiff", "reference")

    def recognises(self, run: Run) -> bool:
        raise NotImplementedError

    # -- repeats ------------------------------------------------------------------

    def repeats(self, runs: Sequence[Run]) -> list[list[Run]]:
        """The runs grouped as repeats, in order of first appearance (the one definition)."""
        from commscope.analysis.repeats import repeat_groups

        return repeat_groups(runs)

    # -- show ---------------------------------------------------------------------

    def table_text(self, run: Run, outputs: Mapping[str, bytes]) -> str:
        """The table `show` prints below a run's provenance."""
        from commscope.output.links_view import peak_line
        from commscope.output.views import osu_text

        text, line = osu_text(run, outputs), peak_line(run)
        return text if line is None else f"{text.rstrip()}\n# {line}\n"

    # -- compare ------------------------------------------------------------------

    def compare(self, runs: Sequence[Run], request: CompareRequest) -> Compared:
        from commscope.analysis.compare import compare as build
        from commscope.output.comparison import FORMATS, caption
        from commscope.output.views import comparison_table

        if request.reference:
            return against_reference(runs, request.reference)
        comparison = build(runs, request.metric, ratio=request.ratio, pdiff=request.pdiff)

        def show() -> None:
            from commscope.output.links_view import peak_line

            console = ui.table_console()
            console.print(terminal(caption(comparison)), markup=False, highlight=False)
            console.print(comparison_table(comparison))
            for column, name in zip(comparison.groups, comparison.names):
                line = peak_line(column[0]) if column else None
                if line:
                    console.print(terminal(f"{name}: {line}"), markup=False, highlight=False)

        return Compared(
            show,
            {fmt: (lambda write=write: write(comparison)) for fmt, write in FORMATS.items()},
        )

    # -- check --------------------------------------------------------------------

    def check(self, baseline: str, base_runs: Sequence[Run], new_runs: Sequence[Run], policy, metric: str | None):
        """The check of this kind's new runs against the baseline's runs of this kind."""
        from commscope.analysis.check import check_curves

        return check_curves(baseline, base_runs, new_runs, policy, metric)

    # -- plot ---------------------------------------------------------------------

    def plot(self, runs: Sequence[Run], request: PlotRequest, retest_of) -> dict[Path, bytes]:
        """The figures of `runs`, by the path each goes to; `retest_of(run)` loads a stored
        retest run (link sweeps)."""
        from commscope.analysis.compare import common_metric
        from commscope.output.plot import figure, render

        reference = request.reference
        chosen = common_metric([*runs, *([reference] if reference else [])], request.metric)
        fig = figure(
            runs,
            chosen,
            band=request.band,
            ratio_to=reference,
            tolerance=request.tolerance,
            floor=request.floor.in_unit_of(chosen) if request.floor else None,
            title=request.title,
        )
        return {request.path: render(fig, request.fmt)}

    # -- report -------------------------------------------------------------------

    def report(self, runs: Sequence[Run], context: ReportContext):
        """This kind's output.report.content.ReportPart."""
        raise NotImplementedError

    def monitoring(self, run: Run, retest: Run | None = None) -> list:
        """What monitoring keeps of one run (analysis.monitoring Samples): a curve's values
        at each size, its headline and share of the peak, when it ended and whether it
        completed."""
        from commscope.analysis.monitoring import run_samples

        return run_samples(run)

    def __repr__(self) -> str:
        return f"<run kind {self.name}>"


def tables_compared(tables) -> Compared:
    """Seed 001-style tables (analysis.titled_tables) as a comparison: aligned text on the
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
