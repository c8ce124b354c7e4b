"""`commscope run` with the fake core and fake mpirun: success, crash, timeout, signals, dry run."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

import core_golden
from commands import start_child
from commscope.execute import core as bench_binary
from commscope.execute import process
from commscope.execute.signals import StopSignals
from commscope.records.metrics import STATS
from commscope.store.db import Store
from paths import FAKE_CORE, FAKES, FIXTURES

ROOT_PREFIX = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " if os.geteuid() == 0 else ""


def stored_runs(db: Path):
    with Store(db, create=False) as store:
        return [store.run(row.id) for row in reversed(store.summaries())]


def trace_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def traced_pids(path: Path) -> list[int]:
    return [int(line.split()[1]) for line in trace_lines(path) if line.startswith("pid ")]


def assert_gone(pid: int) -> None:
    """The process has ended (a zombie waiting for init to reap it has ended too)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return
    assert stat[stat.rindex(")") + 2] == "Z", f"process {pid} is still running"


@pytest.mark.slow
def test_progress_and_reason_count_against_the_cores_plan(cli, fake_core, db, clean_env):
    clean_env.setenv("FAKE_CORE_BENCHMARKS", "latency,allreduce")
    clean_env.setenv("FAKE_CORE_CRASH_AFTER", "3")
    clean_env.setenv("FAKE_CORE_PLANNED", "99")  # the plan is the core's: the harness never counts its own
    cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:64")
    assert stored_runs(db)[0].status_reason.endswith("; 3 of 99 points measured")
    clean_env.setenv("FAKE_CORE_PLANNED", "none")
    clean_env.setenv("FAKE_CORE_GOLDEN", "allreduce_full")
    measured = len(core_golden.records("allreduce", 1, 8, stem="allreduce_full")) - 1  # over both datatypes
    clean_env.setenv("FAKE_CORE_CRASH_AFTER", str(measured))
    cli("run", "allreduce", "--launcher", "mpirun", "--db", db, "--", "-m", "1:8", "-T", "mpi_char,mpi_int")
    assert stored_runs(db)[1].status_reason.endswith(f"; {measured} points measured")


@pytest.mark.slow
def test_success_stores_runs_points_and_provenance(cli, fake_core, db):
    result = cli(
        "run",
        "latency",
        "bw",
        "--launcher",
        "mpirun",
        "--label",
        "t1",
        "--system",
        "testbed",
        "--db",
        db,
        "--",
        "-m",
        "1:8",
    )
    assert result.exit_code == 0, result.output
    latency, bw = stored_runs(db)
    assert (latency.benchmark, bw.benchmark) == ("latency", "bw")
    for run in (latency, bw):
        assert run.status == "complete" and run.status_reason is None
        header = core_golden.header(run.benchmark)
        assert [point.size for point in run.points] == core_golden.sizes(run.benchmark, 1, 8)
        assert run.flags == ["-m", "1:8"] and run.label == "t1" and run.system == "testbed"
        assert (run.mpi_library, run.mpi_version) == ("MPICH", "4.0.2")
        assert run.hosts == header["hosts"] and run.nodes == len(header["hosts"]) and run.ranks == 2
        assert run.cpu_model == header["cpu_model"] and run.tool_version == header["tool"]["version"]
        binding = (
            ["--bind-to", "core"] if len(os.sched_getaffinity(0)) >= 2 else ["--oversubscribe", "--bind-to", "none"]
        )
        assert run.launcher_argv[:5] == [str(FAKES / "mpirun"), "-np", "2", *binding][:5]
        assert run.launcher_argv[3 + len(binding) : 6 + len(binding)] == [str(FAKE_CORE), run.benchmark, "-m"]
        assert run.provenance["binding"]["requested"] == "core"
        assert run.launcher_argv[-4:-1] == ["--format", "osu", "--jsonl-out"]
        assert run.commscope_version == "0.1.0" and run.options == header["options"]
        first = core_golden.records(run.benchmark, 1, 8)[0]
        assert set(run.points[0].stats) == set(STATS) and run.points[0].iterations == first["iterations"]
    [four] = core_golden.records("latency", 4, 4)
    assert latency.points[2].metrics["latency_us"] == pytest.approx(four["metrics"]["latency_us"])
    with Store(db) as store:
        raw = store.raw_outputs(latency.id)
        invocation = store.invocation(latency.invocation_id)
    assert raw["jsonl"].decode().splitlines()[-1].startswith('{"end"')
    assert raw["stdout"].decode().startswith(core_golden.table_head("latency"))
    assert invocation["command"] == "run" and invocation["cwd"] == os.getcwd()


@pytest.mark.slow
def test_tables_are_printed_in_omb_layout(cli, fake_core, db):
    result = cli("run", "latency", "bw", "--launcher", "mpirun", "--db", db, "--", "-m", "1:4")
    latency, bw = stored_runs(db)
    lines = result.stdout.splitlines()
    assert "# Size       Avg Latency(us)" in lines
    assert f"{4:<10d}{latency.points[2].metrics['latency_us']:>18.2f}" in lines
    # osu_bw shows bandwidth only; the message rate column is mbw_mr's.
    assert "# Size      Bandwidth (MB/s)" in lines
    assert f"{1:<10d}{bw.points[0].metrics['bandwidth_MBps']:>18.2f}" in lines
    assert "Messages/s" not in result.stdout
    assert "stored 2 runs" in result.stderr


@pytest.mark.slow
def test_crash_midway_keeps_the_measured_sizes(cli, fake_core, db, clean_env):
    clean_env.setenv("FAKE_CORE_CRASH_AFTER", "3")
    result = cli("run", "latency", "bw", "--launcher", "mpirun", "--db", db, "--", "-m", "1:64")
    assert result.exit_code == 1
    latency, bw = stored_runs(db)  # the crash of the first did not stop the second
    for run in (latency, bw):
        sizes = core_golden.sizes(run.benchmark, 1, 64)
        assert run.status == "incomplete"
        assert run.status_reason == f"commscope-bench crashed (SIGSEGV); 3 of {len(sizes)} points measured"
        assert [point.size for point in run.points] == sizes[:3]
    assert f"{4:<10d}{latency.points[2].metrics['latency_us']:>18.2f}" in result.stdout.splitlines()
    assert "2 of 2 runs did not complete" in result.stderr


@pytest.mark.slow
def test_a_launch_hung_after_its_last_line_is_stopped_and_its_results_are_complete(
    cli, fake_core, db, clean_env, tmp_path
):
    """MPICH 4.0 over UCX's TCP transport can leave a rank in MPI_Finalize for ever after
    the core wrote everything: the runner stops the launch after a grace period
    (COMMSCOPE_FINALIZE_GRACE), keeps every point and goes on with the next benchmark."""
    clean_env.setenv("COMMSCOPE_FINALIZE_GRACE", "1")
    trace = tmp_path / "trace"
    clean_env.setenv("FAKE_CORE_HANG_AT_END", "120")
    clean_env.setenv("FAKE_CORE_TRACE", str(trace))
    began = time.monotonic()
    result = cli("run", "latency", "bw", "--launcher", "mpirun", "--db", db, "--", "-m", "1:64")
    assert time.monotonic() - began < 30
    assert result.exit_code == 0, result.stderr
    runs = stored_runs(db)
    assert [run.benchmark for run in runs] == ["latency", "bw"]
    for run in runs:
        assert run.status == "complete"
        assert run.status_reason.startswith("stopped after its results: the launcher had not exited 1 s after")
        assert [point.size for point in run.points] == core_golden.sizes(run.benchmark, 1, 64)
    assert "latency: stopped after its results" in result.stderr
    for pid in traced_pids(trace):
        assert_gone(pid)


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "1e7"])
@pytest.mark.parametrize("command", [["run", "latency"], ["sweep", "all-pairs", "--hosts", "a,b"]])
def test_a_finalize_grace_that_is_not_seconds_is_refused_before_anything_runs(
    cli, fake_core, db, clean_env, value, command
):
    clean_env.setenv("COMMSCOPE_FINALIZE_GRACE", value)
    result = cli(*command, "--launcher", "mpirun", "--db", db)
    assert result.exit_code == 2, result.output
    assert f"COMMSCOPE_FINALIZE_GRACE={value!r} is not a number of seconds (0 to 999999)" in result.stderr
    assert not db.exists()  # nothing planned, nothing stored


@pytest.mark.slow
def test_timeout_stops_the_benchmark_and_the_next_one_still_runs(cli, fake_core, db, clean_env, tmp_path):
    trace = tmp_path / "trace"
    clean_env.setenv("FAKE_CORE_SLEEP", "0.3")
    clean_env.setenv("FAKE_CORE_TRACE", str(trace))
    began = time.monotonic()
    result = cli("run", "latency", "bw", "--launcher", "mpirun", "--timeout", "1", "--db", db, "--", "-m", "1:1K")
    assert time.monotonic() - began < 8
    assert result.exit_code == 1
    runs = stored_runs(db)
    assert [run.benchmark for run in runs] == ["latency", "bw"]
    for run in runs:
        planned = len(core_golden.sizes(run.benchmark, 1, 1024))
        assert run.status == "incomplete"
        assert run.status_reason.startswith("timed out after 1 s; ")
        assert run.status_reason.endswith(f" of {planned} points measured")
        assert 1 <= len(run.points) < planned
    for pid in traced_pids(trace):
        assert_gone(pid)


@pytest.mark.slow
def test_a_rank_that_ignores_sigterm_is_killed(cli, fake_core, db, clean_env, tmp_path, monkeypatch):
    monkeypatch.setattr(process, "TERMINATE_GRACE_SECONDS", 0.5)
    trace = tmp_path / "trace"
    clean_env.setenv("FAKE_CORE_SLEEP", "0.3")
    clean_env.setenv("FAKE_CORE_IGNORE_TERM", "1")
    clean_env.setenv("FAKE_CORE_TRACE", str(trace))
    result = cli("run", "latency", "--launcher", "mpirun", "--timeout", "2", "--db", db, "--", "-m", "1:1K")
    assert result.exit_code == 1
    [pid] = traced_pids(trace)
    assert_gone(pid)
    assert stored_runs(db)[0].status == "incomplete"


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT])
def test_signal_stores_what_was_measured_and_stops(commscope_argv, child_env, db, tmp_path, signum):
    trace = tmp_path / "trace"
    env = {**child_env, "FAKE_CORE_SLEEP": "0.3", "FAKE_CORE_TRACE": str(trace)}
    child = start_child(
        [*commscope_argv, "run", "latency", "bw", "--launcher", "mpirun", "--db", str(db), "--", "-m", "1:1K"], env
    )
    try:
        deadline = time.monotonic() + 60
        while "record 2" not in trace_lines(trace) and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signum)
        stdout, stderr = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 3, stderr
    [run] = stored_runs(db)  # bw never started
    assert run.benchmark == "latency" and run.status == "incomplete"
    assert run.status_reason.startswith(f"interrupted by {signum.name}; ")
    assert 2 <= len(run.points) < len(core_golden.sizes("latency", 1, 1024))
    assert f"stopped by {signum.name}" in stderr and "Traceback" not in stderr
    assert "# Size       Avg Latency(us)" in stdout
    for pid in traced_pids(trace):
        assert_gone(pid)


def test_dry_run_prints_exact_commands_and_runs_nothing(cli, fake_core, db, clean_env, tmp_path):
    clean_env.setenv("FAKE_CORE_TRACE", str(tmp_path / "trace"))
    result = cli("run", "quick", "--dry-run", "--launcher", "mpirun", "--repeat", "2", "--db", db)
    assert result.exit_code == 0
    launch = " --oversubscribe --bind-to none" if len(os.sched_getaffinity(0)) < 2 else " --bind-to core"
    expected = [
        f"{ROOT_PREFIX}{FAKES}/mpirun -np 2{launch} {FAKE_CORE} {bench} {flags} "
        "--precision 5 --max-time 0.2 --format osu --jsonl-out JSONL"
        for bench, flags in (("latency", "-m 1:64K -x 20"), ("bw", "-m 1:64K -x 10"), ("bibw", "-m 1:64K -x 10"))
    ]
    commands = [line for line in result.stdout.splitlines() if not line.startswith("#")]
    assert commands == expected
    assert "# latency: 2 ranks, placement any, 2 times" in result.stdout
    assert not db.exists() and not (tmp_path / "trace").exists()


def test_dry_run_with_hosts_and_placement(cli, fake_core, db):
    result = cli("run", "procurement", "--dry-run", "--launcher", "mpirun", "--hosts", "n1,n2", "--db", db)
    assert result.exit_code == 0
    first = [line for line in result.stdout.splitlines() if not line.startswith("#")][0]
    assert f"{FAKES}/mpirun -np 2 --host n1:1,n2:1 --bind-to core {FAKE_CORE} bibw -m 64M:64M" in first


def test_dry_run_with_a_hostfile_maps_ranks_per_node(cli, fake_core, db, tmp_path):
    hostfile = tmp_path / "hosts"
    hostfile.write_text("n1 slots=2\nn2 slots=2\n")
    result = cli("run", "procurement", "--dry-run", "--launcher", "mpirun", "--hostfile", hostfile, "--db", db)
    first = [line for line in result.stdout.splitlines() if not line.startswith("#")][0]
    assert f"mpirun -np 2 --hostfile {hostfile} --map-by ppr:1:node --bind-to core {FAKE_CORE} bibw" in first


def test_dry_run_inside_a_slurm_allocation_uses_srun(cli, fake_core, db, clean_env, tmp_path):
    srun = tmp_path / "bin" / "srun"
    srun.parent.mkdir()
    srun.write_text("#!/bin/sh\necho slurm 22.05.8\n")
    srun.chmod(0o755)
    clean_env.setenv("PATH", f"{srun.parent}{os.pathsep}{os.environ['PATH']}")
    clean_env.setenv("SLURM_JOB_ID", "77")
    clean_env.setenv("SLURM_JOB_NUM_NODES", "2")
    result = cli("run", "procurement", "--dry-run", "--db", db)
    assert result.exit_code == 0, result.output
    first = [line for line in result.stdout.splitlines() if not line.startswith("#")][0]
    launch = f"{srun} -n 2 --kill-on-bad-exit=1 -N 2 --cpu-bind=cores"
    assert first == f"{launch} {FAKE_CORE} bibw -m 64M:64M --format osu --jsonl-out JSONL"


@pytest.mark.slow
def test_suite_benchmarks_the_core_lacks_are_skipped_with_a_warning(cli, fake_core, db):
    result = cli("run", "full", "--launcher", "mpirun", "--db", db, "--", "-m", "1:2")
    assert result.exit_code == 0, result.output
    assert (
        "skipping allreduce, bcast, allgather, alltoall, reduce, barrier, congestion: not provided by" in result.stderr
    )
    assert [run.benchmark for run in stored_runs(db)] == ["latency", "bw", "bibw", "mbw_mr", "multi_lat"]


def test_a_suite_with_nothing_available_fails(cli, fake_core, db):
    result = cli("run", "collectives", "--launcher", "mpirun", "--db", db)
    assert result.exit_code == 1
    assert "nothing to run" in result.stderr and not db.exists()


def test_unknown_suite_or_benchmark_is_a_usage_error(cli, fake_core, db):
    result = cli("run", "latencyy", "--db", db)
    assert result.exit_code == 2
    assert "'latencyy' is neither a suite nor a benchmark" in result.stderr


def test_hosts_and_hostfile_together_are_refused(cli, fake_core, db, tmp_path):
    hostfile = tmp_path / "hosts"
    hostfile.write_text("a\n")
    result = cli("run", "latency", "--hosts", "a,b", "--hostfile", hostfile, "--db", db)
    assert result.exit_code == 2 and "not both" in result.stderr


def test_missing_core_says_how_to_build_it(cli, clean_env, db, tmp_path, monkeypatch):
    clean_env.delenv("COMMSCOPE_BENCH", raising=False)
    clean_env.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(bench_binary, "REPO_BUILD", tmp_path / "build" / "default" / "commscope-bench")
    monkeypatch.setattr(bench_binary, "installed_core", lambda: tmp_path / "bin" / "commscope-bench")
    result = cli("run", "quick", "--db", db)
    assert result.exit_code == 1
    assert "commscope-bench (the measurement core) was not found" in result.stderr
    assert "make build" in result.stderr and "Traceback" not in result.output


@pytest.mark.slow
def test_validation_failure_fails_the_run(cli, fake_core, db, clean_env):
    clean_env.setenv("FAKE_CORE_GOLDEN", "latency_full")  # the core's run whose last size fails
    result = cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "0:8", "-c")
    assert result.exit_code == 1
    [run] = stored_runs(db)
    failing = core_golden.records("latency", 0, 8, stem="latency_full")[-1]
    reason = f"validation failed at {failing['size']} B ({failing['validation']['errors']} wrong)"
    assert run.status == "failed" and run.status_reason == reason
    assert run.points[-1].validation == "Fail" and run.points[0].validation == "Pass"
    assert "Fail" in result.stdout.splitlines()[-1].split()  # the table's Validation column


@pytest.mark.slow
def test_core_usage_error_is_stored_as_failed_with_its_message(cli, fake_core, db, clean_env):
    clean_env.setenv("FAKE_CORE_USAGE_ERROR", "bw needs exactly 2 ranks, got 4")
    result = cli("run", "bw", "--np", "4", "--launcher", "mpirun", "--db", db)
    assert result.exit_code == 1
    [run] = stored_runs(db)
    assert run.status == "failed" and run.ranks == 4 and run.points == []
    assert run.status_reason.startswith("commscope-bench exited with status 2 before measuring anything: ")
    assert run.status_reason.endswith("bw needs exactly 2 ranks, got 4")
    assert "--np N" not in result.output  # the user chose the ranks


@pytest.mark.slow
def test_a_refused_default_rank_count_points_at_np(cli, fake_core, db, clean_env):
    """`run BENCH` without --np starts 2 ranks; a benchmark that needs more (congestion: 4)
    fails with the core's message and a note that --np sets the ranks."""
    clean_env.setenv("FAKE_CORE_USAGE_ERROR", "bw needs at least 4 ranks, got 2")
    result = cli("run", "bw", "--launcher", "mpirun", "--db", db)
    assert result.exit_code == 1
    [run] = stored_runs(db)
    assert run.status == "failed" and run.ranks == 2
    assert "bw was started on 2 ranks (the suite entry's `ranks`, or 2 for a benchmark named directly): " in (
        result.output
    )
    assert "`--np N` sets them" in result.output


@pytest.mark.slow
def test_records_that_break_the_schema_are_caught(cli, fake_core, db, clean_env):
    clean_env.setenv("FAKE_CORE_DROP_KEY", "stats")
    result = cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:8")
    assert result.exit_code == 1
    [run] = stored_runs(db)
    assert run.status == "incomplete" and run.points == []
    assert "does not match result.schema.json" in run.status_reason and "'stats'" in run.status_reason


@pytest.mark.slow
def test_repeat_stores_one_run_per_pass(cli, fake_core, db):
    result = cli("run", "latency", "bw", "--repeat", "3", "--launcher", "mpirun", "--db", db, "--", "-m", "1:2")
    assert result.exit_code == 0
    runs = stored_runs(db)
    assert [(run.benchmark, run.repeat_index) for run in runs] == [
        ("latency", 0),
        ("bw", 0),
        ("latency", 1),
        ("bw", 1),
        ("latency", 2),
        ("bw", 2),
    ]
    assert len({run.invocation_id for run in runs}) == 1


@pytest.mark.slow
def test_suite_flags_come_before_extra_flags_and_np_overrides_ranks(cli, fake_core, db):
    result = cli("run", "quick", "--np", "3", "--launcher", "mpirun", "--db", db, "--", "-m", "1:2", "-c")
    assert result.exit_code == 0
    latency = stored_runs(db)[0]
    assert latency.flags == ["-m", "1:64K", "-x", "20", "--precision", "5", "--max-time", "0.2", "-m", "1:2", "-c"]
    assert latency.launcher_argv[:3] == [str(FAKES / "mpirun"), "-np", "3"]


@pytest.mark.slow
def test_inter_node_suite_on_one_host_warns(cli, fake_core, db, monkeypatch):
    # a recorded two-socket node (tests/support/fixtures/links): the suite's core pairs are known
    monkeypatch.setenv("COMMSCOPE_SYSFS", str(FIXTURES / "links" / "xeon-e5410-2socket" / "sys"))
    result = cli("run", "procurement", "--launcher", "mpirun", "--db", db, "--", "-m", "1:1")
    assert result.exit_code == 0
    [host] = core_golden.header("latency")["hosts"]
    assert f"asks for inter-node placement but all ranks ran on {host['name']}" in result.stderr
    runs = stored_runs(db)
    assert [run.placement for run in runs] == ["inter-node"] * 3 + ["intra-node"] * 6
    assert [run.label for run in runs[3:5]] == ["core0-core1", "core0-core2"]
    assert runs[3].provenance["core_pair"] == {"cpus": [0, 1], "path": "across sockets"}


def test_stopping_reaches_a_child_in_a_session_of_its_own(tmp_path):
    """fio's job processes each start a session of their own: the group's SIGTERM missed them
    and, their parent gone, they waited for it forever. Stopping reaches every process below
    the program."""
    pidfile = tmp_path / "child.pid"
    script = (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        f"    open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(60)\n"
        "    sys.exit(0)\n"
        "time.sleep(60)\n"
    )
    with open(tmp_path / "out", "wb") as out:
        started = process.start([sys.executable, "-c", script], out, out)
        deadline = time.monotonic() + 10
        while not pidfile.exists() or not pidfile.read_text():
            assert time.monotonic() < deadline, "the child never started"
            time.sleep(0.05)
        child = int(pidfile.read_text())
        process.terminate(started, StopSignals())
    deadline = time.monotonic() + 5
    while _running(child):
        assert time.monotonic() < deadline, "the child in its own session outlived the stop"
        time.sleep(0.05)


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"
