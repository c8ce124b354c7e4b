"""commscope-bench under real MPI: every benchmark with validation, send modes, output
formats, compat links and bad input, under each MPI library."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from benchmarks_def import ALL_BENCHMARKS, family
from mpi_flavours import flavour_params, need, rows, sizes_of
from result_schema import validate as validate_result

POINT_TO_POINT = family("pt2pt")
ONE_SIDED = family("one_sided")
SEND_MODES = ["send", "ssend", "bsend", "rsend", "isend"]
QUICK = ["-i", "20", "-x", "5"]


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


@pytest.mark.parametrize("bench", POINT_TO_POINT)
def test_every_benchmark_validates_on_two_ranks(mpi, bench):
    res = mpi.run(2, bench, "-m", "64K", "-c", *QUICK)
    if bench == "partitioned_latency" and mpi.is_openmpi:
        # Debian's Open MPI 4.1 has no MPI-4 partitioned communication: a clear usage error
        assert res.returncode == 2 and res.stderr.count(f"{bench} is not available in this build") == 1
        return
    assert res.returncode == 0, res.stderr
    table = rows(res.stdout)
    pingpongs = ("latency", "multi_lat", "latency_persistent", "latency_mt", "latency_mp", "partitioned_latency")
    expected_min = 0 if bench in pingpongs else 1
    assert sizes_of(res.stdout)[0] == expected_min
    assert sizes_of(res.stdout)[-1] == 65536
    assert all(r[-1] == "Pass" for r in table), res.stdout
    assert "# commscope MPI" in res.stdout


@pytest.mark.parametrize("bench", ["mbw_mr", "multi_lat"])
def test_multi_pair_benchmarks_on_four_ranks(mpi, bench):
    res = mpi.run(4, bench, "-m", "1:16K", "-c", *QUICK, "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    validate_result(doc)
    assert doc["options"]["pairs"] == 2
    assert doc["mpi"]["ranks"] == 4
    assert all(r["validation"] == {"errors": 0} for r in doc["results"])
    # every pair times every iteration: samples = pairs x iterations
    assert all(r["stats"]["samples"] == 2 * 20 for r in doc["results"])


def test_mbw_mr_pairs_and_message_rate(mpi, tmp_path):
    out = tmp_path / "mbw.json"
    res = mpi.run(4, "mbw_mr", "-p", "1", "-m", "8:8", *QUICK, "-W", "16", "--json-out", str(out))
    assert res.returncode == 0, res.stderr
    assert "# [ pairs: 1 ] [ window size: 16 ]" in res.stdout
    assert re.search(r"^# Size +MB/s +Messages/s$", res.stdout, re.M)
    (rec,) = json.loads(out.read_text())["results"]
    m = rec["metrics"]
    assert m["message_rate"] == pytest.approx(m["bandwidth_MBps"] * 1e6 / 8, rel=1e-9)
    assert rec["stats"]["samples"] == 20  # one timing pair
    assert rec["window"] == 16


def test_mbw_mr_vary_window_prints_matrices(mpi):
    res = mpi.run(2, "mbw_mr", "-V", "-m", "1:4", "-i", "5", "-x", "1")
    assert res.returncode == 0, res.stderr
    assert "# Uni-directional Bandwidth (MB/sec)" in res.stdout
    assert "# Message Rate Profile" in res.stdout
    header = next(l for l in res.stdout.splitlines() if l.startswith("# Size"))
    assert header.split()[2:] == ["1", "2", "4", "8", "16", "32", "64", "128"]


@pytest.mark.parametrize("mode", SEND_MODES)
def test_latency_send_modes_validate(mpi, mode):
    res = mpi.run(2, "latency", "--send-mode", mode, "-m", "0:256K", "-c", *QUICK)
    assert res.returncode == 0, res.stderr
    assert all(r[-1] == "Pass" for r in rows(res.stdout))
    if mode != "send":
        assert f"# Send mode: {mode}" in res.stdout


@pytest.mark.parametrize("mode", ["rsend", "bsend"])
def test_multi_lat_send_modes_on_four_ranks(mpi, mode):
    res = mpi.run(4, "multi_lat", "--send-mode", mode, "-m", "0:4K", "-c", *QUICK)
    assert res.returncode == 0, res.stderr
    assert all(r[-1] == "Pass" for r in rows(res.stdout))


def test_json_document_matches_schema_and_osu_numbers(mpi, tmp_path):
    jsonl = tmp_path / "stream.jsonl"
    res = mpi.run(
        2, "bw", "-m", "1K:8K", *QUICK, "-W", "8", "--json-out", str(tmp_path / "bw.json"), "--jsonl-out", str(jsonl)
    )
    assert res.returncode == 0, res.stderr
    doc = json.loads((tmp_path / "bw.json").read_text())
    validate_result(doc)
    assert doc["status"] == "complete"
    assert doc["benchmark"] == {**doc["benchmark"], "name": "bw", "pattern": "window_uni", "unit": "MB/s"}
    assert doc["argv"][-4:] == ["--json-out", str(tmp_path / "bw.json"), "--jsonl-out", str(jsonl)]
    assert sum(len(h["ranks"]) for h in doc["hosts"]) == 2
    assert doc["mpi"]["library_version"]
    table = {int(r[0]): float(r[1]) for r in rows(res.stdout)}
    for rec in doc["results"]:
        s = rec["stats"]
        assert s["min"] <= s["median"] <= s["max"]
        assert s["ci95_low"] <= s["mean"] <= s["ci95_high"]
        bw = rec["metrics"]["bandwidth_MBps"]
        assert table[rec["size"]] == pytest.approx(bw, abs=0.006)  # the text shows the same number
        assert rec["metrics"]["min_bandwidth_MBps"] <= bw * 1.0001
    lines = [json.loads(l) for l in jsonl.read_text().splitlines()]
    # a line per rank as it got past MPI_Init, rank 0's first, then the header
    started = [line.pop("started") for line in lines[:2]]
    assert started[0]["rank"] == 0 and sorted(line["rank"] for line in started) == [0, 1]
    assert {line["host"] for line in started} == {host["name"] for host in doc["hosts"]}
    assert all(line["pid"] > 0 for line in started)
    lines = lines[2:]
    assert list(lines[0]) == ["header"] and list(lines[-1]) == ["end"]
    assert [l["record"]["size"] for l in lines[1:-1]] == [1024, 2048, 4096, 8192]
    assert lines[-1]["end"]["status"] == "complete"


def test_latency_json_stats_are_one_way(mpi):
    res = mpi.run(2, "latency", "-m", "8:8", "-i", "400", "-x", "40", "--format", "json", "-z")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    validate_result(doc)
    (rec,) = doc["results"]
    assert rec["batch"] == 1 and rec["stats"]["samples"] == 400  # -z: single-iteration samples
    assert rec["metrics"]["latency_us"] == pytest.approx(rec["stats"]["mean"], rel=1e-6)
    assert [p["p"] for p in rec["percentiles"]] == [50, 90, 99]


@pytest.mark.timing  # the batch follows the measured speed of an iteration
def test_auto_batch_groups_fast_iterations(mpi):
    res = mpi.run(2, "latency", "-m", "0:0", "-i", "2000", "-x", "200", "--format", "json")
    doc = json.loads(res.stdout)
    (rec,) = doc["results"]
    assert rec["batch"] > 1, "a sub-microsecond ping-pong should be timed in batches"
    assert rec["stats"]["samples"] == -(-2000 // rec["batch"])


def test_csv_output(mpi):
    res = mpi.run(2, "bibw", "-m", "1:4", *QUICK, "--format", "csv", "-c")
    assert res.returncode == 0, res.stderr
    table = list(csv.DictReader(io.StringIO(res.stdout)))
    assert [int(r["size"]) for r in table] == [1, 2, 4]
    assert all(r["benchmark"] == "bibw" and r["validation_errors"] == "0" for r in table)
    assert all(float(r["bandwidth_MBps"]) > 0 and r["latency_us"] == "" for r in table)


def test_osu_layout_full_validation_percentiles(mpi):
    res = mpi.run(2, "latency", "-m", "1:2", *QUICK, "-f", "-c", "-z")
    assert res.returncode == 0, res.stderr
    header = next(l for l in res.stdout.splitlines() if l.startswith("# Size"))
    assert header == (
        "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations"
        "        Validation  P50 Tail Lat(us)  P90 Tail Lat(us)  P99 Tail Lat(us)"
    )
    for line in res.stdout.splitlines():
        if line and not line.startswith("#"):
            assert len(line) == len(header)
            assert re.match(r"^\d+ +\d+\.\d\d +\d+\.\d\d +\d+\.\d\d +20 +Pass( +\d+\.\d\d){3}$", line)


def test_validation_failure_exits_non_zero(mpi):
    res = mpi.run(2, "bw", "-m", "1:256", *QUICK, "-c", "--debug-corrupt", "64")
    assert res.returncode != 0
    assert sizes_of(res.stdout) == [1, 2, 4, 8, 16, 32, 64]  # the failing size ends the sweep
    assert rows(res.stdout)[-1][-1] == "Fail"
    assert "DATA VALIDATION ERROR" in res.stderr and "message size 64" in res.stderr


def test_validation_failure_in_json(mpi):
    res = mpi.run(2, "latency", "-m", "16:32", *QUICK, "-c", "--debug-corrupt", "16", "--format", "json")
    assert res.returncode != 0
    doc = json.loads(res.stdout)
    validate_result(doc)
    assert doc["status"] == "validation_failed"
    assert doc["results"][0]["validation"]["errors"] >= 1


def test_compat_links_run_their_benchmark(mpi):
    listed = [l.split()[0] for l in mpi.run(1, "--list").stdout.splitlines()]
    assert listed == ALL_BENCHMARKS
    for name in listed:
        assert (mpi.compat / f"osu_{name}").exists(), f"no compat link for {name}"
    res = mpi.run(2, "-m", "4:8", *QUICK, program=mpi.compat / "osu_bibw")
    assert res.returncode == 0, res.stderr
    assert "# commscope MPI Bi-Directional Bandwidth Test" in res.stdout
    assert sizes_of(res.stdout) == [4, 8]


#: One launch per kind of verdict: every message itself is unit-tested without MPI
#: (tests/c: test_opts, test_plan, test_topo); these show each kind reaches the user once,
#: from rank 0, with a non-zero exit and no hang, under a real launcher.
BAD_INPUT = [
    (2, ["latency", "--frobnicate"], "unknown option --frobnicate"),  # parsing
    (3, ["latency"], "latency needs exactly 2 ranks, got 3"),  # the rank count
    (2, ["latency", "-W", "8"], "-W does not apply to latency"),  # an option that does not apply
    (2, ["bw", "-m", "1G", "-M", "16M"], "over the memory limit"),  # the plan
    (2, ["allreduce_nope"], "unknown benchmark 'allreduce_nope'"),  # the registry
    (2, ["bcast", "-k", "fixed:2"], "-k fixed:2: root 2 is outside the communicator of 2 ranks"),  # the communicator
    (2, ["neighbor_alltoall"], "-N cart:1:1: 2 ranks make a 2 grid; radius 1 needs at least 3 ranks"),  # topology
    (2, ["neighbor_allgather", "-N", "graph:/nonexistent/adj"], "-N graph:/nonexistent/adj: cannot read this file"),
    (2, ["bw", "--json-out", "/nonexistent-dir/x.json"], "--json-out /nonexistent-dir/x.json: cannot write"),
]


@pytest.mark.parametrize("np,args,message", BAD_INPUT, ids=[m for _, _, m in BAD_INPUT])
def test_bad_input_one_message_non_zero_no_hang(mpi, np, args, message):
    res = mpi.run(np, *args, timeout=60)
    assert res.returncode != 0
    assert res.stderr.count(message) == 1, res.stderr  # rank 0 alone says it
    assert "--help" in res.stderr
    assert "Abort" not in res.stderr and "abort" not in res.stdout
    assert rows(res.stdout) == []


def test_help_and_version(mpi):
    res = mpi.run(1, "--help")
    assert res.returncode == 0
    for flag in ["--message-size", "--send-mode", "--format", "--json-out", "--tail-lat", "--mem-limit"]:
        assert flag in res.stdout
    assert re.match(r"# commscope-bench v\d+\.\d+\.\d+", mpi.run(1, "-v").stdout)


def test_multiple_buffers_validate_every_window_slot(mpi):
    res = mpi.run(2, "bw", "-b", "multiple", "-W", "8", "-m", "1:4K", "-c", *QUICK)
    assert res.returncode == 0, res.stderr
    assert all(r[-1] == "Pass" for r in rows(res.stdout))
    res = mpi.run(2, "bw", "-b", "multiple", "-W", "8", "-m", "1:4K", "-c", *QUICK, "--debug-corrupt", "2048")
    assert res.returncode != 0 and rows(res.stdout)[-1][-1] == "Fail"


def test_list_help_version_answer_without_a_launcher(mpi):
    """Started by hand they answer before MPI_Init, with the same text rank 0 prints under a launcher."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI", "OMPI_", "SLURM_"))}
    for flag in ("--list", "--version", "--help"):
        alone = subprocess.run([str(mpi.bench), flag], capture_output=True, text=True, env=env, timeout=30)
        assert alone.returncode == 0 and alone.stdout
        assert alone.stdout == mpi.run(2, flag).stdout  # printed once, by rank 0


@pytest.mark.parametrize(
    "args",
    [
        ["allreduce", "-T", "mpi_char,mpi_int", "-m", "1:8"],  # 4 + 2 sizes: MPI_INT starts at 4 B
        ["put_latency", "-w", "create,allocate", "-s", "lock,flush", "-m", "1:4"],  # 2 x 2 x 3
        ["mbw_mr", "-V", "-m", "1:2"],  # 2 sizes x 8 windows
        ["init"],
    ],
)
def test_planned_records_match_the_records_written(mpi, tmp_path, args):
    """The header's planned_records is the number of records a complete sweep writes,
    in the JSON document and in the JSONL stream's header line."""
    stream = tmp_path / "run.jsonl"
    res = mpi.run(
        2, *args, *([] if args == ["init"] else ["-i", "2", "-x", "1"]), "--format", "json", "--jsonl-out", str(stream)
    )
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    validate_result(doc)
    assert doc["planned_records"] == len(doc["results"]) > 0
    lines = [json.loads(line) for line in stream.read_text().splitlines()]
    assert [list(line) for line in lines[:2]] == [["started"], ["started"]]
    assert lines[2]["header"]["planned_records"] == doc["planned_records"]
    assert sum("record" in line for line in lines) == doc["planned_records"]


@pytest.mark.parametrize(
    "bench, args, key, expected",
    [
        ("latency_mt", ["-t", "2:3"], "threads", {"send": 2, "recv": 3}),
        ("latency_mt", [], "threads", {"send": 1, "recv": 2}),
        ("latency_mp", ["-t", "1:3"], "processes", {"send": 1, "recv": 3}),
        ("latency_mp", [], "processes", {"send": 1, "recv": 2}),
        ("partitioned_latency", ["-q", "4"], "partitions", 4),
    ],
)
def test_worker_and_partition_counts_are_in_the_record_options(mpi, bench, args, key, expected):
    """-t SEND:RECV and -q shape the run as much as -W or -p do: the JSON document says which
    were used, defaults included, so a stored result can be compared with its like."""
    if bench == "partitioned_latency" and mpi.is_openmpi:
        pytest.skip("Debian's Open MPI 4.1 has no MPI-4 partitioned communication")
    res = mpi.run(2, bench, "-m", "8:64", *QUICK, *args, "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    validate_result(doc)
    assert doc["options"][key] == expected
    # only the benchmark the count belongs to writes it
    assert not {"threads", "processes", "partitions"} - {key} & doc["options"].keys()
