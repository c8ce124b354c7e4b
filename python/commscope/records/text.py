"""How every table, plot and report writes a message size, a point key and a value, so
the terminal, Markdown, HTML and figures agree."""

from __future__ import annotations

from commscope.records.run import PointKey, Run


def format_size(size: int | None) -> str:
    """1 KiB, 4 MiB, 12 B: sizes as people read them on axes and in prose."""
    if size is None:
        return "-"
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def format_key(key: PointKey) -> str:
    """Size and window, and the pair of a pairs run ("8 0->1 latency"); the other axes are
    shown apart (columns, headings)."""
    text = "-" if key.size is None else str(key.size)
    text = f"{text} w{key.window}" if key.window is not None else text
    return f"{text} {key.pair[0]}->{key.pair[1]} {key.pair[2]}" if key.pair is not None else text


def format_value(value: float | None) -> str:
    """OMB's two decimals; '-' where there is no value."""
    return "-" if value is None else f"{value:.2f}"


def precision_line(run: Run) -> str | None:
    """How the sizes of a --precision run ended, in one line (None without --precision)."""
    stops = [point.metrics.get("precision_stop") for point in run.points]
    if not any(stops):
        return None
    target = next(p.metrics["precision_target_pct"] for p in run.points if "precision_target_pct" in p.metrics)
    reached = [
        p.metrics.get("precision_achieved_pct")
        for p in run.points
        if isinstance(p.metrics.get("precision_achieved_pct"), (int, float))
    ]
    counts = {stop: stops.count(stop) for stop in ("target", "max_time", "max_samples") if stop in stops}
    worst = f"; widest interval {max(reached):.1f}%" if reached else ""
    return (
        f"precision: +-{target:g}% asked; {counts.get('target', 0)} of {len(stops)} sizes reached it"
        + "".join(f", {n} stopped at {stop.replace('_', '-')}" for stop, n in counts.items() if stop != "target")
        + worst
    )
