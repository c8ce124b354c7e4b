"""`commscope import`: store result files from OMB, IMB, pasted tables or commscope-bench JSON.

Reading is the job of commscope.parse; this module turns its ParsedRuns into
Runs and stores each file in one transaction, so a file that fails to parse
or store leaves nothing behind while the other files of the same command are
still stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .parse import ParsedRun, ParseError, parse_file
from .parse.model import Point as ParsedPoint
from .provenance import invocation
from .records import STATS, Point, Run, apply_header
from .store import Store

# Per-row bookkeeping the readers put among the values; Point has fields for it.
_COUNTS = ("iterations", "warmup", "batch", "validation_errors")


@dataclass
class ImportResult:
    stored: dict[str, list[int]] = field(default_factory=dict)  # file -> run ids
    errors: list[str] = field(default_factory=list)  # "file:line: message"


def _label(user_label: str | None, own_label: str | None) -> str | None:
    """The user's --label, followed by the label the file gives a run (a table column)."""
    if user_label and own_label:
        return f"{user_label}: {own_label}"
    return user_label or own_label


def point_from_parsed(point: ParsedPoint, window: int | None) -> Point:
    values = dict(point.values)
    counts = {key: values.pop(key) for key in _COUNTS if isinstance(values.get(key), int)}
    if "validation_errors" in counts:
        values.pop("validation", None)  # Pass/Fail follows from the count
    stats = point.stats or {}
    return Point(size=point.size, metrics=values, window=window, iterations=counts.get("iterations"),
                 warmup=counts.get("warmup"), batch=counts.get("batch"), samples=stats.get("samples"),
                 stats={key: stats[key] for key in STATS if key in stats},
                 validation_errors=counts.get("validation_errors"))


def run_from_parsed(parsed: ParsedRun, path: Path, data: bytes, label: str | None, system: str | None) -> Run:
    window = parsed.parameters.get("window_size")
    points = [point_from_parsed(point, window if isinstance(window, int) else None) for point in parsed.points]
    run = Run(benchmark=parsed.benchmark, description=parsed.title, ranks=parsed.ranks,
              label=_label(label, parsed.label), tool_name=parsed.tool, tool_version=parsed.tool_version,
              options=parsed.parameters or None, provenance=parsed.provenance or None,
              notes=parsed.notes or None, source_format=parsed.source_format, source_file=str(path.resolve()),
              system=system, points=points, raw={"source": data})
    if parsed.source_format == "commscope-json":
        # The document's own provenance is richer than what the reader summarised.
        apply_header(run, parsed.provenance)
    provenance = run.provenance or {}
    failed_sizes = [str(point.size) for point in points if point.validation == "Fail"]
    if provenance.get("status") in ("validation_failed", "error"):
        run.status, run.status_reason = "failed", f"the result file says: {provenance['status']}"
    elif failed_sizes:
        run.status, run.status_reason = "failed", f"validation failed at size {', '.join(failed_sizes)}"
    return run


def import_files(store: Store, paths: Sequence[str], label: str | None, system: str | None,
                 argv: Sequence[str]) -> ImportResult:
    result = ImportResult()
    invocation_id = store.add_invocation(invocation("import", argv))
    for name in paths:
        path = Path(name)
        try:
            data = path.read_bytes()
            parsed = parse_file(path)
        except ParseError as exc:
            result.errors.append(str(exc))
            continue
        except OSError as exc:
            result.errors.append(f"{name}: cannot read: {exc.strerror}")
            continue
        if not parsed:
            result.errors.append(f"{name}: no benchmark results found")
            continue
        runs = [run_from_parsed(run, path, data, label, system) for run in parsed]
        result.stored[name] = store.add_runs(runs, invocation_id)
    return result
