"""Issue 11: bad input gives one clear message and a non-zero exit, never a traceback, a hang
or a result stored as complete when it is not. Fake core and fake mpirun (see conftest.py)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from commscope.store.db import Store
from paths import FIXTURES


def stored_runs(db: Path):
    with Store(db, create=False) as store:
        return [store.run(row.id) for row in reversed(store.summaries())]


def no_traceback(result) -> None:
    assert "Traceback" not in result.output and "Error:" not in result.stderr.replace("error:", "")


# -- suite files ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, line, message",
    [
        (b"description: x\nbenchmarks: " + b"[" * 5000 + b"\n", 2, "nested too deeply"),
        (b"description: x\nbenchmarks:\n  - benchmark: lat\x00ency\n", 3, "NUL"),
    ],
    ids=["deeply nested", "NUL byte"],
)
def test_a_suite_file_yaml_cannot_read_is_a_usage_error(cli, fake_core, db, tmp_path, content, line, message):
    suite = tmp_path / "bad.yaml"
    suite.write_bytes(content)
    result = cli("run", "--suite-file", suite, "--dry-run", "--db", db)
    assert result.exit_code == 2, result.output
    assert f"{suite}:{line}:" in result.stderr and message in result.stderr
    no_traceback(result)


def test_a_duplicate_key_in_a_suite_file_is_rejected_with_file_line_and_key(cli, fake_core, db, tmp_path):
    suite = tmp_path / "dup.yaml"
    suite.write_text("description: x\nbenchmarks:\n  - benchmark: latency\n    ranks: 2\n    ranks: 4\n")
    result = cli("run", "--suite-file", suite, "--dry-run", "--db", db)
    assert result.exit_code == 2, result.output
    assert f"{suite}:5: benchmarks[0].ranks: duplicate key" in result.stderr


# -- YAML files: suites, sweep rules, the site configuration ---------------------------

#: Twelve lines whose aliases stand for 9**11 strings once expanded.
ALIAS_BOMB = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]\n" for n in range(1, 12)
)


def _yaml_command(kind: str, path: Path, db: Path, env: dict[str, str]) -> list[str]:
    """The command that reads a YAML file of `kind` (a suite, sweep rules, the site
    configuration, set in `env`) before it does anything else."""
    if kind == "suite":
        return ["run", "--suite-file", str(path), "--dry-run", "--db", str(db)]
    if kind == "rules":
        return ["sweep", "all-pairs", "--hosts", "a,b", "--rules", str(path), "--db", str(db)]
    env["COMMSCOPE_CONFIG"] = str(path)
    return ["config", "--show"]


YAML_KINDS = ["suite", "rules", "config"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", YAML_KINDS)
def test_a_yaml_alias_bomb_is_refused_at_once(commscope_argv, child_env, db, tmp_path, kind):
    path = tmp_path / "bomb.yaml"
    path.write_text(("description: x\nbenchmarks: []\n" if kind == "suite" else "") + ALIAS_BOMB)
    env = dict(child_env)
    argv = [*commscope_argv, *_yaml_command(kind, path, db, env)]
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    assert time.monotonic() - started < 30
    assert done.returncode == 2, done.stderr
    message = done.stderr.replace(str(path), "FILE")  # the test's folder is named after the test
    assert "FILE:" in message and "alias" in message and "Traceback" not in message


@pytest.mark.parametrize("kind", YAML_KINDS)
@pytest.mark.parametrize(
    "content, line, message",
    [
        (b"retest_per_node: 3\nmax_retests: " + b"[" * 5000 + b"\n", 2, "nested"),
        (b"retest_per_node: 3\nmax_retests: " + b"[" * 70 + b"]" * 70 + b"\n", 2, "nested"),
        (b"retest_per_node: 3\nmax_retests: 6\x004\n", 2, "NUL"),
        (b"retest_per_node: 3\nmax_retests: 6\nretest_per_node: 4\n", 3, "retest_per_node: duplicate key"),
    ],
    ids=["nested thousands deep", "nested past the limit", "NUL byte", "duplicate key"],
)
def test_yaml_files_refuse_what_yaml_should_not_hold_with_file_and_line(
    cli, fake_core, clean_env, db, tmp_path, kind, content, line, message
):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    env: dict[str, str] = {}
    argv = _yaml_command(kind, path, db, env)
    for name, value in env.items():
        clean_env.setenv(name, value)
    result = cli(*argv)
    assert result.exit_code == 2, result.output
    assert f"{path}:{line}:" in result.stderr and message in result.stderr, result.stderr
    no_traceback(result)


def test_a_few_yaml_aliases_are_still_read(cli, fake_core, db, tmp_path):
    suite = tmp_path / "shared.yaml"
    suite.write_text(
        "description: x\nbenchmarks:\n  - {benchmark: latency, flags: &few [-m, '1:8']}\n"
        "  - {benchmark: bw, flags: *few}\n"
    )
    result = cli("run", "--suite-file", suite, "--dry-run", "--db", db)
    assert result.exit_code == 0, result.output
    assert result.stdout.count("-m 1:8") == 2


# -- input files are read up to a limit ------------------------------------------------


def _capped_memory() -> None:
    """In the child: 3 GiB of address space, so a reader without a limit fails with
    MemoryError instead of taking the machine's memory."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv, what",
    [
        (["sweep", "all-pairs", "--hostfile", "/dev/zero"], "hostfile"),
        (["run", "latency", "--hostfile", "/dev/zero", "--launcher", "mpirun", "--dry-run"], "hostfile"),
        (["sweep", "all-pairs", "--hosts", "a,b", "--rules", "/dev/zero"], "rules file"),
        (["config", "--show"], "configuration"),
        (["run", "--suite-file", "SPARSE", "--dry-run"], "suite file"),
    ],
    ids=["sweep --hostfile", "run --hostfile", "sweep --rules", "COMMSCOPE_CONFIG", "suite file"],
)
def test_an_endless_input_file_is_refused_at_the_limit(commscope_argv, child_env, db, tmp_path, argv, what):
    from commscope.records.inputs import SETTINGS_LIMIT

    sparse = tmp_path / "huge.yaml"  # a suite must be a file named .yaml: one of 4 GiB, on no disk
    with open(sparse, "wb") as handle:
        handle.truncate(4 * 2**30)
    env = {**child_env, "COMMSCOPE_CONFIG": "/dev/zero"}
    argv = [str(sparse) if arg == "SPARSE" else arg for arg in argv]
    done = subprocess.run(
        [*commscope_argv, *argv, *(["--db", str(db)] if argv[0] != "config" else [])],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        preexec_fn=_capped_memory,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"larger than the limit of {SETTINGS_LIMIT >> 20} MiB for a {what}" in done.stderr
    assert "Traceback" not in done.stderr


# -- the site configuration -----------------------------------------------------------

BAD_CONFIG_VALUES = [
    ("commscope", "'x", "No closing quotation"),
    ("commscope", "  ", "no command"),
    ("jobs_dir", "~nouser/x", "no user nouser"),
    ("transport", "carrier", "'auto', 'shm' or 'net'"),
    ("launcher", "carrier", "'auto', 'srun', 'mpirun' or 'mpiexec'"),
    ("start_timeout", "nan", "finite number"),
    ("start_timeout", "inf", "finite number"),
    ("start_timeout", "-1", "greater than or equal to 0"),
]


@pytest.mark.parametrize("key, value, message", BAD_CONFIG_VALUES)
def test_config_set_refuses_a_value_submit_cannot_use(cli, clean_env, tmp_path, key, value, message):
    config = tmp_path / "config.yaml"
    config.write_text("partition: cpu\n")
    clean_env.setenv("COMMSCOPE_CONFIG", str(config))
    result = cli("config", "set", "--", key, value)
    assert result.exit_code == 2, result.output
    assert f"{key} {value!r}:" in result.stderr and message in result.stderr, result.stderr
    no_traceback(result)
    assert config.read_text() == "partition: cpu\n"


@pytest.mark.parametrize("key, value, message", BAD_CONFIG_VALUES)
def test_a_config_file_value_submit_cannot_use_is_named_with_file_and_line(
    cli, clean_env, tmp_path, key, value, message
):
    import yaml

    config = tmp_path / "config.yaml"
    config.write_text("partition: cpu\n" + yaml.safe_dump({key: float(value) if key == "start_timeout" else value}))
    clean_env.setenv("COMMSCOPE_CONFIG", str(config))
    result = cli("submit", "quick", "--dry-run")
    assert result.exit_code == 2, result.output
    assert f"{config}:2: {key}" in result.stderr and message in result.stderr, result.stderr
    no_traceback(result)


@pytest.mark.parametrize(
    "argv",
    [
        ["--np", "1000001"],
        ["--np", "99999999999999999999"],
        ["--start-timeout", "nan"],
        ["--wait", "--start-timeout", "inf"],
    ],
)
def test_submit_numbers_are_bounded_like_run(cli, clean_env, tmp_path, argv):
    clean_env.setenv("COMMSCOPE_CONFIG", str(tmp_path / "none.yaml"))
    result = cli("submit", "quick", "--dry-run", *argv)
    assert result.exit_code == 2 and argv[-2] in result.stderr, result.output


# -- run options ------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_timeout_must_be_a_finite_number(cli, fake_core, db, value):
    result = cli("run", "latency", "--timeout", value, "--launcher", "mpirun", "--db", db)
    assert result.exit_code == 2 and "--timeout" in result.stderr and not db.exists()


@pytest.mark.parametrize("value", ["0", "1000001", "99999999999999999999"])
def test_np_is_bounded(cli, fake_core, db, value):
    result = cli("run", "latency", "--np", value, "--launcher", "mpirun", "--db", db)
    assert result.exit_code == 2 and "--np" in result.stderr and not db.exists()


def test_np_up_to_a_million_is_accepted(cli, fake_core, db):
    assert cli("run", "latency", "--np", "1000000", "--dry-run", "--db", db).exit_code == 0


def test_suite_ranks_are_bounded_like_np(cli, fake_core, db, tmp_path):
    suite = tmp_path / "big.yaml"
    suite.write_text("description: x\nbenchmarks:\n  - benchmark: latency\n    ranks: 1000001\n")
    result = cli("run", "--suite-file", suite, "--dry-run", "--db", db)
    assert result.exit_code == 2 and f"{suite}:4: benchmarks[0].ranks" in result.stderr


@pytest.mark.slow
def test_a_hanging_core_list_probe_is_stopped_by_the_timeout(child_env, commscope_argv, db, tmp_path):
    """The probe gets run's --timeout but at least 10 s (it is not the benchmark)."""
    env = {**child_env, "FAKE_CORE_LIST_HANG": "120"}
    began = time.monotonic()
    done = subprocess.run(
        [*commscope_argv, "run", "latency", "--timeout", "1", "--launcher", "mpirun", "--db", str(db)],
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert time.monotonic() - began < 40
    assert done.returncode == 1, done.stderr
    assert "--list did not answer within 10 s" in done.stderr and "Traceback" not in done.stderr
    assert not db.exists()


@pytest.mark.slow
@pytest.mark.parametrize("option", ["--label", "--system"])
def test_a_label_that_is_not_utf8_is_rejected_before_running(child_env, commscope_argv, db, tmp_path, option):
    trace = tmp_path / "trace"
    env = {**child_env, "FAKE_CORE_TRACE": str(trace)}
    argv = [
        *map(str.encode, commscope_argv),
        b"run",
        b"latency",
        b"--launcher",
        b"mpirun",
        option.encode(),
        b"caf\xe9",
        b"--db",
        str(db).encode(),
    ]
    done = subprocess.run(argv, env=env, capture_output=True, timeout=60)
    stderr = done.stderr.decode(errors="replace")
    assert done.returncode == 2, stderr
    assert f"Invalid value for '{option}': not valid UTF-8" in stderr and "Traceback" not in stderr
    assert not trace.exists()  # nothing ran, so nothing measured was lost


@pytest.mark.slow
@pytest.mark.parametrize("variable", ["COMMSCOPE_SYSTEM", "SLURM_CLUSTER_NAME"])
@pytest.mark.parametrize("command", [["run", "latency", "--launcher", "mpirun"], ["run", "hpl", "--n", "100"]])
def test_a_system_name_from_the_environment_that_is_not_utf8_is_rejected_before_running(
    child_env, commscope_argv, db, tmp_path, variable, command
):
    """The system name comes from the environment too; the store cannot take one that is not
    UTF-8, and the run used to find out after measuring (and keep a half-written file)."""
    trace = tmp_path / "trace"
    env = {key.encode(): value.encode() for key, value in child_env.items()}
    env |= {b"FAKE_CORE_TRACE": str(trace).encode(), variable.encode(): b"caf\xe9"}
    env.pop(b"COMMSCOPE_SYSTEM", None) if variable != "COMMSCOPE_SYSTEM" else None
    done = subprocess.run([*commscope_argv, *command, "--db", str(db)], env=env, capture_output=True, timeout=60)
    stderr = done.stderr.decode(errors="replace")
    assert done.returncode == 2, stderr
    assert f"${variable} is not valid UTF-8: 'caf\\xe9'" in stderr and "Traceback" not in stderr
    assert not trace.exists() and not db.exists()  # nothing ran, nothing was written


@pytest.mark.slow
def test_an_import_label_that_is_not_utf8_is_rejected(child_env, commscope_argv, db):
    fixture = FIXTURES / "parse" / "omb5_bibw.txt"
    argv = [
        *map(str.encode, commscope_argv),
        b"import",
        str(fixture).encode(),
        b"--label",
        b"\xff",
        b"--db",
        str(db).encode(),
    ]
    done = subprocess.run(argv, env=child_env, capture_output=True, timeout=60)
    assert (
        done.returncode == 2
        and b"Invalid value for '--label': not valid UTF-8" in done.stderr
        and b"Traceback" not in done.stderr
    )


# -- core streams the harness must not call complete -------------------------------------


@pytest.mark.slow
def test_a_stream_with_a_repeated_size_is_not_complete(cli, fake_core, db, clean_env):
    clean_env.setenv("FAKE_CORE_REPEAT_SIZE", "1")
    result = cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:8")
    assert result.exit_code == 1
    [run] = stored_runs(db)
    assert run.status != "complete"
    assert "a second record for size 1" in run.status_reason
    assert [point.size for point in run.points] == [1]


@pytest.mark.slow
def test_a_stream_that_ends_without_records_failed(cli, fake_core, db, clean_env):
    clean_env.setenv("FAKE_CORE_NO_RECORDS", "1")
    result = cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:8")
    assert result.exit_code == 1
    [run] = stored_runs(db)
    assert run.status == "failed" and "no result records" in run.status_reason


# -- import --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "table, line",
    [
        (
            "# OSU MPI Latency Test v7.4\n# Size       Avg Latency(us)\n1                       0.50\n"
            "2                      -0.52\n",
            4,
        ),
        ("# OSU MPI Bandwidth Test v7.4\n# Size      Bandwidth (MB/s)\n1                      -3.10\n", 3),
    ],
)
def test_import_rejects_a_negative_time_or_bandwidth(cli, db, tmp_path, table, line):
    path = tmp_path / "negative.txt"
    path.write_text(table)
    result = cli("import", path, "--db", db)
    assert result.exit_code == 1
    assert f"{path}:{line}:" in result.stderr and "negative" in result.stderr
    with Store(db) as store:
        assert store.summaries() == []


def test_import_keeps_a_negative_overlap(cli, db, tmp_path):
    """OMB prints negative overlap percentages when communication got slower under compute."""
    path = tmp_path / "overlap.txt"
    path.write_text(
        "# OSU MPI Non-blocking Broadcast Latency Test v7.4\n"
        "# Size           Overall(us)       Compute(us)    Pure Comm.(us)        Overlap(%)\n"
        "1                       5.10              3.00              2.40            -12.50\n"
    )
    result = cli("import", path, "--db", db)
    assert result.exit_code == 0, result.output


# -- command-line values that used to end in tracebacks -------------------------------------


def test_a_huge_run_id_is_a_usage_error(cli, db):
    for command in (("show",), ("export", "--format", "json"), ("delete",)):
        result = cli(*command, "99999999999999999999999", "--db", db)
        assert result.exit_code == 2 and "is not a run id" in result.stderr, result.output


@pytest.fixture
def stored(cli, db):
    fixture = FIXTURES / "parse" / "omb5_bibw.txt"
    assert cli("import", fixture, "--db", db).exit_code == 0
    return db


@pytest.mark.parametrize(
    "target, reason",
    [("/nonexistent/dir/x.json", "No such file or directory"), ("/dev/full", "No space left on device")],
)
def test_export_to_a_path_that_cannot_be_written(cli, stored, target, reason):
    result = cli("export", "1", "--format", "json", "-o", target, "--db", stored)
    assert result.exit_code == 2, result.output
    assert f"cannot write {target}: {reason}" in result.stderr and "Traceback" not in result.output


# -- run hpl and run storage ----------------------------------------------------------


@pytest.mark.parametrize(
    "command, flag",
    [
        (["hpl", "--memory-fraction", "nan"], "--memory-fraction"),
        (["storage", "--runtime", "inf"], "--runtime"),
        (["storage", "--runtime", "nan"], "--runtime"),
        (["hpl", "--np", "1000001"], "--np"),
        (["hpl", "--np", "99999999999999999999"], "--np"),
    ],
)
def test_run_hpl_and_storage_refuse_numbers_they_cannot_use(cli, db, tmp_path, command, flag):
    # --dry-run and a grid: were the number taken, nothing would start, nothing would loop for ever
    where = ["--dir", tmp_path / "io"] if command[0] == "storage" else ["--grid", "1x1"]
    result = cli("run", *command, *where, "--dry-run", "--db", db)
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{flag}'" in result.stderr and "Traceback" not in result.output
    assert not db.exists() and not (tmp_path / "io").exists()


@pytest.mark.parametrize("value", ["inf", "nan"])
def test_compare_refuses_a_peak_that_is_no_number(cli, db, value):
    result = cli("compare", "--peak-per-core", value, "--db", db)
    assert result.exit_code == 2 and "Invalid value for '--peak-per-core'" in result.stderr, result.output


def test_run_hpl_refuses_a_matrix_larger_than_the_memory_before_launching(cli, db, clean_env):
    from commscope.execute.tools import memory_bytes

    result = cli("run", "hpl", "--n", "10000000", "--dry-run", "--db", db)
    assert result.exit_code == 2, result.output
    gib = f"{memory_bytes() / 2**30:,.1f} GiB"
    assert "--n 10000000: the matrix takes N² x 8 bytes = 745,058.1 GiB" in result.stderr, result.stderr
    assert f"more than the {gib} of memory of 1 node" in result.stderr
    assert "Traceback" not in result.output and not db.exists()
