"""IMB-MPI1 (and IMB-NBC) text output: sections, preamble, -multi groups."""

import pytest

from commscope.ingest.parse import ParseError, parse_file, parse_text
from paths import FIXTURES as SUPPORT_FIXTURES

FIXTURES = SUPPORT_FIXTURES / "parse"


@pytest.fixture(scope="module")
def mpi1_runs():
    return parse_file(FIXTURES / "imb_mpi1.txt")


def test_every_benchmarking_section_is_a_run(mpi1_runs):
    assert [(r.benchmark, r.ranks) for r in mpi1_runs] == [
        ("imb_pingpong", 2),
        ("imb_pingping", 2),
        ("imb_sendrecv", 2),
        ("imb_exchange", 2),
        ("imb_uniband", 2),
        ("imb_biband", 2),
        ("imb_allreduce", 2),
        ("imb_allreduce", 4),
        ("imb_bcast", 4),
        ("imb_barrier", 4),
    ]
    assert all(r.source_format == "imb" for r in mpi1_runs)
    assert all((r.tool, r.tool_version) == ("IMB-MPI1", "2021.11") for r in mpi1_runs)


def test_preamble_becomes_parameters_and_provenance(mpi1_runs):
    run = mpi1_runs[0]
    assert run.parameters == {"datatype": "MPI_BYTE", "reduction_datatype": "MPI_FLOAT", "reduction_op": "MPI_SUM"}
    assert run.provenance["machine"] == "x86_64"
    assert run.provenance["mpi_version"] == "3.1"
    assert run.provenance["date"] == "Thu Nov 21 10:12:44 2024"
    assert run.provenance["calling_sequence"].startswith("./IMB-MPI1 -npmin 2")


def test_pingpong_columns_and_values(mpi1_runs):
    pingpong = mpi1_runs[0]
    assert pingpong.title == "Benchmarking PingPong"
    assert pingpong.line == 39
    assert pingpong.metrics == {"repetitions": "count", "t_us": "us", "mbytes_per_sec": "MB/s"}
    assert pingpong.sizes == [0, 1, 2, 4]
    assert pingpong.point(1).values == {"repetitions": 1000, "t_us": 0.35, "mbytes_per_sec": 2.82}
    assert pingpong.point(1).line == 44


def test_sendrecv_time_range_and_bandwidth(mpi1_runs):
    sendrecv = mpi1_runs[2]
    assert list(sendrecv.metrics) == ["repetitions", "t_min_us", "t_max_us", "t_avg_us", "mbytes_per_sec"]
    assert sendrecv.point(4).values == {
        "repetitions": 1000,
        "t_min_us": 0.63,
        "t_max_us": 0.63,
        "t_avg_us": 0.63,
        "mbytes_per_sec": 12.70,
    }


def test_uniband_message_rate(mpi1_runs):
    uniband = mpi1_runs[4]
    assert uniband.metrics == {"repetitions": "count", "mbytes_per_sec": "MB/s", "msg_per_sec": "messages/s"}
    assert uniband.value(2, "msg_per_sec") == 5155820


def test_collectives_and_npmin_sections(mpi1_runs):
    two, four = mpi1_runs[6], mpi1_runs[7]
    assert two.value(4, "t_avg_us") == 0.90
    assert four.value(4, "t_avg_us") == 1.76
    bcast = mpi1_runs[8]
    assert bcast.point(1).values == {"repetitions": 1000, "t_min_us": 0.61, "t_max_us": 1.02, "t_avg_us": 0.84}


def test_barrier_without_bytes_column(mpi1_runs):
    barrier = mpi1_runs[9]
    assert barrier.sizes == [None]
    assert barrier.value(None, "t_max_us") == 1.95


def test_multi_groups_become_one_run_each():
    runs = parse_file(FIXTURES / "imb_multi.txt")
    assert [(r.benchmark, r.label) for r in runs] == [
        ("imb_pingpong", "group 0"),
        ("imb_pingpong", "group 1"),
        ("imb_barrier", "group 0"),
        ("imb_barrier", "group 1"),
    ]
    group0, group1 = runs[0], runs[1]
    assert group0.title == "Benchmarking Multi-PingPong"
    assert group0.ranks == 2
    assert group0.parameters["groups"] == 2 and group0.parameters["multi"] is True
    assert group0.sizes == [0, 1, 2]  # size 4 ran out of memory
    assert group1.value(2, "t_us") == 0.45
    assert group1.point(2).line == 44
    assert group1.notes == [
        'size 4 not measured: out-of-mem.; needed X=   0.002 GB; use flag "-mem X" or MAX_MEM_USAGE>=X (IMB_mem_info.h)'
    ]
    assert runs[3].value(None, "t_avg_us") == 1.00


def test_nbc_overlap_columns():
    run = parse_file(FIXTURES / "imb_nbc.txt")[0]
    assert (run.benchmark, run.tool) == ("imb_iallreduce", "IMB-NBC")
    assert list(run.metrics) == ["repetitions", "t_ovrl_us", "t_pure_us", "t_cpu_us", "overlap_pct"]
    assert run.point(4).values["overlap_pct"] == 96.02


def test_section_cut_off_before_its_table():
    text = (FIXTURES / "imb_mpi1.txt").read_text()
    cut = text[: text.index("       #bytes #repetitions      t[usec]")]
    with pytest.raises(ParseError) as error:
        parse_text(cut, "imb.out")
    assert error.value.line == 39
    assert "'PingPong' has no table" in error.value.message


def test_section_cut_off_in_a_row():
    text = (FIXTURES / "imb_mpi1.txt").read_text()
    cut = text[: text.index("         1000         0.54         3.71")]  # after "2" of the PingPing row
    with pytest.raises(ParseError) as error:
        parse_text(cut, "imb.out")
    assert str(error.value) == "imb.out:55: row has 1 values but header has 4 columns"


def test_unknown_column_in_imb_header():
    text = (
        "# Benchmarking PingPong\n# #processes = 2\n"
        "       #bytes #repetitions      t[usec]   Gbits/sec\n            0  1000  0.35  0.00\n"
    )
    with pytest.raises(ParseError) as error:
        parse_text(text, "imb.out")
    assert (error.value.line, error.value.message) == (3, "unrecognised column 'Gbits/sec' in table header")
