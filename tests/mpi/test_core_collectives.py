"""commscope-bench's collectives, non-blocking overlap, one-sided, start-up and congestion
benchmarks under real MPI: every benchmark validates (-c) on 2 and 4 ranks under each MPI
library, the OMB layouts, the derived numbers and the bad-input verdicts.

Iteration counts are tiny (4 ranks share 2 cores: MPICH's busy polling makes each collective
take milliseconds there), and one process sweeps every datatype (-T all), every root
(-k rotate) and every one-sided window and synchronisation mode (-w all -s all)."""

from __future__ import annotations

import json
import re

import pytest

from benchmarks_def import COLLECTIVES, family
from mpi_flavours import flavour_params, need, rows, sizes_of
from result_schema import validate as validate_result

ONE_SIDED = family("one_sided")

BLOCKING = family("collective")
NEIGHBORHOOD = family("neighbor")
ROOTED = ["bcast", "gather", "gatherv", "reduce", "scatter", "scatterv"]
IN_PLACE = [
    "allgather",
    "allgatherv",
    "allreduce",
    "alltoall",
    "alltoallv",
    "alltoallw",
    "gather",
    "gatherv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_block",
    "scatter",
    "scatterv",
]
TINY = ["-i", "2", "-x", "1"]
# one-sided modes each benchmark accepts (OMB: put_bibw takes active target synchronisation only)
SYNCS = {name: "all" for name in ONE_SIDED}


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def blocking_form(name: str) -> str:
    """The blocking collective behind a non-blocking (iNAME) or persistent (NAME_persistent) one."""
    return name[1:] if name.startswith("i") and name[1:] in COLLECTIVES else name.removesuffix("_persistent")


def collective_args(name: str, np: int, adjacency) -> list[str]:
    """-c over every datatype and root at sizes small enough for 4 ranks on 2 cores."""
    base = blocking_form(name)
    args = ["-c", *TINY]
    if base != "barrier":
        args += ["-T", "all", "-m", "1:1K" if np == 2 else "1:8"]
    if base in ROOTED:
        args += ["-k", "rotate"]
    if base in NEIGHBORHOOD and np == 2:
        args += ["-N", f"graph:{adjacency}"]  # OMB's cart:1:1 needs at least 3 ranks
    return args


@pytest.fixture(scope="module")
def ring(tmp_path_factory):
    path = tmp_path_factory.mktemp("nbr") / "ring2.adj"
    path.write_text("# two ranks, each the other's neighbour\n0,1\n1,0\n")
    return path


ALL_COLLECTIVES = [name for c in COLLECTIVES for name in (c, f"i{c}", f"{c}_persistent")]


def persistent_missing(mpi, name: str) -> bool:
    listed = mpi.run(1, "--list").stdout
    line = next(l for l in listed.splitlines() if l.split()[0] == name)
    return "[unavailable:" in line


@pytest.mark.parametrize("np", [2, 4])
@pytest.mark.parametrize("name", ALL_COLLECTIVES)
def test_every_collective_validates(mpi, name, np, ring):
    args = collective_args(name, np, ring)
    res = mpi.run(np, name, *args)
    if name.endswith("_persistent") and mpi.is_openmpi:
        # Debian's Open MPI 4.1 has no MPI-4 persistent collectives: a clear usage error
        assert res.returncode == 2, res.stderr
        assert res.stderr.count(f"{name} is not available in this build") == 1, res.stderr
        return
    assert res.returncode == 0, res.stderr
    table = rows(res.stdout)
    assert table and all(r[-1] == "Pass" for r in table), res.stdout
    if "barrier" not in name:
        assert [l for l in res.stdout.splitlines() if l.startswith("# Datatype:")] == [
            "# Datatype: MPI_CHAR.",
            "# Datatype: MPI_INT.",
            "# Datatype: MPI_FLOAT.",
            "# Datatype: MPI_DOUBLE.",
        ]


def test_persistent_collectives_where_mpich_has_them(mpi):
    """MPICH 4 has MPI_Allreduce_init and friends; Debian's Open MPI 4.1 does not."""
    assert persistent_missing(mpi, "allreduce_persistent") == mpi.is_openmpi


def assert_in_place_validates(mpi, name: str, datatypes: str) -> None:
    """-l (MPI_IN_PLACE) with -c on 4 ranks, every root: every size of every datatype passes."""
    rooted = ["-k", "rotate"] if blocking_form(name) in ROOTED else []
    res = mpi.run(4, name, "-l", "-c", *TINY, "-T", datatypes, "-m", "4:64", *rooted)
    assert res.returncode == 0, res.stderr
    assert all(r[-1] == "Pass" for r in rows(res.stdout)), res.stdout


@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_collectives_validate(mpi, name):
    assert_in_place_validates(mpi, name, "mpi_char,mpi_int")


@pytest.mark.parametrize(
    "name", ["iallreduce", "igather", "iscatterv", "allreduce_persistent", "gather_persistent", "scatter_persistent"]
)
def test_in_place_other_forms_validate(mpi, name):
    if name.endswith("_persistent") and mpi.is_openmpi:
        pytest.skip("Open MPI 4.1 has no persistent collectives (checked above)")
    assert_in_place_validates(mpi, name, "mpi_float")


@pytest.mark.parametrize("name", ONE_SIDED)
def test_one_sided_every_window_and_sync_mode(mpi, name):
    windows = "all"  # cas_latency too: OMB's MPI_CHAR runs on Open MPI's MPI_Win_allocate windows
    sizes = [] if name in ("fop_latency", "cas_latency") else ["-m", "1:1K"]
    res = mpi.run(2, name, "-c", "-w", windows, "-s", SYNCS[name], "-i", "5", "-x", "1", *sizes, "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    validate_result(doc)
    modes = {(r["window_creation"], r["synchronization"]) for r in doc["results"]}
    n_windows = len(windows.split(",")) if windows != "all" else 3
    n_syncs = 2 if name == "put_bibw" else 6
    assert len(modes) == n_windows * n_syncs
    assert all(r["validation"] == {"errors": 0} for r in doc["results"])


def test_one_sided_header_and_defaults(mpi):
    res = mpi.run(2, "put_latency", "-m", "1:4", *TINY)
    assert res.returncode == 0, res.stderr
    head = res.stdout.splitlines()[:5]
    assert head == [
        "# commscope MPI_Put Latency Test v0.1.0",
        "# Window creation: MPI_Win_allocate",
        "# Synchronization: MPI_Win_flush",
        "# Datatype: MPI_CHAR.",
        "# Size          Latency (us)",
    ]
    bibw = mpi.run(2, "put_bibw", "-m", "1:4", *TINY)
    assert "# Synchronization: MPI_Win_post/start/complete/wait" in bibw.stdout
    assert "# Size      Bandwidth (MB/s)" in bibw.stdout


@pytest.mark.parametrize("np", [2, 4])
@pytest.mark.parametrize("name", ["init", "hello", "bw_fan_in", "bw_fan_out"])
def test_startup_and_congestion(mpi, name, np):
    args = ["-c"] if name in ("init", "hello") else ["-c", "-m", "1:4K", *TINY]
    res = mpi.run(np, name, *args)
    assert res.returncode == 0, res.stderr
    if name == "init":
        assert re.search(rf"^nprocs: {np}, min: \d+ ms, max: \d+ ms, avg: \d+ ms$", res.stdout, re.M), res.stdout
    elif name == "hello":
        assert f"This is a test with {np} processes" in res.stdout
    else:
        assert f"# [ peers: {np - 1} ] [ window size: 64 ]" in res.stdout
        assert all(r[-1] == "Pass" for r in rows(res.stdout)), res.stdout


def test_init_json_is_min_avg_max_over_ranks(mpi):
    res = mpi.run(4, "init", "--format", "json")
    doc = json.loads(res.stdout)
    validate_result(doc)
    (rec,) = doc["results"]
    m = rec["metrics"]
    assert 0 < m["min_latency_us"] <= m["latency_us"] <= m["max_latency_us"] < 60e6


def test_collective_full_columns_are_across_ranks(mpi):
    res = mpi.run(4, "allreduce", "-m", "4:8", *TINY, "-f", "-T", "mpi_int", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    validate_result(doc)
    for rec in doc["results"]:
        m = rec["metrics"]
        assert m["min_latency_us"] <= m["latency_us"] <= m["max_latency_us"]
        assert rec["stats"]["samples"] == 2  # per-iteration times averaged over ranks
        assert rec["stats"]["mean"] == pytest.approx(m["latency_us"], rel=1e-6)
        assert rec["datatype"] == "MPI_INT"
    text = mpi.run(2, "bcast", "-m", "1:2", *TINY, "-f")
    header = next(l for l in text.stdout.splitlines() if l.startswith("# Size"))
    assert header == "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations"
    assert text.stdout.startswith("\n# commscope MPI Broadcast Latency Test")


def test_barrier_has_no_size_column(mpi):
    res = mpi.run(2, "barrier", *TINY, "-f")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert "# Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations" in lines
    assert not any(l.startswith("# Datatype") for l in lines)
    assert re.match(r"^ +\d+\.\d\d +\d+\.\d\d +\d+\.\d\d +2$", lines[-1])
    assert len(lines[-1]) == len("# Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations")


def test_nbc_layout_with_and_without_full(mpi):
    brief = mpi.run(2, "iallreduce", "-m", "4:8", *TINY)
    assert brief.returncode == 0, brief.stderr
    # OMB 7.5: the reduce benchmarks, non-blocking ones too, default to MPI_INT (docs/core.md)
    assert "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n# Datatype: MPI_INT." in brief.stdout
    assert "# Size           Overall(us)       Compute(us)    Pure Comm.(us)        Overlap(%)" in brief.stdout
    full = mpi.run(2, "iallreduce", "-m", "4:8", *TINY, "-f", "-t", "4")
    header = next(l for l in full.stdout.splitlines() if l.startswith("# Size"))
    assert re.sub(r" +", "|", header) == (
        "#|Size|Overall(us)|Compute(us)|Coll.|Init(us)|MPI_Test(us)|MPI_Wait(us)|"
        "Pure|Comm.(us)|Min|Comm.(us)|Max|Comm.(us)|Overlap(%)"
    )
    ibarrier = mpi.run(2, "ibarrier", *TINY)
    assert "# Overall(us)       Compute(us)    Pure Comm.(us)        Overlap(%)" in ibarrier.stdout


def test_nbc_json_overlap_and_test_calls(mpi):
    res = mpi.run(2, "ibcast", "-m", "1K:1K", "-i", "20", "-x", "2", "-t", "8", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    validate_result(doc)
    assert doc["options"]["num_test_calls"] == 8
    (rec,) = doc["results"]
    m = rec["metrics"]
    assert m["test_us"] > 0 and 0 <= m["overlap_pct"] <= 100
    # OMB's definition, from the numbers it prints
    expected = max(0.0, 100 - (m["overall_us"] - m["compute_us"]) / m["pure_comm_us"] * 100)
    assert m["overlap_pct"] == pytest.approx(expected, abs=1e-6)
    assert m["min_comm_us"] <= m["pure_comm_us"] <= m["max_comm_us"]


@pytest.mark.parametrize(
    "name,factor",
    [
        ("allreduce", lambda n: 2 * (n - 1) / n),
        ("bcast", lambda n: 1.0),
        ("allgather", lambda n: (n - 1) / n),
        ("alltoall", lambda n: (n - 1) / n),
    ],
)
def test_busbw_is_algbw_times_the_nccl_factor(mpi, name, factor, tmp_path):
    out = tmp_path / "busbw.json"
    res = mpi.run(4, name, "-m", "1K:4K", *TINY, "--busbw", "--json-out", str(out))
    assert res.returncode == 0, res.stderr
    header = next(l for l in res.stdout.splitlines() if l.startswith("# Size"))
    assert header.endswith("       Algbw(GB/s)       Busbw(GB/s)")
    doc = json.loads(out.read_text())
    validate_result(doc)
    blocks = 4 if name in ("allgather", "alltoall") else 1  # nccl-tests' bytes per operation
    for rec in doc["results"]:
        m = rec["metrics"]
        assert m["algbw_GBps"] == pytest.approx(rec["size"] * blocks / (m["latency_us"] * 1e-6) / 1e9, rel=1e-6)
        assert m["busbw_GBps"] == pytest.approx(m["algbw_GBps"] * factor(4), rel=1e-9)


def test_mem_limit_clips_collectives_with_omb_warning(mpi):
    res = mpi.run(2, "alltoall", "-m", "1M", "-M", "1M", "-i", "1", "-x", "0")
    assert res.returncode == 0, res.stderr
    # 2 ranks: send and receive hold 2 blocks each, so 1 MiB allows 256 KiB
    assert res.stderr.count("Warning! Limiting max message size to: 262144") == 1
    assert sizes_of(res.stdout)[-1] == 262144


def test_collective_validation_failure(mpi):
    res = mpi.run(2, "allreduce", "-m", "1:64", *TINY, "-c", "-T", "mpi_int,mpi_float", "--debug-corrupt", "16")
    assert res.returncode == 1
    assert "DATA VALIDATION ERROR" in res.stderr and "message size 16" in res.stderr
    assert sizes_of(res.stdout) == [4, 8, 16] and rows(res.stdout)[-1][-1] == "Fail"
    rma = mpi.run(2, "get_bw", "-m", "1:8", *TINY, "-c", "--debug-corrupt", "4")
    assert rma.returncode == 1 and rows(rma.stdout)[-1][-1] == "Fail"


def test_compat_links_of_new_benchmarks(mpi):
    res = mpi.run(2, "-m", "4:8", *TINY, program=mpi.compat / "osu_iallgather")
    assert res.returncode == 0, res.stderr
    assert "# commscope MPI Non-blocking Allgather Latency Test" in res.stdout
    res = mpi.run(2, program=mpi.compat / "osu_init")
    assert res.returncode == 0 and "nprocs: 2" in res.stdout


def check_bad_input(res, message):
    assert res.returncode == 2, res.stderr
    assert res.stderr.count(message) == 1, res.stderr  # rank 0 alone says it
    assert "--help" in res.stderr
    assert "Abort" not in res.stderr and "abort" not in res.stdout
    assert rows(res.stdout) == []


@pytest.mark.parametrize(
    "text,message",
    [
        ("0,1\n1,0\n0;1\n", "{f}:3: expected 'SRC,DST' (two rank numbers and a comma), got '0;1'"),
        ("# ring\n0,1\n1,2\n", "{f}:3: rank 2 is outside the communicator of 2 ranks"),
        ("0,1,\n", "{f}:1: expected 'SRC,DST'"),
        ("# nothing\n\n", "{f}: no edges"),
    ],
    ids=["separator", "rank", "trailing", "empty"],
)
def test_malformed_neighbourhood_file_names_its_line(mpi, tmp_path, text, message):
    path = tmp_path / "bad.adj"
    path.write_text(text)
    check_bad_input(mpi.run(2, "ineighbor_alltoallv", "-N", f"graph:{path}", timeout=60), message.format(f=path))
