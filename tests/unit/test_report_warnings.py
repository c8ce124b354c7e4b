"""The report's warnings about unstable numbers: what to do about them, and silence where
the spread is the clock's resolution rather than the machine's."""

from __future__ import annotations

from commscope.output.report import warnings
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
    assert warnings.unstable(quiet) is None
    # the same relative spread at 2 µs is 0.6 µs: real
    noisy = Run(benchmark="latency", id=2, points=[point(4096, 2.0, 0.3)])
    text = warnings.unstable(noisy)
    assert text and "1 unstable size(s)" in text and "4 KiB" in text


def test_unstable_names_what_to_do():
    run = Run(benchmark="latency", id=3, points=[point(8, 5.0, 0.6)])
    text = warnings.unstable(run)
    assert "what helps:" in text and "--repeat 5" in text and "--max-time" in text and "quieter machine" in text
    # an unbound run is told to bind first, with the reason it was unbound
    run.provenance = {
        "binding": {"asked": "none", "requested": "core", "reason": "oversubscribed: 4 ranks on 2 core(s)"}
    }
    assert (
        "what helps: bind ranks to cores (this run was not: oversubscribed: 4 ranks on 2 core(s)"
        in warnings.unstable(run)
    )


def test_precision_missed_lists_the_sizes_and_what_they_reached():
    run = Run(
        benchmark="latency",
        id=4,
        points=[
            point(1, 1.0, 0.01, precision_stop="target", precision_achieved_pct=1.5, precision_target_pct=2),
            point(2, 1.0, 0.01, precision_stop="max_time", precision_achieved_pct=7.25, precision_target_pct=2),
        ],
    )
    text = warnings.precision_missed(run)
    assert text.startswith(
        "run 4 (latency): 1 of 2 size(s) did not reach the --precision target of 2% before --max-time: 2 B (7.2%)"
    )
    assert warnings.precision_missed(Run(benchmark="latency", points=[point(1, 1.0, 0.01)])) is None
