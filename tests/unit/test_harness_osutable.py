"""OSU-style tables rendered from hand-made points, against golden text in OMB's layout."""

from __future__ import annotations

from commscope.output.osutable import render, render_run
from commscope.records.run import Point, Run
from commscope.records.text import precision_line


def lat(size: int, value: float, **metrics) -> Point:
    return Point(size=size, metrics={"latency_us": value, **metrics})


def test_latency_table_is_omb_layout():
    text = render(
        [lat(0, 0.46), lat(1, 0.37), lat(1024, 12.5)], ["commscope MPI Latency Test v0.1.0", "Datatype: MPI_CHAR."]
    )
    assert text == (
        "# commscope MPI Latency Test v0.1.0\n"
        "# Datatype: MPI_CHAR.\n"
        "# Size       Avg Latency(us)\n"
        "0                       0.46\n"
        "1                       0.37\n"
        "1024                   12.50\n"
    )


def test_bandwidth_and_message_rate_headings():
    points = [Point(size=1, metrics={"bandwidth_MBps": 9.53, "message_rate": 9529999.5})]
    assert render(points).splitlines() == [
        "# Size                  MB/s        Messages/s",
        "1                       9.53        9529999.50",
    ]
    assert render(points, hide=["message_rate"]).splitlines() == [
        "# Size      Bandwidth (MB/s)",
        "1                       9.53",
    ]


def test_full_validation_and_percentile_columns():
    point = Point(
        size=1,
        iterations=100,
        validation_errors=0,
        metrics={
            "latency_us": 0.34,
            "min_latency_us": 0.06,
            "max_latency_us": 0.62,
            "p50_us": 0.38,
            "p90_us": 0.47,
            "p99_us": 0.54,
        },
    )
    assert render([point], full=True).splitlines() == [
        "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations        Validation"
        "  P50 Tail Lat(us)  P90 Tail Lat(us)  P99 Tail Lat(us)",
        "1                       0.34              0.06              0.62         100              Pass"
        "              0.38              0.47              0.54",
    ]
    # Without -f, OMB shows neither min/max nor iterations.
    assert render([point], full=False).splitlines()[0] == (
        "# Size       Avg Latency(us)        Validation  P50 Tail Lat(us)  P90 Tail Lat(us)  P99 Tail Lat(us)"
    )


def test_failed_validation_and_missing_values():
    # A heading as wide as the column touches its neighbour, as in OMB's and the core's tables.
    points = [
        Point(size=8, metrics={"latency_us": 1.0}, validation_errors=0),
        Point(size=16, metrics={"latency_us": 1.5, "p99_9_us": 3.0}, validation_errors=2),
    ]
    assert render(points).splitlines() == [
        "# Size       Avg Latency(us)        ValidationP99.9 Tail Lat(us)",
        "8                       1.00              Pass                 -",
        "16                      1.50              Fail              3.00",
    ]


def test_windows_of_mbw_mr_v_are_separate_blocks():
    points = [
        Point(size=size, window=window, metrics={"bandwidth_MBps": float(size * window)})
        for size in (1, 2)
        for window in (1, 2)
    ]
    assert render(points).splitlines() == [
        "# [ window size: 1 ]",
        "# Size      Bandwidth (MB/s)",
        f"{1:<10}{1.0:>18.2f}",
        f"{2:<10}{2.0:>18.2f}",
        "# [ window size: 2 ]",
        "# Size      Bandwidth (MB/s)",
        f"{1:<10}{2.0:>18.2f}",
        f"{2:<10}{4.0:>18.2f}",
    ]


def test_imported_metrics_without_omb_names_keep_their_own():
    points = [Point(size=None, metrics={"t_avg_us": 4.25, "defects": 0})]
    assert render(points).splitlines() == [
        "#          t_avg_us           defects",
        "              4.25              0.00",
    ]


def test_run_title_and_rate_hidden_for_single_pair_bandwidth():
    run = Run(
        benchmark="bw",
        description="one-way bandwidth",
        tool_name="commscope-bench",
        tool_version="0.1.0",
        options={"datatype": "MPI_CHAR", "full": False},
        provenance={"benchmark": {"pattern": "window_uni"}},
        points=[Point(size=4, metrics={"bandwidth_MBps": 40.0, "message_rate": 1e7})],
    )
    assert render_run(run).splitlines() == [
        "# bw: one-way bandwidth (commscope-bench v0.1.0)",
        "# Datatype: MPI_CHAR.",
        "# Size      Bandwidth (MB/s)",
        "4                      40.00",
    ]
    run.provenance = {"benchmark": {"pattern": "multi_pair_window"}}
    assert "Messages/s" in render_run(run)


def test_precision_outcome_is_a_line_under_the_table_not_columns():
    def point(size, stop, achieved):
        return Point(
            size=size,
            metrics={
                "latency_us": 1.5,
                "precision_achieved_pct": achieved,
                "precision_target_pct": 2,
                "precision_rounds": 9,
                "precision_stop": stop,
            },
        )

    run = Run(benchmark="latency", points=[point(1, "target", 1.5), point(2, "max_time", 7.25)])
    table = render_run(run)
    assert "precision" not in table and table.splitlines()[-1].split() == ["2", "1.50"]
    assert precision_line(run) == (
        "precision: +-2% asked; 1 of 2 sizes reached it, 1 stopped at max-time; widest interval 7.2%"
    )
    assert precision_line(Run(benchmark="latency", points=[Point(size=1, metrics={"latency_us": 1.0})])) is None
