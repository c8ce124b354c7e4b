"""OMB-valid command lines through the osu_* links under real MPI (issue 11): trailing
buffer placements, -z's list as its own word, -m and -T for the atomics, and OMB 7.4's
one-sided defaults per benchmark, compare-and-swap included on Open MPI's vader."""

from __future__ import annotations

import json

import pytest

from mpi_flavours import flavour_params, need

TINY = ["-i", "20", "-x", "2"]


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def run_osu(mpi, name, *args):
    return mpi.run(2, *args, program=mpi.compat / f"osu_{name}")


def table(stdout: str) -> list[list[str]]:
    return [line.split() for line in stdout.splitlines() if line and not line.startswith("#")]


def test_trailing_buffer_placements_are_accepted(mpi):
    res = run_osu(mpi, "latency", "-m", "8:8", "-x", "5", "-i", "100", "-c", "D", "D")
    assert res.returncode == 0, res.stderr
    assert table(res.stdout) == [[*table(res.stdout)[0][:2], "Pass"]] and table(res.stdout)[0][0] == "8"
    for words in (["H", "H"], ["D", "H"], ["M", "M"], ["D"]):
        res = run_osu(mpi, "bw", "-m", "4:4", *TINY, *words)
        assert res.returncode == 0, (words, res.stderr)


def test_tail_latency_list_as_its_own_word(mpi):
    res = run_osu(mpi, "latency", "-z", "50,90", "-m", "8:8", *TINY)
    assert res.returncode == 0, res.stderr
    assert "P50 Tail Lat(us)  P90 Tail Lat(us)" in res.stdout and "P99" not in res.stdout


@pytest.mark.parametrize("name", ["fop_latency", "cas_latency"])
def test_atomics_take_m_and_default_to_one_mpi_char(mpi, name):
    """OMB 7.4: -m accepted (the window's size), one MPI_CHAR by default: size 1."""
    res = run_osu(mpi, name, "-m", "1:4096", *TINY, "-c")
    assert res.returncode == 0, res.stderr
    assert "# Datatype: MPI_CHAR." in res.stdout
    assert table(res.stdout) == [["1", table(res.stdout)[0][1], "Pass"]]


@pytest.mark.parametrize("sync", ["lock", "pscw", "fence", "flush", "flush_local", "lock_all"])
def test_cas_latency_defaults_run_on_every_sync(mpi, sync):
    """Open MPI 4.1 crashed here with 8-byte MPI_LONG_LONG on MPI_Win_allocate; OMB's
    MPI_CHAR (and -T mpi_int) run, every -s mode."""
    res = run_osu(mpi, "cas_latency", "-s", sync, "-T", "mpi_char,mpi_int", *TINY, "-c", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["options"]["window_creation"] == ["allocate"]
    assert [(r["datatype"], r["size"]) for r in doc["results"]] == [("MPI_CHAR", 1), ("MPI_INT", 4)]


def test_cas_refuses_floating_point_before_calling_mpi(mpi):
    res = run_osu(mpi, "cas_latency", "-T", "mpi_float")
    assert res.returncode == 2
    assert "-T mpi_float: cas_latency is defined on mpi_char, mpi_int only" in res.stderr


def test_get_acc_latency_runs_omb_defaults(mpi):
    res = run_osu(mpi, "get_acc_latency", "-m", "1:2", *TINY)
    assert res.returncode == 0, res.stderr
    assert "# Window creation: MPI_Win_create\n# Synchronization: MPI_Win_lock/unlock\n" in res.stdout


def test_output_that_cannot_be_written_fails_the_run(mpi):
    """--json-out /dev/full and --format json > /dev/full: exit 1 and a message, not 0."""
    res = mpi.run(2, "latency", "-m", "1:2", *TINY, "--json-out", "/dev/full")
    assert res.returncode == 1
    assert "cannot write --json-out /dev/full" in res.stderr
    import subprocess

    with open("/dev/full", "w") as full:  # stdout itself: the core alone, as a singleton
        alone = subprocess.run(
            [str(mpi.bench), "init", "--format", "json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=mpi.env(),
            timeout=60,
        )
    assert alone.returncode == 1 and "cannot write standard output" in alone.stderr


def test_json_is_valid_utf8_whatever_the_bytes_recorded(mpi, tmp_path):
    """A non-UTF-8 environment value and --json-out path: each bad byte becomes U+FFFD."""
    import subprocess

    path = tmp_path / "r\udce9sultat.json"  # a Latin-1 byte in the file name
    env = mpi.env()
    env["UCX_COMMSCOPE_TEST"] = "caf\udce9"  # b"caf\xe9"
    res = subprocess.run(
        mpi.argv(2, mpi.bench, "latency", "-m", "1:1", *TINY, "--json-out", str(path)),
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    doc = json.loads(path.read_bytes().decode("utf-8"))  # strict: must be UTF-8
    assert doc["environment"]["UCX_COMMSCOPE_TEST"] == "caf\ufffd"
    assert doc["argv"][-1] == str(tmp_path).encode("utf-8", "surrogateescape").decode() + "/r\ufffdsultat.json"


def notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ": note: " in line]


def test_point_to_point_takes_omb_type(mpi):
    """osu_latency -T (OMB 7.4): one table per datatype, whole elements, data checked."""
    res = run_osu(mpi, "latency", "-m", "1:16", *TINY, "-T", "mpi_int", "-T", "MPI_FLOAT", "-c")
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("# Datatype: MPI_INT.") == 1 and res.stdout.count("# Datatype: MPI_FLOAT.") == 1
    assert [row[0] for row in table(res.stdout)] == ["4", "8", "16"] * 2  # 1 and 2 B hold no MPI_INT
    assert all(row[-1] == "Pass" for row in table(res.stdout))
    assert notes(res.stderr) == []
    res = run_osu(mpi, "bw", "-m", "8:64", *TINY, "-W", "4", "-T", "mpi_double", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert (
        doc["options"]["datatypes"] == ["MPI_DOUBLE"] and [r["datatype"] for r in doc["results"]] == ["MPI_DOUBLE"] * 4
    )


@pytest.mark.parametrize(
    "name, words, ignored",
    [
        ("bw", ["-t", "4", "-G", "tty"], ["-t 4", "-G tty"]),
        ("barrier", ["-m", "8", "-a", "16", "-I", "-f"], ["-m 8", "-a 16", "-I"]),
        (
            "latency",
            ["-b", "multiple", "-D", "vect:8:4", "-P", "PAPI_TOT_INS:papi.out"],
            ["-b multiple", "-D vect", "-P"],
        ),
        ("iallreduce", ["-t", "2", "-r", "cpu", "-m", "4:8"], []),
        ("iallreduce", ["-r", "gpu", "-m", "4:8"], ["-r gpu"]),
    ],
)
def test_omb_options_outside_scope_run_with_one_note_each(mpi, name, words, ignored):
    res = run_osu(mpi, name, *TINY, *words)
    assert res.returncode == 0, res.stderr
    assert table(res.stdout), res.stdout
    said = notes(res.stderr)
    assert len(said) == len(ignored), said
    for flag in ignored:  # one line each, in the order of the option table
        assert sum(f"note: {flag}" in line and "accepted and ignored" in line for line in said) == 1, said


def test_validation_warmup_and_log_are_accepted(mpi, tmp_path):
    """-u runs untimed iterations before the checked one; -clog:DIR writes no log but says so."""
    res = run_osu(mpi, "allreduce", "-m", "4:8", *TINY, "-u", "10", "-clog:" + str(tmp_path / "logs"), "-l")
    assert res.returncode == 0, res.stderr
    assert [row[-1] for row in table(res.stdout)] == ["Pass", "Pass"]
    assert len(notes(res.stderr)) == 1 and "no validation log is written" in res.stderr
    assert not (tmp_path / "logs").exists()
    res = run_osu(mpi, "latency", "-u", "11")
    assert (
        res.returncode == 2 and "-u 11: validation warm-up iterations must be a whole number from 0 to 10" in res.stderr
    )


def test_atomics_window_is_omb_default(mpi):
    """OMB's atomics make their window of options.max_message_size: 4 MiB by default."""
    res = run_osu(mpi, "fop_latency", *TINY, "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["options"]["max_size"] == 4 << 20 and [r["size"] for r in doc["results"]] == [1]


def test_barrier_samples_stay_bounded(mpi):
    """Issue 15: a rank keeps at most its bound of samples, whatever -i says, iterations
    folding into batches past it. How large the arrays are for each -i, bound and number of
    ranks is tests/c/test_metrics.c's (cs_sample_cap); here the real core under each MPI keeps
    to it: -i 800 under a bound of 8 samples is 8 batches of 100 iterations."""
    res = mpi.run(2, "barrier", "-i", "800", "-x", "10", "--format", "json", "--debug-max-samples", "8")
    assert res.returncode == 0, res.stderr
    [rec] = json.loads(res.stdout)["results"]
    assert rec["iterations"] == 800 and rec["batch"] == 100 and rec["stats"]["samples"] == 8, rec
