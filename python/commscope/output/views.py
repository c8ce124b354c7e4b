"""Text views of stored runs: the provenance block and OSU table of `show`, the table of `list runs`."""

from __future__ import annotations

import collections
import math
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from commscope.analysis.compare import Comparison, primary, series, sort_keys
from commscope.analysis.repeats import median_series
from commscope.output.comparison import text_cells
from commscope.output.osutable import render_run
from commscope.records.metrics import metric_title
from commscope.records.run import Run
from commscope.records.text import format_key, format_size
from commscope.records.textsafe import one_line
from commscope.store.runs import RunSummary

if TYPE_CHECKING:  # the analysis modules import numpy/scipy; listings should not pay for that
    from commscope.analysis.model import Fit
    from commscope.analysis.overhead import Slowdown


def _with_commit(version: str | None, commit: str | None) -> str | None:
    if version is None:
        return None
    return f"{version} (git {commit})" if commit else version


def _slurm_text(provenance: dict | None) -> str | None:
    """Where a batch job ran, as `commscope collect` recorded it."""
    slurm = (provenance or {}).get("slurm")
    if not slurm:
        return None
    parts = [
        f"job {slurm['job_id']}" + (f" on {slurm['node_list']}" if slurm.get("node_list") else ""),
        slurm.get("partition") and f"partition {slurm['partition']}",
        slurm.get("cluster") and f"cluster {slurm['cluster']}",
        slurm.get("state"),
    ]
    return ", ".join(part for part in parts if part)


def _transport_text(provenance: dict | None) -> str | None:
    """The transport asked for and the variables rank 0 ran with."""
    transport = (provenance or {}).get("transport")
    if not transport or (transport.get("requested") == "auto" and not transport.get("observed")):
        return None
    seen = " ".join(f"{key}={value}" for key, value in (transport.get("observed") or {}).items())
    return f"{transport.get('requested')}" + (f" ({seen})" if seen else "")


def binding_text(run: Run) -> str | None:
    """What binding was asked for (and why not the one requested) and the CPUs each rank
    reported it may run on: "core; CPUs of ranks: vm 0 | 1"."""
    asked = (run.provenance or {}).get("binding") or {}
    text = asked.get("asked", "")
    if asked.get("reason"):
        text += f" ({asked['reason']})"
    cpus = [
        f"{host['name']} {' | '.join(cpu or '?' for cpu in host['affinity'])}"
        for host in run.hosts or []
        if host.get("affinity")
    ]
    if cpus:
        text += ("; " if text else "") + "CPUs of ranks: " + ", ".join(cpus)
    return text or None


def _gpus_text(gpus: object) -> str | None:
    """ "16 x NVIDIA H100 80GB HBM3": the GPU models of a run's ranks (the core's `gpus`,
    nccl-tests' device lines), each with how many ranks used one."""
    if not isinstance(gpus, list):
        return None
    models = collections.Counter(gpu.get("name") or "unnamed GPU" for gpu in gpus if isinstance(gpu, dict))
    return ", ".join(f"{count} x {name}" for name, count in models.items()) or None


def provenance_items(run: Run) -> list[tuple[str, str]]:
    """(key, value) pairs describing where a run's numbers come from; unknown items are left out."""
    hosts = ", ".join(
        f"{one_line(host['name'])} (ranks {','.join(map(str, host['ranks']))})" for host in run.hosts or []
    )
    placement = f"{run.ranks or '?'} on {run.nodes or '?'} node(s)"
    if run.placement:
        placement += f" (placement asked for: {run.placement})"
    mpi = " ".join(part for part in (run.mpi_library, run.mpi_version) if part)
    extra = run.provenance or {}
    items = [
        ("status", run.status + (f": {run.status_reason}" if run.status_reason else "")),
        ("label", run.label),
        ("system", run.system),
        ("time", " .. ".join(t for t in (run.started_at, run.ended_at) if t) or None),
        ("ranks", placement),
        ("hosts", hosts or None),
        ("binding", binding_text(run)),
        ("flags", shlex.join(run.flags) if run.flags else None),
        ("pass", f"{run.repeat_index + 1} of a --repeat" if run.repeat_index else None),
        (
            "core",
            " ".join(part for part in (run.tool_name, _with_commit(run.tool_version, run.tool_git_commit)) if part)
            or None,
        ),
        ("MPI", mpi or None),
        ("CPU", run.cpu_model),
        ("GPUs", _gpus_text(extra.get("gpus"))),
        ("compiler", run.compiler),
        ("job id", run.job_id),
        ("slurm", _slurm_text(run.provenance)),
        ("transport", _transport_text(run.provenance)),
        ("launcher", shlex.join(run.launcher_argv) if run.launcher_argv else None),
        ("wrapper", shlex.join(extra["wrapper"]) if extra.get("wrapper") else None),
        (
            "BLAS",
            " ".join(
                f"{part}"
                for part in (
                    extra.get("blas_library"),
                    extra.get("blas_package") and f"(package {extra['blas_package']}",
                )
                if part
            )
            + (
                f", alternative {extra['blas_alternative']})"
                if extra.get("blas_alternative")
                else (")" if extra.get("blas_package") else "")
            )
            if extra.get("blas_library")
            else None,
        ),
        (
            "machine",
            f"{extra['cores']} cores, {extra['memory_bytes'] / 2**30:.1f} GiB"
            if extra.get("cores") and extra.get("memory_bytes")
            else None,
        ),
        ("storage", f"{extra['directory']}: {extra.get('cache_policy')}" if extra.get("directory") else None),
        ("source", f"{run.source_file} ({run.source_format})" if run.source_file else None),
        ("notes", "; ".join(run.notes) if run.notes else None),
        ("harness", f"commscope {_with_commit(run.commscope_version, run.commscope_git_commit)}"),
    ]
    return [(key, value) for key, value in items if value]


def provenance_lines(run: Run) -> list[str]:
    """`key  value` lines describing where a run's numbers come from; unknown items are left out."""
    items = provenance_items(run)
    width = max(len(key) for key, _ in items)
    return [f"run {run.id}: {run.benchmark}"] + [f"  {key:<{width}}  {value}" for key, value in items]


def core_format(run: Run) -> str | None:
    """The --format a run of commscope-bench was started with (its default: osu); None for imports."""
    if run.source_format is not None:
        return None
    argv = run.launcher_argv or []
    formats = [value for flag, value in zip(argv, argv[1:]) if flag == "--format"]
    return formats[-1] if formats else "osu"


def osu_text(run: Run, outputs: dict[str, bytes]) -> str:
    """A run's OSU table: for a run of commscope-bench, the core's own text as it printed it;
    for an import, its table as the file has it (an OMB table); otherwise (a column of a
    side-by-side table, IMB, JSON, runs stored before the harness kept the core's text)
    the table rendered from the stored points."""
    own = outputs.get("stdout") if core_format(run) == "osu" else outputs.get("table")
    return own.decode(errors="replace") if own else render_run(run)


def runs_table(summaries: Sequence[RunSummary]) -> Table:
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for column in ("id", "started", "benchmark", "label", "system", "ranks", "nodes", "sizes", "status", "source"):
        table.add_column(column, justify="right" if column in ("id", "ranks", "nodes", "sizes") else "left")
    for run in summaries:
        cells = (
            str(run.id),
            (run.started_at or "")[:16].replace("T", " "),
            run.benchmark,
            run.label or "",
            run.system or "",
            str(run.ranks or ""),
            str(run.nodes or ""),
            str(run.point_count),
            run.status,
            run.source_format or "run",
        )
        table.add_row(*map(one_line, cells))
    return table


# -- analysis views: text cells shared by the terminal tables and the reports --------


def rich_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 0) -> Table:
    """A plain table: the first `left` columns left-aligned, numbers right-aligned. (No
    title: rich wraps titles to the table's width; callers print a line above.) Cells are
    shown as their text: one line each, and never read as rich markup ("[x]" stays)."""
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for index, name in enumerate(header):
        table.add_column(Text(one_line(name)), justify="left" if index < left else "right", overflow="fold")
    for row in rows:
        table.add_row(*(Text(one_line(str(cell))) for cell in row))
    return table


def comparison_table(comparison: Comparison) -> Table:
    header, rows = text_cells(comparison)
    return rich_table(header, rows, left=len(comparison.axes))


def format_bandwidth(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:,.0f}"


def format_bytes(value: float | None) -> str:
    """A size from a model (not a power of two): bytes, with KiB/MiB beside when large."""
    if value is None:
        return "-"
    if value >= 1 << 20:
        return f"{value:,.0f} B ({value / (1 << 20):.1f} MiB)"
    if value >= 1 << 10:
        return f"{value:,.0f} B ({value / (1 << 10):.1f} KiB)"
    return f"{value:,.0f} B"


MODEL_HEADER = ("regime", "sizes", "α (µs)", "β (MB/s)", "n½", "R²", "max |rel. resid.|", "rms rel. resid.")


def model_cells(fit: Fit) -> list[list[str]]:
    return [
        [
            str(index + 1),
            f"{format_size(regime.first_size)} .. {format_size(regime.last_size)} ({regime.count})",
            f"{regime.alpha_us:.3f}",
            format_bandwidth(regime.beta_MBps),
            format_bytes(regime.n_half),
            "-" if regime.r_squared is None else f"{regime.r_squared:.4f}",
            f"{100 * regime.max_rel_residual:.1f}%",
            f"{100 * regime.rms_rel_residual:.1f}%",
        ]
        for index, regime in enumerate(fit.regimes)
    ]


def model_headline(fit: Fit) -> list[tuple[str, str]]:
    """The fit in a few (name, value) pairs."""
    converted = " (from bandwidth: time per message = size / bandwidth)" if fit.source_metric != "latency_us" else ""
    return [
        ("fitted", f"{fit.source_metric}{converted}, {len(fit.sizes)} sizes, {len(fit.regimes)} regime(s) by BIC"),
        ("α", f"{fit.alpha_us:.3f} µs (start-up time, smallest messages)"),
        ("β", f"{format_bandwidth(fit.beta_MBps)} MB/s (asymptotic bandwidth, largest messages)"),
        ("n½", f"{format_bytes(fit.n_half)} (size reaching half of β)"),
        ("break points", ", ".join(format_size(size) for size in fit.breaks) or "none"),
        ("max |rel. resid.|", f"{100 * fit.max_rel_residual:.1f}%"),
    ]


def show_fits(fitted: Sequence[tuple[Sequence[Run], Fit]]) -> None:
    """`model`'s fits on the terminal: per fit, the runs it is of (a repeat group's median),
    the headline numbers and the regimes."""
    from commscope import ui

    console = ui.table_console()
    for group, result in fitted:
        run = group[0]
        which = (
            f"run {run.id}"
            if len(group) == 1
            else f"runs {', '.join(str(r.id) for r in group)} (median of {len(group)} repeats)"
        )
        name = run.label or run.system
        console.print(
            f"{which}: {run.benchmark}{result.axes.suffix()}" + (f" ({name})" if name else ""),
            markup=False,
            highlight=False,
        )
        for key, value in model_headline(result):
            console.print(f"  {key:<18} {value}", markup=False, highlight=False)
        console.print(rich_table(MODEL_HEADER, model_cells(result), left=2))
        console.print()


OVERHEAD_HEADER = ["size", "plain (us)", "wrapped (us)", "slowdown", "95% interval", "method"]


def show_overhead(title: str, rows: Sequence[Slowdown]) -> None:
    """`overhead`'s table: per size the plain and wrapped time per operation and the slowdown."""
    from commscope import ui

    console = ui.table_console()
    console.print(
        f"{title}: slowdown, wrapped / plain time per operation "
        f"({rows[0].repeats[0]} plain, {rows[0].repeats[1]} wrapped launches)",
        markup=False,
        highlight=False,
    )
    cells = [
        [
            format_key(row.key),
            f"{row.plain_us:.2f}",
            f"{row.wrapped_us:.2f}",
            f"{row.factor:.2f}x",
            f"{row.low:.2f} .. {row.high:.2f}" if row.low is not None else "-",
            row.method,
        ]
        for row in rows
    ]
    console.print(rich_table(OVERHEAD_HEADER, cells))


def repeat_lines(group: Sequence[Run]) -> list[str]:
    """The per-size median of a metric across the repeats of one launch, with its interval
    (analysis.repeats) and the spread of the launches, as `show` prints it."""

    metric = primary(group[0])
    if metric is None:
        return []
    medians = median_series([series(run, metric) for run in group])
    coverage = min(cell.coverage for cell in medians.values()) if medians else 0
    lines = [
        f"# median of {len(group)} repeats (runs {', '.join(str(run.id) for run in group)}), "
        f"{metric_title(metric)}, {100 * coverage:.1f}% interval of the median across launches",
        f"# {'Size':<8} {'Median':>12} {'Low':>12} {'High':>12} {'Launches':>9}",
    ]
    for key in sort_keys(medians):
        cell = medians[key]
        lines.append(f"{format_key(key):<10} {cell.median:>12.2f} {cell.low:>12.2f} {cell.high:>12.2f} {cell.n:>9}")
    return lines
