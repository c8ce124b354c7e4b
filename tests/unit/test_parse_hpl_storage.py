"""Readers of the cluster beside the network: HPL (xhpl's HPL.out, hpcc's hpccoutf.txt,
the standard-benchmarks table), storage (fio JSON, IOzone throughput mode, the standard-benchmarks tables). The
HPL and fio fixtures are real outputs of hpcc 1.5.0 and fio 3.33 on the project's VM."""

from __future__ import annotations

from pathlib import Path

import pytest

from commscope.ingest.parse import ParseError, parse_file, parse_text
from paths import FIXTURES as SUPPORT_FIXTURES

FIXTURES = SUPPORT_FIXTURES / "compute"
STANDARD_BENCHMARKS = next(iter(sorted(Path("/work/shared/seeds").glob("001_*.txt"))), None)
needs_standard_benchmarks = pytest.mark.skipif(
    STANDARD_BENCHMARKS is None, reason="the standard-benchmarks page is not beside the repository (../shared/seeds)"
)


def test_hpccoutf_one_rank_gives_hpl_and_the_other_tests():
    runs = parse_file(FIXTURES / "hpccoutf_np1.txt")
    names = [run.benchmark for run in runs]
    assert names == ["hpl", "hpcc_dgemm", "hpcc_stream", "hpcc_ptrans", "hpcc_randomaccess", "hpcc_fft"]
    hpl = runs[0]
    point = hpl.points[0]
    assert point.size == 1000 and point.values["block_size"] == 80
    assert (point.values["grid_rows"], point.values["grid_cols"]) == (1, 1)
    assert point.values["gflops"] == pytest.approx(1.138)
    assert point.values["time_s"] == pytest.approx(0.59)
    assert point.values["hpl_residual"] == pytest.approx(0.0071960)
    assert point.values["validation_errors"] == 0
    assert hpl.ranks == 1 and hpl.tool == "hpcc" and hpl.tool_version == "1.5.0"
    stream = runs[2]
    assert stream.points[0].size == 333333
    assert stream.points[0].values["star_triad_GBps"] == pytest.approx(29.4155)


def test_hpccoutf_two_ranks_has_b_eff():
    runs = parse_file(FIXTURES / "hpccoutf_np2.txt")
    beff = next(run for run in runs if run.benchmark == "hpcc_beff")
    assert beff.points[0].values["avg_pingpong_latency_us"] > 0
    assert runs[0].points[0].values["grid_cols"] == 2 and runs[0].ranks == 2


def test_hpl_out_of_xhpl():
    (run,) = parse_file(FIXTURES / "HPL.out")
    assert run.benchmark == "hpl" and run.source_format == "hpl" and run.tool_version == "2.0"
    assert run.ranks == 2 and run.parameters["residual_threshold"] == 16.0
    assert run.points[0].values["validation_errors"] == 0


def test_a_failed_residual_is_a_validation_error(tmp_path):
    text = (FIXTURES / "HPL.out").read_text().replace("...... PASSED", "...... FAILED")
    (run,) = parse_text(text, "bad.out")
    assert run.points[0].values["validation_errors"] == 1
    assert "FAILED" in run.notes[0]


def test_hpl_without_results_is_rejected():
    text = "\n".join((FIXTURES / "HPL.out").read_text().splitlines()[:40])
    with pytest.raises(ParseError, match="without any T/V result line"):
        parse_text(text, "cut.out")


@needs_standard_benchmarks
def test_standard_benchmarks_hpl_table():
    runs = [run for run in parse_file(STANDARD_BENCHMARKS) if run.benchmark == "hpl"]
    assert [run.label for run in runs][:2] == ["1-gpuv100-node", "1-stdmem-node"]
    first = runs[0]
    assert (first.ranks, first.nodes, first.parameters["memory_per_node_GB"]) == (24, 1, 192)
    assert first.points[0].size == 141312
    assert first.points[0].values["gflops"] == 1591  # "1,591"
    assert first.points[0].values["hpl_variant"] == "WC00C2R2"
    biggest = runs[-1]
    assert (biggest.label, biggest.nodes, biggest.ranks) == ("10-stdmem-nodes", 10, 400)
    assert (biggest.points[0].values["grid_rows"], biggest.points[0].values["grid_cols"]) == (2, 5)
    assert biggest.points[0].values["gflops"] == 22219


@needs_standard_benchmarks
def test_standard_benchmarks_storage_tables():
    nss, nvme = [run for run in parse_file(STANDARD_BENCHMARKS) if run.benchmark == "storage"]
    assert nss.label == "NSS-HA 7.3" and nvme.label == "NVME-SSD Scratch Server"
    assert [p.size for p in nss.points] == [1, 2, 4, 8, 13]
    thirteen = nss.points[-1].values
    assert thirteen["seq_write_MBps_per_process"] == 408 and thirteen["seq_write_MBps"] == 5315
    assert thirteen["seq_read_MBps"] == 5353
    assert "rand_write_iops" not in thirteen
    # the NVMe device's totals come from the <pre> block under its per-process table
    last = nvme.points[-1].values
    assert last["rand_read_iops"] == 147316 and last["rand_read_iops_per_process"] == 11332
    assert last["seq_write_MBps"] == 4141840


def test_storage_table_with_bad_number_names_its_line():
    text = (
        "#### Disk\n##### Total throughput\n| # clients or processes | Sequential write rate (MB/s) |\n"
        "|:--|:--|\n| 1 | 100 |\n| 2 | lots |\n"
    )
    with pytest.raises(ParseError) as error:
        parse_text(text, "t.md")
    assert error.value.line == 6 and "lots" in str(error.value)


def test_hpl_table_with_bad_number_names_its_line():
    text = (
        "| T/V | N | NB | P | Q | Time(secs) | Gflops |\n|:--|--:|--:|--:|--:|--:|--:|\n"
        "| a:WR | 1000 | 80 | 1 | 1 | 0.5 | fast |\n"
    )
    with pytest.raises(ParseError) as error:
        parse_text(text, "t.md")
    assert error.value.line == 3


def test_fio_json_two_jobs_add_up():
    (run,) = parse_file(FIXTURES / "fio_2jobs_seq_write.json")
    point = run.points[0]
    assert run.benchmark == "storage" and run.source_format == "fio" and run.tool_version == "3.33"
    assert point.size == 2
    assert point.values["seq_write_MBps_per_process"] == pytest.approx(point.values["seq_write_MBps"] / 2)
    (random,) = parse_file(FIXTURES / "fio_2jobs_rand_read.json")
    assert random.points[0].values["rand_read_iops"] > 0


def test_fio_json_after_a_warning_line():
    text = "fio: a warning fio writes before its JSON\n" + (FIXTURES / "fio_2jobs_seq_write.json").read_text()
    (run,) = parse_text(text, "warned.json")
    assert run.points[0].size == 2


# IOzone is not packaged for Debian main: this is a format sample in the layout IOzone
# 3.4xx prints in throughput mode (-t 2 -i 0 -i 1 -i 2 -r 1024k), with made-up numbers.
IOZONE_SAMPLE = """\
\tIozone: Performance Test of File I/O
\t        Version $Revision: 3.489 $
\t\tCompiled for 64 bit mode.
\tCommand line used: iozone -t 2 -i 0 -i 1 -i 2 -r 1024k -s 1g
\tOutput is in kBytes/sec
\tThroughput test with 2 processes
\tEach process writes a 1048576 kByte file in 1024 kByte records

\tChildren see throughput for  2 initial writers \t= 2000000.00 kB/sec
\tParent sees throughput for  2 initial writers \t= 1990000.00 kB/sec
\tMin throughput per process \t\t\t=  990000.00 kB/sec
\tMax throughput per process \t\t\t= 1010000.00 kB/sec
\tAvg throughput per process \t\t\t= 1000000.00 kB/sec
\tMin xfer \t\t\t\t\t= 1040000.00 kB

\tChildren see throughput for  2 readers \t\t= 3000000.00 kB/sec
\tAvg throughput per process \t\t\t= 1500000.00 kB/sec

\tChildren see throughput for 2 random readers \t= 1024000.00 kB/sec
\tAvg throughput per process \t\t\t=  512000.00 kB/sec
"""


def test_iozone_throughput_mode():
    (run,) = parse_text(IOZONE_SAMPLE, "iozone.txt")
    values = run.points[0].values
    assert run.source_format == "iozone" and run.tool_version == "3.489" and run.points[0].size == 2
    assert values["seq_write_MBps"] == pytest.approx(2000000 * 1024 / 1e6)
    assert values["seq_read_MBps_per_process"] == pytest.approx(1500000 * 1024 / 1e6)
    assert values["rand_read_iops"] == pytest.approx(1024000 / 1024)  # kB/s over 1024 kB records


def test_an_hpcc_run_without_an_hpl_result_stores_a_failed_hpl_run_with_the_reason():
    """hpcc that cannot allocate the matrix skips HPL and still runs its other tests: the
    HPL run is stored as failed, saying why, beside them (not left out without a word)."""
    from commscope.execute.hpl import HplOutcome, HplPlan, HplRequest, hpl_runs
    from commscope.execute.keep import Destination
    from commscope.execute.process import Finished

    lines = (FIXTURES / "hpccoutf_np1.txt").read_text().splitlines(keepends=True)
    lines[364:367] = [
        "HPL ERROR from process # 0, on line 169 of function HPL_pdtest:\n",
        ">>> [0,0] Memory allocation failed for A, x and b. Skip. <<<\n",
    ]
    plan = HplPlan(Path("/usr/bin/hpcc"), "hpcc", 1000, 80, 1, 1, 1, 2**30, ["hpcc"], {}, "hpccinf.txt", "")
    outcome = HplOutcome(plan, Finished(0, b"", b"", 1.0), "".join(lines).encode(), "t0", "t1")
    runs = hpl_runs(outcome, HplRequest(n=1000), Destination(db=None, argv=["commscope"], system="vm"))
    hpl = next(run for run in runs if run.benchmark == "hpl")
    assert hpl.status == "failed" and not hpl.points
    assert hpl.status_reason == "hpcc gave no HPL result: [0,0] Memory allocation failed for A, x and b. Skip."
    assert {run.benchmark for run in runs} > {"hpl", "hpcc_stream"}


def _fio_with(value: str) -> str:
    text = (FIXTURES / "fio_2jobs_seq_write.json").read_text()
    return text.replace('"bw_bytes" : 524288000', f'"bw_bytes" : {value}', 1)


def _hpcc_with(old: str, new: str) -> str:
    text = (FIXTURES / "hpccoutf_np1.txt").read_text()
    assert old in text
    return text.replace(old, new)


_HPL_TABLE = (
    "| T/V | N | NB | P | Q | Time(secs) | Gflops |\n|:--|--:|--:|--:|--:|--:|--:|\n"
    "| a:WR | 1000 | 80 | 1 | 1 | 0.5 | {} |\n"
)
_STORAGE_TABLE = (
    "#### Disk\n##### Total throughput\n| # clients or processes | Sequential write rate (MB/s) |\n"
    "|:--|:--|\n| 1 | 100 |\n| 2 | {} |\n"
)


@pytest.mark.parametrize(
    "text, line, message",
    [
        (_fio_with("-524288000"), 1, "seq_write_MBps -324.559 is negative"),
        (_fio_with("NaN"), 1, "seq_write_MBps nan is not a finite number"),
        (_fio_with("Infinity"), 1, "seq_write_MBps inf is not a finite number"),
        (_hpcc_with("StarSTREAM_Triad=29.4155", "StarSTREAM_Triad=nan"), 381, "star_triad_GBps nan is not a finite"),
        (_hpcc_with("PTRANS_GBs=4.60279", "PTRANS_GBs=inf"), 381, "ptrans_GBps inf is not a finite number"),
        (_HPL_TABLE.format("-12.5"), 3, "gflops -12.5 is negative"),
        (_HPL_TABLE.format("nan"), 3, "gflops nan is not a finite number"),
        (_STORAGE_TABLE.format("-5"), 3, "seq_write_MBps -5 is negative"),
        (_STORAGE_TABLE.format("inf"), 3, "seq_write_MBps inf is not a finite number"),
    ],
    ids=[
        "fio-negative",
        "fio-nan",
        "fio-inf",
        "hpcc-nan",
        "hpcc-inf",
        "hpl-negative",
        "hpl-nan",
        "disk-neg",
        "disk-inf",
    ],
)
def test_negative_nan_and_infinite_values_are_refused_with_the_line(text, line, message):
    with pytest.raises(ParseError) as error:
        parse_text(text, "t.txt")
    assert error.value.line == line and message in str(error.value), str(error.value)


def test_an_import_with_a_negative_value_stores_nothing_from_the_file(cli, db, tmp_path):
    bad = tmp_path / "fio.json"
    bad.write_text(_fio_with("-524288000"))
    result = cli("import", bad, "--db", db)
    assert result.exit_code == 1, result.output
    assert f"{bad}:1: seq_write_MBps -324.559 is negative" in result.stderr and "Traceback" not in result.output
    if db.exists():
        from commscope.store.db import Store

        with Store(db, create=False) as store:
            assert not store.summaries()
