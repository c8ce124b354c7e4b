"""Issue 11: what is measured survives a store that cannot take it (locked, full), and a
database that is read-only, damaged or missing gives one clear message and one exit code.

Full disks are real tmpfs mounts and read-only databases real read-only bind mounts (root
ignores file permissions); both skip when mounting is not permitted."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import time
import warnings
from pathlib import Path

import pytest

import core_golden
from commands import start_child
from commscope.errors import EXIT_STORE, StoreError
from commscope.store.db import Store
from paths import FIXTURES

FIXTURE = FIXTURES / "parse" / "omb5_bibw.txt"


def stored_runs(db: Path):
    with Store(db, create=False) as store:
        return [store.run(row.id) for row in reversed(store.summaries())]


def trace_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def wait_for(trace: Path, line: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while line not in trace_lines(trace):
        assert time.monotonic() < deadline, f"{line!r} never came"
        time.sleep(0.05)


@contextlib.contextmanager
def mounted(*mount_args: str, target: Path):
    target.mkdir(exist_ok=True)
    done = subprocess.run(["mount", *mount_args, str(target)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here: {done.stderr.strip()}")
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], check=True)


@contextlib.contextmanager
def small_tmpfs(tmp_path: Path, size: str = "2m"):
    with mounted("-t", "tmpfs", "-o", f"size={size}", "tmpfs", target=tmp_path / "small") as folder:
        yield folder


@contextlib.contextmanager
def read_only_view(folder: Path, tmp_path: Path):
    """`folder` again, through a read-only bind mount."""
    view = tmp_path / "ro"
    with mounted("--bind", str(folder), target=view):
        done = subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot remount read-only: {done.stderr.strip()}")
        yield view


def fill(folder: Path) -> None:
    """Take every free byte of the file system `folder` is on."""
    with open(folder / "filler", "wb", buffering=0) as handle:
        for block in (b"\0" * 65536, b"\0" * 512):  # then the last partial block
            with contextlib.suppress(OSError):
                while handle.write(block):
                    pass


def unsaved_files(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "xdg-data" / "commscope" / "unsaved"
    return sorted(folder.iterdir()) if folder.exists() else []


def slow_core_env(child_env: dict[str, str], tmp_path: Path, sleep: str, **extra: str) -> dict[str, str]:
    """The environment of a run whose fake core waits `sleep` seconds per record and writes
    its trace to tmp_path/trace; unsaved results go under tmp_path/xdg-data."""
    return {
        **child_env,
        "FAKE_CORE_SLEEP": sleep,
        "FAKE_CORE_TRACE": str(tmp_path / "trace"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        **extra,
    }


def start_run(commscope_argv, env, db: Path, *args: str) -> subprocess.Popen:
    return start_child(
        [
            *commscope_argv,
            "run",
            "latency",
            "--launcher",
            "mpirun",
            "--label",
            "kept",
            "--system",
            "sys1",
            "--db",
            str(db),
            *args,
            "--",
            "-m",
            "1:8",
        ],
        env,
    )


def assert_kept_and_importable(cli, tmp_path: Path, stderr: str, db: Path) -> None:
    """The run that could not be stored is in the unsaved folder, named on stderr, and
    `commscope import` stores it later with the provenance a stored run has."""
    jsonl = [path for path in unsaved_files(tmp_path) if path.suffix == ".jsonl"]
    assert len(jsonl) == 1, unsaved_files(tmp_path)
    assert f"kept in {jsonl[0]}" in stderr
    assert f"commscope import {jsonl[0]}" in stderr
    result = cli("import", jsonl[0], "--db", db)
    assert result.exit_code == 0, result.output
    [run] = [run for run in stored_runs(db) if run.label == "kept"]
    assert run.benchmark == "latency" and run.status == "complete" and run.system == "sys1"
    assert [point.size for point in run.points] == core_golden.sizes("latency", 1, 8)
    assert run.flags == ["-m", "1:8"] and run.repeat_index == 0 and run.ranks == 2
    assert run.launcher_argv[0].endswith("mpirun") and "--jsonl-out" in run.launcher_argv
    header = core_golden.header("latency")
    assert run.tool_version == header["tool"]["version"] and run.hosts == header["hosts"]
    with Store(db) as store:
        raw = store.raw_outputs(run.id)
    kept_stdout = jsonl[0].with_suffix(".stdout").read_bytes()
    assert raw["jsonl"] == jsonl[0].read_bytes() and raw["stdout"] == kept_stdout
    assert b"Avg Latency(us)" in kept_stdout  # the core's own OSU table


@pytest.mark.slow
def test_a_run_stored_while_another_writer_holds_the_lock_is_kept(cli, child_env, commscope_argv, db, tmp_path):
    trace = tmp_path / "trace"
    env = slow_core_env(child_env, tmp_path, "0.3", COMMSCOPE_BUSY_TIMEOUT="0.5")
    child = start_run(commscope_argv, env, db)
    try:
        wait_for(trace, "record 1")
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another writer that keeps the lock
        stdout, stderr = child.communicate(timeout=60)
        other.execute("ROLLBACK")
        other.close()
    finally:
        child.kill()
    assert child.returncode == EXIT_STORE, stderr
    assert "is locked" in stderr and "Traceback" not in stderr
    assert "# Size       Avg Latency(us)" in stdout
    assert_kept_and_importable(cli, tmp_path, stderr, db)


@pytest.mark.slow
def test_a_run_stored_on_a_full_disk_is_kept(cli, child_env, commscope_argv, tmp_path):
    trace = tmp_path / "trace"
    env = slow_core_env(child_env, tmp_path, "0.3")
    with small_tmpfs(tmp_path) as small:
        db = small / "results.db"
        child = start_run(commscope_argv, env, db)
        try:
            wait_for(trace, "record 1")
            fill(small)
            stdout, stderr = child.communicate(timeout=60)
        finally:
            child.kill()
        assert child.returncode == EXIT_STORE, stderr
        assert "disk" in stderr and "full" in stderr and "Traceback" not in stderr
        (small / "filler").unlink()
        assert_kept_and_importable(cli, tmp_path, stderr, tmp_path / "other.db")


def test_an_import_onto_a_full_disk_is_one_message(cli, tmp_path):
    with small_tmpfs(tmp_path) as small:
        db = small / "results.db"
        Store(db).close()
        fill(small)
        result = cli("import", FIXTURE, "--db", db)
    assert result.exit_code == EXIT_STORE, result.output
    assert result.stderr.count("error:") == 1 and "full" in result.stderr and "Traceback" not in result.output


def test_opening_a_database_on_a_full_disk_says_the_disk_is_full(tmp_path):
    """SQLite itself only says "disk I/O error" when it cannot grow the WAL index."""
    with small_tmpfs(tmp_path) as small:
        db = small / "results.db"
        Store(db).close()
        fill(small)
        with pytest.raises(StoreError, match=rf"{db}: the disk holding it is full"):
            Store(db)


def test_unsaved_results_without_a_sidecar_are_refused(cli, db, tmp_path):
    stray = tmp_path / "stray.jsonl"
    stray.write_text('{"header": {}}\n')
    result = cli("import", stray, "--db", db)
    assert result.exit_code == 1 and f"{stray}:1:" in result.stderr


# -- read-only, damaged and missing databases ------------------------------------------------


@pytest.fixture
def filled(cli, tmp_path) -> Path:
    folder = tmp_path / "store"
    folder.mkdir()
    db = folder / "results.db"
    assert cli("import", FIXTURE, "--label", "ro", "--db", db).exit_code == 0
    return db


READERS = [
    ("list", "runs"),
    ("show", "1"),
    ("show", "last", "--raw", "source"),
    ("export", "1", "--format", "csv"),
    ("compare", "1"),
    ("list", "benchmarks"),
]


@pytest.mark.slow
@pytest.mark.parametrize("command", READERS, ids=" ".join)
def test_a_database_on_a_read_only_mount_can_be_read(cli, fake_core, filled, tmp_path, command):
    with read_only_view(filled.parent, tmp_path) as view:
        result = cli(*command, "--db", view / filled.name)
        assert result.exit_code == 0, result.output
        assert sorted(path.name for path in view.iterdir()) == ["results.db"]


def test_a_database_with_its_wal_on_a_read_only_mount_can_be_read(cli, filled, tmp_path):
    """A reader stopped before the last connection closed leaves -wal and -shm beside the file."""
    holder = sqlite3.connect(filled)
    holder.execute("SELECT COUNT(*) FROM runs").fetchall()  # keeps -wal/-shm while open
    with read_only_view(filled.parent, tmp_path) as view:
        result = cli("list", "runs", "--db", view / filled.name)
    holder.close()
    assert result.exit_code == 0, result.output
    assert " ro " in result.stdout or "ro" in result.stdout


@pytest.mark.parametrize("command", [("import", str(FIXTURE)), ("delete", "1")], ids=" ".join)
def test_writing_to_a_read_only_database_is_one_clear_error(cli, filled, tmp_path, command):
    with read_only_view(filled.parent, tmp_path) as view:
        result = cli(*command, "--db", view / filled.name)
    assert result.exit_code == EXIT_STORE, result.output
    assert "read-only" in result.stderr and "Traceback" not in result.output


def test_a_run_into_a_read_only_database_is_refused_before_measuring(cli, fake_core, filled, tmp_path, clean_env):
    trace = tmp_path / "trace"
    clean_env.setenv("FAKE_CORE_TRACE", str(trace))
    with read_only_view(filled.parent, tmp_path) as view:
        result = cli("run", "latency", "--launcher", "mpirun", "--db", view / filled.name)
    assert result.exit_code == EXIT_STORE and "read-only" in result.stderr
    assert not trace.exists()


def damage(db: Path) -> bytes:
    """Overwrite the middle of the file (the points and raw outputs' pages) with garbage."""
    data = bytearray(db.read_bytes())
    middle = len(data) // 2
    data[middle - 4096 : middle + 4096] = os.urandom(8192)
    db.write_bytes(bytes(data))
    return bytes(data)


@pytest.mark.parametrize("spoil", ["garbage", "damaged pages"])
def test_a_damaged_database_is_refused_by_every_command(cli, fake_core, filled, tmp_path, clean_env, spoil):
    if spoil == "garbage":
        filled.write_bytes(b"this is not a database\n" * 100)
    else:
        damage(filled)
    before = filled.read_bytes()
    trace = tmp_path / "trace"
    clean_env.setenv("FAKE_CORE_TRACE", str(trace))
    for command in [
        ("import", str(FIXTURE)),
        ("delete", "1"),
        ("run", "latency", "--launcher", "mpirun"),
        *([] if spoil != "garbage" else READERS[:4]),
    ]:
        result = cli(*command, "--db", filled)
        assert result.exit_code == EXIT_STORE, (command, result.output)
        assert "Traceback" not in result.output and result.stderr.count("error:") == 1
        assert "damaged" in result.stderr or "not a commscope result database" in result.stderr
    assert filled.read_bytes() == before
    assert not trace.exists()


@pytest.mark.parametrize(
    "command",
    [
        ("list", "runs"),
        ("show", "1"),
        ("export", "1", "--format", "json"),
        ("delete", "1"),
        ("compare", "1"),
        ("check", "1", "--baseline", "b"),
        ("model", "1"),
        ("report", "1", "-o", "r.html"),
    ],
    ids=" ".join,
)
def test_a_missing_database_exits_the_same_in_every_command(cli, tmp_path, command):
    result = cli(*command, "--db", tmp_path / "none.db")
    assert result.exit_code == EXIT_STORE, result.output
    assert "no result database at" in result.stderr


@pytest.mark.parametrize(
    "command",
    [
        ("show", "7"),
        ("export", "7", "--format", "json"),
        ("delete", "7"),
        ("compare", "7"),
        ("check", "7", "--baseline", "b"),
        ("model", "7"),
    ],
    ids=" ".join,
)
def test_an_unknown_run_exits_the_same_in_every_command(cli, filled, command):
    result = cli(*command, "--db", filled)
    assert result.exit_code == 2, result.output
    assert "no run 7" in result.stderr


@pytest.mark.parametrize(
    "command",
    [
        ("show", "last"),
        ("export", "last", "--format", "json"),
        ("delete", "last"),
        ("compare", "last"),
        ("check", "last", "--baseline", "b"),
        ("model", "last"),
        ("plot", "last", "-o", "p.png"),
        ("report", "last", "-o", "r.html"),
    ],
    ids=" ".join,
)
def test_last_in_an_empty_database_is_the_same_usage_error_in_every_command(cli, tmp_path, command):
    empty = tmp_path / "empty.db"
    Store(empty).close()
    result = cli(*command, "--db", empty)
    assert result.exit_code == 2, result.output
    assert "no run" in result.stderr and str(empty) in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize("name", ["", "   ", "\t"])
def test_a_baseline_needs_a_name(cli, filled, name):
    result = cli("baseline", "set", name, "1", "--db", filled)
    assert result.exit_code == 2 and "baseline name" in result.stderr, result.output
    with Store(filled) as store:
        assert store.baseline_run_ids(name) is None


def test_check_junit_into_a_missing_folder_is_refused_and_makes_no_folder(cli, filled, tmp_path):
    assert cli("import", FIXTURE, "--force", "--db", filled).exit_code == 0
    assert cli("baseline", "set", "b", "1", "--db", filled).exit_code == 0
    junit = tmp_path / "missing" / "j.xml"
    result = cli("check", "2", "--baseline", "b", "--junit", junit, "--db", filled)
    assert result.exit_code == 2, result.output
    assert f"--junit {junit}" in result.stderr and "Traceback" not in result.output
    assert not junit.parent.exists()


def test_a_file_name_that_is_not_utf8_is_imported_under_a_readable_name(cli, db, tmp_path):
    """A name the file system holds but UTF-8 cannot: the run is stored, the name kept with
    the odd byte written as \\xff."""
    odd = Path(os.fsdecode(bytes(tmp_path) + b"/r\xff.txt"))
    odd.write_bytes(FIXTURE.read_bytes())
    result = cli("import", odd, "--db", db)
    assert result.exit_code == 0, result.output
    assert "r\\xff.txt" in cli("show", "last", "--db", db).stdout


@pytest.mark.slow
def test_report_on_constant_values_prints_no_numeric_warning(cli, commscope_argv, child_env, tmp_path):
    """Every size the same value, every run the same: no spread, no slope, nothing to fit. The
    analysis must say so in words, not let numpy, scipy or matplotlib warn on stderr. (The runs
    are stored in this process, every warning caught; the analysis runs as `commscope`.)"""
    table = tmp_path / "constant.txt"
    table.write_text(
        "# OSU MPI Latency Test v5.6.3\n# Size          Latency (us)\n"
        + "".join(f"{1 << power:<8d}{1.0:>20.2f}\n" for power in range(8))
    )
    db = tmp_path / "constant.db"
    env = {**child_env, "PYTHONWARNINGS": "always"}

    def commscope(*args) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [*commscope_argv, *map(str, args), "--db", str(db)], capture_output=True, text=True, env=env
        )
        assert "Warning" not in done.stderr, (args, done.stderr)
        return done

    def stored(*args) -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = cli(*args, "--db", db)
        assert result.exit_code == 0 and "Warning" not in result.stderr and not caught, (args, result.output, caught)

    for _ in range(4):
        stored("import", table, "--force")
    stored("baseline", "set", "b", "1", "2")
    commscope("report", "3", "4", "--baseline", "b", "-o", tmp_path / "r.html", "--markdown", tmp_path / "r.md")
    commscope("model", "1")
    commscope("compare", "1", "2", "3", "4")


# -- one copy of each imported file ----------------------------------------------------------


def test_a_file_of_many_tables_is_stored_once(cli, db, tmp_path):
    table = FIXTURE.read_text()
    many = tmp_path / "many.txt"
    many.write_text("\n".join([table] * 40))
    result = cli("import", many, "--db", db)
    assert result.exit_code == 0, result.output
    runs = stored_runs(db)
    assert len(runs) == 40
    with Store(db) as store:
        assert store.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 1
        # Each run keeps only its own table's lines (what `show` prints), never the whole file.
        kinds, size = store.conn.execute(
            "SELECT GROUP_CONCAT(DISTINCT kind), SUM(LENGTH(data)) FROM raw_outputs"
        ).fetchone()
        assert kinds == "table" and size < len(many.read_bytes())
        assert store.raw_outputs(runs[17].id)["source"] == many.read_bytes()
    assert cli("delete", *[str(run.id) for run in runs], "--db", db).exit_code == 0
    with Store(db) as store:
        assert store.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 0


def test_import_reads_at_most_the_size_limit(cli, db, tmp_path, clean_env):
    began = time.monotonic()
    result = cli("import", "/dev/zero", "--db", db)
    assert time.monotonic() - began < 30
    assert result.exit_code == 1 and "/dev/zero: larger than the import limit of 64 MiB" in result.stderr
    big = tmp_path / "big.txt"
    big.write_text(FIXTURE.read_text() * 10)
    small_limit = cli("import", big, "--max-size", "1K", "--db", db)
    assert small_limit.exit_code == 1 and "larger than the import limit of 1 KiB" in small_limit.stderr
    clean_env.setenv("COMMSCOPE_IMPORT_MAX_SIZE", "1M")
    assert cli("import", big, "--db", db).exit_code == 0
    assert cli("import", big, "--max-size", "nonsense", "--db", db).exit_code == 2


def test_the_sources_table_keeps_a_content_hash(cli, db):
    assert cli("import", FIXTURE, "--db", db).exit_code == 0
    with Store(db) as store:
        [row] = store.conn.execute("SELECT sha256, size FROM sources").fetchall()
    import hashlib

    assert tuple(row) == (hashlib.sha256(FIXTURE.read_bytes()).hexdigest(), FIXTURE.stat().st_size)


@pytest.mark.slow
def test_unsaved_sidecar_is_json_with_the_harness_fields(cli, child_env, commscope_argv, db, tmp_path):
    """The sidecar is plain JSON a person can read; its keys are part of the promise."""
    trace = tmp_path / "trace"
    env = slow_core_env(child_env, tmp_path, "0.2", COMMSCOPE_BUSY_TIMEOUT="0.2")
    child = start_run(commscope_argv, env, db, "--repeat", "1")
    wait_for(trace, "record 1")
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    child.communicate(timeout=60)
    other.execute("ROLLBACK")
    [sidecar] = [path for path in unsaved_files(tmp_path) if path.name.endswith(".run.json")]
    data = json.loads(sidecar.read_text())
    assert data["format"] == "commscope-unsaved" and data["run"]["label"] == "kept"
    assert data["run"]["system"] == "sys1" and data["run"]["repeat_index"] == 0
    assert data["invocation"]["argv"][1:3] == ["run", "latency"] or "run" in data["invocation"]["argv"]


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "1e7"])
@pytest.mark.parametrize("command", [("list", "runs"), ("show", "1"), ("import", str(FIXTURE))], ids=" ".join)
def test_a_busy_timeout_that_is_not_seconds_is_a_usage_error(cli, filled, clean_env, value, command):
    clean_env.setenv("COMMSCOPE_BUSY_TIMEOUT", value)
    result = cli(*command, "--db", filled)
    assert result.exit_code == 2, result.output
    assert f"COMMSCOPE_BUSY_TIMEOUT={value!r} is not a number of seconds (0 to 999999)" in result.stderr
    assert "Traceback" not in result.output
