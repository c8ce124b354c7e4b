"""The shared column vocabulary, header splitting and the metric names."""

import pytest

from commscope.ingest.parse import METRIC_UNITS, detect_format, is_known_metric, percentile_metric, unit_of
from commscope.ingest.parse.columns import read_cell, recognise, recognise_labelled, split_header


@pytest.mark.parametrize(
    "header, cells",
    [
        ("Size       Avg Latency(us)", ["Size", "Avg Latency(us)"]),
        ("Size          Latency (us)", ["Size", "Latency (us)"]),
        ("Size      Bandwidth (MB/s)", ["Size", "Bandwidth (MB/s)"]),
        ("Size Bandwidth (MB/s)", ["Size", "Bandwidth (MB/s)"]),
        ("Size MB/s Messages/s", ["Size", "MB/s", "Messages/s"]),
        (
            "Size Avg Latency(us) Min Latency(us) Max Latency(us) Iterations",
            ["Size", "Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations"],
        ),
        (
            "Size           Overall(us)       Compute(us)    Coll. Init(us)      MPI_Test(us)",
            ["Size", "Overall(us)", "Compute(us)", "Coll. Init(us)", "MPI_Test(us)"],
        ),
        ("#bytes #repetitions      t[usec]   Mbytes/sec", ["#bytes", "#repetitions", "t[usec]", "Mbytes/sec"]),
        ("Group #repetitions  t_min[usec]", ["Group", "#repetitions", "t_min[usec]"]),
        ("Size\tLatency (us)\tLatency (us)", ["Size", "Latency (us)", "Latency (us)"]),
    ],
)
def test_split_header(header, cells):
    assert split_header(header) == cells


@pytest.mark.parametrize(
    "header, metric",
    [
        ("Avg Latency(us)", "latency_us"),
        ("Latency (us)", "latency_us"),
        ("latency [µs]", "latency_us"),
        ("Min Latency(us)", "min_latency_us"),
        ("Max Latency(us)", "max_latency_us"),
        ("Bandwidth (MB/s)", "bandwidth_MBps"),
        ("MB/s", "bandwidth_MBps"),
        ("Bi-Directional Bandwidth (MB/s)", "bandwidth_MBps"),
        ("Messages/s", "message_rate"),
        ("Validation", "validation"),
        ("P50 Tail Lat(us)", "p50_us"),
        ("P99.9 Tail Lat(us)", "p99_9_us"),
        ("P99 Tail BW(MB/s)", "p99_MBps"),
        ("Pure Comm.(us)", "pure_comm_us"),
        ("Overlap(%)", "overlap_pct"),
        ("overlap[%]", "overlap_pct"),
        ("t_CPU[usec]", "t_cpu_us"),
        ("Msg/sec", "msg_per_sec"),
        ("Transmit Size", "transmit_size"),
        ("**Size**", "size"),
        ("Message size [B]", "size"),
    ],
)
def test_recognise(header, metric):
    column = recognise(header)
    assert column is not None and column.metric == metric


@pytest.mark.parametrize("header", ["Jitter(us)", "Source", "Sequential write rate (MB/s)", "", "x" * 500])
def test_not_recognised(header):
    assert recognise(header) is None


def test_labelled_header():
    label, column = recognise_labelled("cluster A Avg Latency(us)")
    assert (label, column.metric) == ("cluster A", "latency_us")
    assert recognise_labelled("Latency (us)") is None


@pytest.mark.parametrize("token", ["nan", "inf", "-Infinity", "1_000", "0x10", "1e999", "", "1.2.3"])
def test_read_cell_rejects_what_is_not_a_plain_number(token):
    with pytest.raises(ValueError):
        read_cell(token, recognise("Latency (us)"))


def test_read_cell_values():
    assert read_cell("0.46", recognise("Latency (us)")) == 0.46
    assert read_cell("1e3", recognise("Latency (us)")) == 1000.0
    assert read_cell("100", recognise("Iterations")) == 100
    assert read_cell("FAIL", recognise("Validation")) == "Fail"
    assert read_cell("`4096`", recognise("Size")) == 4096


def test_metric_vocabulary_matches_commscope_json_names():
    for name in ("latency_us", "min_latency_us", "max_latency_us", "bandwidth_MBps", "message_rate"):
        assert name in METRIC_UNITS
    assert unit_of("bandwidth_MBps") == "MB/s"
    assert unit_of("p99_9_us") == "us" and unit_of("p50_MBps") == "MB/s"
    assert percentile_metric(99.9, "us") == "p99_9_us" and percentile_metric(50, "MBps") == "p50_MBps"
    assert is_known_metric("t_avg_us") and not is_known_metric("latency_ns")
    assert unit_of("latency_ns") == ""


def test_detect_format():
    assert detect_format("# OSU MPI Latency Test v7.4\n# Size  Latency (us)\n1  0.4\n") == "omb"
    assert detect_format("| Size | Latency (us) |\n|--|--|\n| 1 | 0.4 |\n") == "table"
    imb = "# Benchmarking PingPong\n #bytes #repetitions t[usec] Mbytes/sec\n 0 10 0.3 0.0\n"
    assert detect_format(imb) == "imb"
    assert detect_format("nothing here") is None
