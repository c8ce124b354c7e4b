"""A Comparison (analysis.compare) as text: the cells of the terminal table, Markdown,
CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
import math

from commscope.analysis.compare import Comparison, Row
from commscope.records.metrics import higher_is_worse
from commscope.records.run import AXIS_TITLES
from commscope.records.text import format_key, format_value
from commscope.records.textsafe import csv_cell, markdown_cell


def axis_cells(comparison: Comparison, row: Row) -> list[str | None]:
    """The row's values of the axes that vary (None where a run did not sweep one)."""
    return [getattr(row.key.axes, name) for name in comparison.axes]


_EXTRA_FORMATS = {"ratio": "{:.3f}", "pdiff": "{:+.1f}%"}


def _format_extras(comparison: Comparison, row: Row) -> list[str]:
    return ["-" if value is None else _EXTRA_FORMATS[kind].format(value) for kind, value in comparison.extras(row)]


def text_cells(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows as displayed text (table, Markdown and the HTML report share them)."""
    header = [
        *(AXIS_TITLES[name] for name in comparison.axes),
        "Size (B)",
        *comparison.names,
        *comparison.extra_headers(),
    ]
    rows = [
        [
            *(cell or "-" for cell in axis_cells(comparison, row)),
            format_key(row.key),
            *(
                interval.text() if interval is not None else format_value(value)
                for value, interval in zip(row.values, row.intervals or [None] * len(row.values))
            ),
            *_format_extras(comparison, row),
        ]
        for row in comparison.rows
    ]
    return header, rows


def to_markdown(comparison: Comparison) -> str:
    header, rows = text_cells(comparison)
    lines = [
        markdown_cell(comparison.caption()) + ".",
        "",
        "| " + " | ".join(map(markdown_cell, header)) + " |",
        "|" + "|".join(":---" if index < len(comparison.axes) else "---:" for index in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(map(markdown_cell, row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def to_csv(comparison: Comparison) -> str:
    """Numbers as stored (no rounding), empty cells where a value is missing."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    varies = any(row.key.window is not None for row in comparison.rows)
    spans = [i for i, group in enumerate(comparison.groups) if len(group) > 1]  # repeat medians' intervals
    writer.writerow(
        [
            *comparison.axes,
            "size",
            *(["window"] if varies else []),
            *map(csv_cell, comparison.names),
            *map(csv_cell, comparison.extra_headers()),
            *(csv_cell(f"{comparison.names[i]} {end}") for i in spans for end in ("low", "high")),
        ]
    )
    for row in comparison.rows:
        cells = [
            *row.values,
            *(value for _, value in comparison.extras(row)),
            *(
                getattr(row.intervals[i], end) if row.intervals and row.intervals[i] else None
                for i in spans
                for end in ("low", "high")
            ),
        ]
        writer.writerow(
            [
                *axis_cells(comparison, row),
                row.key.size,
                *([row.key.window] if varies else []),
                *("" if cell is None else cell for cell in cells),
            ]
        )
    return buffer.getvalue()


def to_json(comparison: Comparison) -> str:
    def number(value):
        return None if value is None or (isinstance(value, float) and not math.isfinite(value)) else value

    document = {
        "metric": comparison.metric,
        "unit": comparison.unit,
        "better": {True: "lower", False: "higher", None: None}[higher_is_worse(comparison.metric)],
        "runs": [
            {
                "id": run.id,
                "name": name,
                "benchmark": run.benchmark,
                "label": run.label,
                "system": run.system,
                **({"repeats": [r.id for r in group]} if len(group) > 1 else {}),
            }
            for run, name, group in zip(comparison.runs, comparison.names, comparison.groups)
        ],
        "rows": [
            {
                **dict(zip(comparison.axes, axis_cells(comparison, row))),
                "size": row.key.size,
                "window": row.key.window,
                "values": [number(v) for v in row.values],
                **(
                    {"intervals": [None if cell is None else [cell.low, cell.high, cell.n] for cell in row.intervals]}
                    if any(row.intervals)
                    else {}
                ),
                **({"ratios": [number(r) for r in row.ratios()]} if comparison.ratio or comparison.pdiff else {}),
            }
            for row in comparison.rows
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


#: Machine-readable formats; "table" is drawn by views.comparison_table.
FORMATS = {"markdown": to_markdown, "csv": to_csv, "json": to_json}
