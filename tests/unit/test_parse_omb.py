"""OMB (5.x-7.x) and commscope text tables: every layout of suites.md §1.4."""

import pytest

from commscope.ingest.parse import ParsedRun, parse_file, parse_text
from paths import FIXTURES as SUPPORT_FIXTURES

FIXTURES = SUPPORT_FIXTURES / "parse"


def only_run(name: str) -> ParsedRun:
    runs = parse_file(FIXTURES / name)
    assert len(runs) == 1, runs
    return runs[0]


def full_row(avg: float, low: float, high: float, iterations: int, **more) -> dict:
    """The values of one row of a `-f` table: average, min and max latency, iterations and
    whatever columns follow."""
    return {"latency_us": avg, "min_latency_us": low, "max_latency_us": high, "iterations": iterations, **more}


def test_latency_7x_title_version_datatype_and_values():
    run = only_run("omb7_latency.txt")
    assert run.benchmark == "latency"
    assert run.source_format == "omb"
    assert (run.tool, run.tool_version) == ("OMB", "7.4")
    assert run.title == "OSU MPI Latency Test v7.4"
    assert run.line == 2  # OMB prints a blank line before the title
    assert run.ranks == 2
    assert run.parameters == {"datatype": "MPI_CHAR"}
    assert run.metrics == {"latency_us": "us"}
    assert run.sizes == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    assert run.value(1, "latency_us") == 0.46
    assert run.value(1024, "latency_us") == 0.67
    assert run.point(1).line == 5
    assert run.point(1024).line == 15


def test_latency_5x_header_without_datatype_line():
    run = only_run("omb5_latency.txt")
    assert (run.benchmark, run.tool_version) == ("latency", "5.6.3")
    assert run.parameters == {}
    assert run.sizes[0] == 0
    assert run.value(4194304, "latency_us") == 346.91


def test_latency_validation_and_tail_percentiles():
    run = only_run("omb7_latency_validation_tail.txt")
    assert list(run.metrics) == ["latency_us", "validation", "p50_us", "p90_us", "p99_us"]
    assert run.metrics["validation"] == "Pass/Fail"
    assert run.metrics["p99_us"] == "us"
    point = run.point(8)
    assert point.values == {"latency_us": 0.47, "validation": "Pass", "p50_us": 0.44, "p90_us": 0.63, "p99_us": 0.95}


def test_bandwidth():
    run = only_run("omb7_bw.txt")
    assert (run.benchmark, run.ranks) == ("bw", 2)
    assert run.metrics == {"bandwidth_MBps": "MB/s"}
    assert run.value(65536, "bandwidth_MBps") == 3636.32
    assert run.series("bandwidth_MBps")[:2] == [(1, 9.53), (2, 19.22)]


def test_bandwidth_header_with_single_spaces():
    run = only_run("omb7_bw_one_space.txt")
    assert run.metrics == {"bandwidth_MBps": "MB/s"}
    assert run.value(2, "bandwidth_MBps") == 19.22


def test_bandwidth_tail_percentiles_any_list():
    run = only_run("omb7_bw_tail_bw.txt")
    assert list(run.metrics) == ["bandwidth_MBps", "p1_MBps", "p50_MBps", "p99_MBps"]
    assert run.metrics["p1_MBps"] == "MB/s"
    assert run.value(8192, "p1_MBps") == 2228.45
    assert run.value(8192, "p99_MBps") == 4367.88


def test_bibw_5x():
    run = only_run("omb5_bibw.txt")
    assert (run.benchmark, run.tool_version) == ("bibw", "5.3.2")
    assert run.value(4194304, "bandwidth_MBps") == 24187.55


def test_mbw_mr_with_message_rate():
    run = only_run("omb7_mbw_mr.txt")
    assert run.benchmark == "mbw_mr"
    assert run.parameters["pairs"] == 2 and run.parameters["window_size"] == 64
    assert run.ranks == 4
    assert run.metrics == {"bandwidth_MBps": "MB/s", "message_rate": "messages/s"}
    assert run.point(8).values == {"bandwidth_MBps": 72.88, "message_rate": 9110061.21}


def test_mbw_mr_without_message_rate():
    run = only_run("omb7_mbw_mr_no_rate.txt")
    assert run.metrics == {"bandwidth_MBps": "MB/s"}
    assert run.value(4, "bandwidth_MBps") == 36.51


def test_mbw_mr_vary_window_matrices_become_one_run_per_window():
    runs = parse_file(FIXTURES / "omb7_mbw_mr_vary_window.txt")
    assert [r.label for r in runs] == [f"window {w}" for w in (1, 2, 4, 8, 16, 32, 64, 128)]
    assert all(r.benchmark == "mbw_mr" and r.source_format == "omb" for r in runs)
    window8 = runs[3]
    assert window8.parameters["window_size"] == 8
    assert window8.parameters["pairs"] == 1
    assert window8.sizes == [1, 2, 4]
    # bandwidth from the first matrix, message rate from the second, same point
    assert window8.point(2).values == {"bandwidth_MBps": 10.25, "message_rate": 5125113.44}
    assert window8.point(2).line == 8
    assert runs[-1].value(4, "message_rate") == 9300100.75


def test_multi_lat():
    run = only_run("omb7_multi_lat.txt")
    assert run.benchmark == "multi_lat"
    assert run.value(4, "latency_us") == 0.42


def test_collective_full_format():
    run = only_run("omb7_bcast_full.txt")
    assert run.benchmark == "bcast"
    assert run.ranks is None  # OMB does not print the number of ranks
    assert list(run.metrics) == ["latency_us", "min_latency_us", "max_latency_us", "iterations"]
    assert run.metrics["iterations"] == "count"
    assert run.point(65536).values == full_row(6.67, 6.32, 7.02, 10)
    assert isinstance(run.value(1, "iterations"), int)


def test_collective_full_validation_tail():
    run = only_run("omb7_bcast_full_validation_tail.txt")
    assert run.point(2).values == full_row(
        0.35, 0.06, 0.63, 100, validation="Pass", p50_us=0.39, p90_us=0.48, p99_us=0.57
    )


def test_validation_failure_keeps_rows_and_notes_the_error():
    run = only_run("omb7_allreduce_validation_fail.txt")
    assert run.benchmark == "allreduce"
    assert run.value(16, "validation") == "Fail"
    assert run.value(8, "validation") == "Pass"
    assert run.notes == ["DATA VALIDATION ERROR: osu_allreduce exited with status 1 on message size 16."]


def test_datatype_all_gives_one_run_per_datatype():
    runs = parse_file(FIXTURES / "omb7_allreduce_all_types.txt")
    assert [r.parameters["datatype"] for r in runs] == ["MPI_CHAR", "MPI_INT", "MPI_FLOAT"]
    assert runs[2].value(8, "latency_us") == 1.12


def test_barrier_has_no_size_column():
    run = only_run("omb7_barrier_full.txt")
    assert run.benchmark == "barrier"
    assert run.sizes == [None]
    assert run.point(None).values == full_row(1.89, 1.71, 2.03, 1000)


def test_nonblocking_full_overlap_columns():
    run = only_run("omb7_iallreduce_full.txt")
    assert run.benchmark == "iallreduce"
    assert list(run.metrics) == [
        "overall_us",
        "compute_us",
        "coll_init_us",
        "test_us",
        "wait_us",
        "pure_comm_us",
        "min_comm_us",
        "max_comm_us",
        "overlap_pct",
    ]
    assert run.metrics["overlap_pct"] == "%"
    assert run.point(4).values["coll_init_us"] == 0.29
    assert run.point(8).values["overlap_pct"] == 40.43


def test_nonblocking_short_overlap_columns():
    run = only_run("omb7_iallreduce.txt")
    assert run.point(4).values == {"overall_us": 2.60, "compute_us": 1.77, "pure_comm_us": 1.40, "overlap_pct": 40.30}


def test_nonblocking_barrier_without_size():
    run = only_run("omb7_ibarrier.txt")
    assert run.benchmark == "ibarrier"
    assert run.point(None).values["overlap_pct"] == 24.13


def test_one_sided_headers():
    run = only_run("omb7_put_latency.txt")
    assert run.benchmark == "put_latency"
    assert run.parameters == {
        "window_creation": "MPI_Win_allocate",
        "synchronization": "MPI_Win_flush",
        "datatype": "MPI_CHAR",
    }
    assert run.value(4, "latency_us") == 0.22


def test_cuda_title_and_buffer_locations():
    run = only_run("omb7_cuda_bw.txt")
    assert run.benchmark == "bw"
    assert run.title == "OSU MPI-CUDA Bandwidth Test v7.4"
    assert run.parameters["accelerator"] == "CUDA"
    assert (run.parameters["send_buffer"], run.parameters["recv_buffer"]) == ("DEVICE", "HOST")
    assert run.value(1048576, "bandwidth_MBps") == 11877.30


def test_osu_init_line():
    run = only_run("omb7_init.txt")
    assert (run.benchmark, run.ranks) == ("init", 2)
    assert run.point(None).values == {"init_min_ms": 226.0, "init_max_ms": 232.0, "init_avg_ms": 229.0}
    assert run.metrics["init_avg_ms"] == "ms"


def test_commscope_text_title():
    run = only_run("commscope_latency.txt")
    assert (run.benchmark, run.tool, run.tool_version) == ("latency", "commscope", "0.1.0")
    assert run.source_format == "omb"
    assert run.value(0, "latency_us") == 0.29


def test_job_log_with_two_benchmarks_and_launcher_noise():
    runs = parse_file(FIXTURES / "job_log_latency_then_bw.txt")
    assert [r.benchmark for r in runs] == ["latency", "bw"]
    latency, bw = runs
    assert latency.sizes == [1, 2, 4, 8]  # the "[node017:48211] ..." line in between is skipped
    assert latency.point(2).line == 13
    assert bw.value(8, "bandwidth_MBps") == 20.36


@pytest.mark.parametrize(
    "title, expected",
    [
        ("OSU MPI Latency Test v7.4", "latency"),
        ("OSU MPI Bandwidth Test v7.4", "bw"),
        ("OSU MPI Bi-Directional Bandwidth Test v7.4", "bibw"),
        ("OSU MPI Multiple Bandwidth / Message Rate Test v7.4", "mbw_mr"),
        ("OSU MPI Multi Latency Test v7.4", "multi_lat"),
        ("OSU MPI Multi-threaded Latency Test v7.4", "latency_mt"),
        ("OSU MPI Multi-process Latency Test v7.4", "latency_mp"),
        ("OSU MPI Latency Persistent Test v7.4", "latency_persistent"),
        ("OSU MPI Bi-Directional Bandwidth Persistent Test v7.4", "bibw_persistent"),
        ("OSU MPI Partitioned Latency Test v7.5", "partitioned_latency"),
        ("OSU MPI_Get Multiple Bandwidth Bandwidth Test v7.4", "get_mbw"),
        ("OSU MPI_Get Multi Latency Test v7.4", "get_multi_lat"),
        ("OSU MPI Broadcast Latency Test v7.4", "bcast"),
        ("OSU MPI Allreduce Latency Test v7.4", "allreduce"),
        ("OSU MPI Reduce_scatter Latency Test v7.4", "reduce_scatter"),
        ("OSU MPI All-to-All Personalized Exchange Latency Test v7.4", "alltoall"),
        ("OSU MPI Barrier Latency Test v7.4", "barrier"),
        ("OSU MPI Non-blocking Allreduce Latency Test v7.4", "iallreduce"),
        ("OSU MPI Non-Blocking Broadcast Latency Test v7.4", "ibcast"),
        ("OSU MPI Non-blocking All-to-Allv Personalized Exchange Latency Test v7.4", "ialltoallv"),
        ("OSU MPI Non-blocking Neighbor Allgatherv Latency Test v7.4", "ineighbor_allgatherv"),
        ("OSU MPI Reduce Persistent Latency Test v7.4", "reduce_persistent"),
        ("OSU MPI-ROCM Allgather Latency Test v7.4", "allgather"),
        ("OSU MPI-CUDA MANAGED Bandwidth Test v7.4", "bw"),
        ("OSU MPI_Put Latency Test v7.4", "put_latency"),
        ("OSU MPI_Get-CUDA Bandwidth Test v7.4", "get_bw"),
        ("OSU MPI_Put Bi-directional Bandwidth Test v7.4", "put_bibw"),
        ("OSU MPI_Accumulate latency Test v7.4", "acc_latency"),
        ("OSU MPI_Get_accumulate latency Test v7.4", "get_acc_latency"),
        ("OSU MPI_Fetch_and_op latency Test v7.4", "fop_latency"),
        ("OSU MPI_Compare_and_swap latency Test v7.4", "cas_latency"),
        ("commscope MPI Latency Test v0.1.0", "latency"),
    ],
)
def test_title_names_the_benchmark(title, expected):
    text = f"# {title}\n# Size       Avg Latency(us)\n1                       0.46\n"
    assert parse_text(text, "t.txt")[0].benchmark == expected


def test_unknown_title_still_reads_the_table_under_a_slug_name():
    text = "# OSU MPI Frobnicate Test v9.9\n# Size       Avg Latency(us)\n1    0.46\n"
    run = parse_text(text, "t.txt")[0]
    assert run.benchmark == "frobnicate"
    assert run.tool_version == "9.9"


def test_table_pasted_in_html_pre_block():
    text = "<pre>\n# OSU MPI Multi Latency Test v5.3.2\n# Size          Latency (us)\n0    0.98\n1    1.03\n</pre>\n"
    run = parse_text(text, "page.html")[0]
    assert (run.benchmark, run.sizes) == ("multi_lat", [0, 1])
