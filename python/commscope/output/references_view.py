"""Published references (records.references) and a run's place among them
(analysis.published) as tables: `compare --reference`, the report's section."""

from __future__ import annotations

from collections.abc import Sequence

from commscope.analysis.published import Placed
from commscope.analysis.titled_tables import TitledTable, run_name
from commscope.records.references import Reference
from commscope.records.text import format_size


def _size(size: int | None) -> str:
    return "not stated" if size is None else format_size(size)


def _value(value: float, unit: str) -> str:
    return f"{value:,.2f} {unit}" if unit == "us" else f"{value:,.0f} {unit}"


def references_table(references: Sequence[Reference]) -> TitledTable:
    header = ["name", "system", "interconnect", "MPI", "OMB", "date", "figures", "source"]
    rows = [[r.name, r.system, r.interconnect, r.mpi, r.omb, r.date, str(len(r.figures)), r.source] for r in references]
    return TitledTable("published OSU references", header, rows, rows)


def figures_table(reference: Reference) -> TitledTable:
    header = ["benchmark", "placement", "memory", "size", "value"]
    rows = [[f.benchmark, f.placement, f.memory, _size(f.size), _value(f.value, f.unit)] for f in reference.figures]
    caption = f"{reference.system}; {reference.interconnect}; {reference.mpi}; OMB {reference.omb}; {reference.date}"
    return TitledTable(f"{reference.name}: {reference.source}", header, rows, rows, caption)


def placed_table(placed: Sequence[Placed], title: str = "against published systems") -> TitledTable:
    header = ["run", "benchmark", "placement", "size", "yours", "system", "theirs", "yours / theirs", "source"]
    rows, values = [], []
    for item in placed:
        figure = item.figure
        verdict = "better" if item.better else "worse"
        rows.append(
            [
                f"{item.run.id} ({run_name(item.run)})",
                figure.benchmark,
                f"{figure.placement}, {figure.memory}",
                _size(item.size),
                _value(item.yours, figure.unit),
                item.reference.system,
                _value(figure.value, figure.unit),
                f"{item.ratio:.2f} ({verdict})",
                item.reference.source,
            ]
        )
        values.append([item.run.id, figure.benchmark, figure.placement, item.size, item.yours, item.reference.name])
        values[-1] += [figure.value, item.ratio, item.reference.source]
    return TitledTable(title, header, rows, values)
