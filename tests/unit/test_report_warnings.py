"""The report's warnings about unstable numbers: what to do about them, and silence where
the spread is the clock's resolution rather than the machine's."""

from __future__ import annotations

import re

import pytest

from commscope.analysis import report_warnings as warnings
from commscope.records.run import Point, Run
from fixtures.analysis.handmade import stats_for


def point(size: int, mean_us: float, spread: float, batch: int = 1, samples: int = 20, **metrics) -> Point:
    return Point(
        size=size,
        metrics={"latency_us": mean_us, **metrics},
        batch=batch,
        samples=samples,
        stats=stats_for(mean_us, spread, samples),
    )


def test_a_wide_interval_of_nanoseconds_is_resolution_not_instability():
    # 0.1 µs at 28% CV (sd 28 ns) and an interval 24% of the mean (±12 ns): beyond both
    # relative limits, yet below what the clock and the loop resolve
    quiet = Run(benchmark="latency", id=1, points=[point(0, 0.1, 0.28, batch=50)])
    assert warnings.off_target(quiet) is None
    # the same relative spread at 2 µs is 0.6 µs: real
    noisy = Run(benchmark="latency", id=2, points=[point(4096, 2.0, 0.3)])
    found = warnings.off_target(noisy)
    assert found and (found.count, found.total, found.sizes) == (1, 1, "4 KiB")


def test_what_helps_is_said_for_the_runs_it_concerns():
    run = Run(benchmark="latency", id=3, points=[point(8, 5.0, 0.6)])
    text = warnings.for_runs([run]).advice
    assert "--repeat 5" in text and "--max-time" in text and "quieter machine" in text
    # an unbound run is told to bind first, with the reason it was unbound
    run.provenance = {
        "binding": {"asked": "none", "requested": "core", "reason": "oversubscribed: 4 ranks on 2 core(s)"}
    }
    assert warnings.for_runs([run]).advice.startswith(
        "what helps: bind ranks to cores (run 3 was not: oversubscribed: 4 ranks on 2 core(s)"
    )
    steady = Run(benchmark="latency", id=4, points=[point(8, 5.0, 0.01)])
    assert not warnings.for_runs([steady]) and warnings.for_runs([steady]).advice is None


def test_precision_missed_says_the_widest_interval_reached_and_the_target():
    run = Run(
        benchmark="latency",
        id=4,
        points=[
            point(1, 1.0, 0.01, precision_stop="target", precision_achieved_pct=1.5, precision_target_pct=2),
            point(2, 1.0, 0.01, precision_stop="max_time", precision_achieved_pct=7.25, precision_target_pct=2),
        ],
    )
    found = warnings.off_target(run)
    assert (found.count, found.total, found.sizes, found.widest, found.target) == (1, 2, "2 B", "±7% at 2 B", "2%")
    assert warnings.off_target(Run(benchmark="latency", points=[point(1, 1.0, 0.01)])) is None


def _make_run_like(run_id: int, benchmark: str) -> Run:
    """What `make run` stores on a busy two-core machine: every size unstable and short of
    its --precision target, sub-microsecond batches whose samples scatter by thousands of
    percent of the mean."""
    return Run(
        benchmark=benchmark,
        id=run_id,
        label="vm",
        provenance={"binding": {"asked": "core"}},
        points=[
            point(
                1 << power,
                2.0,
                0.6 if power % 2 else 9.0,
                precision_stop="max_time",
                precision_achieved_pct=20.0 + power,
                precision_target_pct=2,
            )
            for power in range(12)
        ],
    )


@pytest.mark.slow
def test_sizes_off_target_are_one_table_with_the_advice_once(cli, tmp_path):
    """Five runs whose sizes all missed: one row per run in one table, what helps said once,
    and no coefficient of variation in thousands of percent."""
    from fixtures.analysis.handmade import store_runs

    db = tmp_path / "r.db"
    ids = store_runs(db, [_make_run_like(0, name) for name in ("latency", "bw", "bibw", "mbw_mr", "multi_lat")])
    md = tmp_path / "r.md"
    result = cli("report", *map(str, ids), "-o", tmp_path / "r.html", "--markdown", md, "--db", db)
    assert result.exit_code == 0, result.output
    text = md.read_text()
    section = text[text.index("## Warnings") :]
    section = section[: section.index("\n## ", 3)]
    assert section.count("what helps") == 1 and section.count("--repeat 5") == 1
    assert "| run | benchmark | sizes off target |" in section
    for run_id in ids:
        assert section.count(f"| {run_id} |") == 1
    assert "CV " not in section and not re.search(r"\d{3,}%", section), section
    html = (tmp_path / "r.html").read_text()
    warnings_html = html[html.index('id="warnings"') : html.index('id="bench-')]
    assert warnings_html.count("what helps") == 1 and warnings_html.count("<li>") <= 1
