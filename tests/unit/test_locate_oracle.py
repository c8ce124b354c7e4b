"""An oracle is a program commscope starts like any other (execute/process): a stop signal
stops it at once and whole, --timeout is kept whatever it leaves holding its output, what it
leaves running is stopped, its answer and error output are read up to a limit, a value or a
command line it cannot use is an error by name, never a traceback; and a store locked past
its busy timeout keeps the locate run as files that `import` stores."""

from __future__ import annotations

import json
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from commscope.store.db import Store

HOSTS = [f"cn{i:03d}" for i in range(8)]
HEALTHY = "print(json.dumps({'values': [[a, b, 100.0] for a, b in request['pairs']]}))\n"


def oracle_script(tmp_path: Path, body: str) -> str:
    """A Python oracle whose main part is `body` (`request` holds the round, `here` its folder)."""
    path = tmp_path / "oracle.py"
    path.write_text(
        f"import json, os, subprocess, sys, time\nhere = {str(tmp_path)!r}\nrequest = json.load(sys.stdin)\n" + body
    )
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def locate_argv(oracle: str, db: Path, *args: str) -> list[str]:
    return ["sweep", "locate", "--hosts", ",".join(HOSTS), "--oracle", oracle, "--seed", "2", "--db", str(db), *args]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(path: Path, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists() or not path.read_text().strip():
        assert time.monotonic() < deadline, f"{path} never came"
        time.sleep(0.05)


def stored_runs(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]


#: Starts a child in a session of its own that holds the oracle's stdout and lives 60 s,
#: and writes its pid and the oracle's into here/pids.
LEAVE_A_CHILD = (
    "child = subprocess.Popen(['setsid', 'sleep', '60'], stdout=sys.stdout, stderr=sys.stderr)\n"
    "open(os.path.join(here, 'pids'), 'w').write(f'{os.getpid()} {child.pid}')\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_an_oracle_round_stops_it_at_once_and_whole(commscope_argv, child_env, tmp_path, signum):
    db = tmp_path / "r.db"
    oracle = oracle_script(tmp_path, LEAVE_A_CHILD + "time.sleep(60)\n")
    process = subprocess.Popen(
        [*commscope_argv, *locate_argv(oracle, db)], env=child_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    pids = tmp_path / "pids"
    wait_for(pids)
    began = time.monotonic()
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=30)
    assert time.monotonic() - began < 10  # not after the oracle's 60 s, nor --timeout's 600
    assert process.returncode == 3, stderr
    assert b"round 1 was interrupted" in stderr and b"Traceback" not in stderr
    oracle_pid, child = map(int, pids.read_text().split())
    deadline = time.monotonic() + 5
    while (alive(oracle_pid) or alive(child)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(oracle_pid) and not alive(child)
    assert stored_runs(db) == 0


def test_an_oracle_that_hangs_with_a_setsid_child_on_its_output_is_stopped_at_the_timeout(cli, clean_env, db, tmp_path):
    oracle = oracle_script(tmp_path, LEAVE_A_CHILD + "time.sleep(60)\n")
    began = time.monotonic()
    result = cli(*locate_argv(oracle, db, "--timeout", "2"))
    assert time.monotonic() - began < 20
    assert result.exit_code == 1 and "did not answer within 2 s (--timeout); stopped it" in result.stderr
    _, child = map(int, (tmp_path / "pids").read_text().split())
    assert not alive(child)


def test_an_oracle_that_answers_and_leaves_a_child_is_judged_by_its_answer(cli, clean_env, db, tmp_path):
    oracle = oracle_script(tmp_path, LEAVE_A_CHILD + HEALTHY)
    began = time.monotonic()
    result = cli(*locate_argv(oracle, db, "--timeout", "30"))
    assert time.monotonic() - began < 20
    assert result.exit_code == 0, result.output
    assert "hosts cleared" in result.stderr and "did not answer" not in result.stderr
    _, child = map(int, (tmp_path / "pids").read_text().split())
    assert not alive(child)  # what it left running is stopped
    assert stored_runs(db) == 1


def test_an_answer_beyond_the_limit_is_an_error_not_memory_exhaustion(cli, clean_env, db, tmp_path, monkeypatch):
    import commscope.sweep.oracle as oracle_rounds

    monkeypatch.setattr(oracle_rounds, "ANSWER_LIMIT", 2**20)  # as a 2 GB answer meets 256 MiB
    oracle = oracle_script(tmp_path, "sys.stdout.write(' ' * (3 * 2**20))\nsys.stdout.flush()\ntime.sleep(60)\n")
    began = time.monotonic()
    result = cli(*locate_argv(oracle, db))
    assert time.monotonic() - began < 30  # stopped as its answer passed the limit
    assert result.exit_code == 1 and "answered more than the limit of 1 MiB for a round" in result.stderr


def test_ten_megabytes_of_error_output_end_in_its_last_lines(cli, clean_env, db, tmp_path):
    oracle = oracle_script(
        tmp_path, "sys.stderr.write('noise\\n' * (10 * 2**20 // 6) + 'the reason\\n')\nsys.exit(3)\n"
    )
    result = cli(*locate_argv(oracle, db))
    assert result.exit_code == 1 and "failed (exit status 3)" in result.stderr
    assert result.stderr.rstrip().endswith("the reason") and len(result.stderr) < 4096


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "print(json.dumps({'values': [[a, b, 10**400] for a, b in request['pairs']]}))\n",
            "the value an integer of about 401 digits: not a bw",
        ),
        (
            "sys.stdout.buffer.write(b'{\\xff\\xfe}')\n",
            "answered in something other than UTF-8 (byte 0xff at offset 1)",
        ),
        ("sys.stdout.write('[' * 200000 + ']' * 200000)\n", "printed a JSON document nested too deeply to read"),
        ("sys.stdout.write('{\"values\": [[1, ' + '9' * 5000 + ']]}')\n", "printed a number it cannot read"),
        ("print(json.dumps({'values': [[[[[[1]]]]] * 3]}))\n", "[[[[[1]]]], [[[[1]]]], [[[[1]]]]] is not [HOST, HOST"),
    ],
    ids=["400 digits", "not UTF-8", "200,000 brackets", "5,000 digits", "a row of lists"],
)
def test_an_answer_python_cannot_take_is_a_failed_round_by_name(cli, clean_env, db, tmp_path, body, message):
    result = cli(*locate_argv(oracle_script(tmp_path, body), db))
    assert result.exit_code == 1, result.output
    assert message in result.stderr and "Traceback" not in result.output
    assert stored_runs(db) == 0


@pytest.mark.parametrize(
    "oracle, message",
    [
        ("python3 'x", "--oracle python3 'x: No closing quotation"),
        ("", "--oracle: give the command to run"),
        ("   ", "--oracle: give the command to run"),
    ],
)
def test_an_oracle_command_that_cannot_be_run_is_a_usage_error(cli, clean_env, db, oracle, message):
    result = cli(*locate_argv(oracle, db))
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output
    assert stored_runs(db) == 0


def test_a_locked_store_keeps_the_locate_run_as_files_that_import_stores(cli, clean_env, db, tmp_path):
    """The oracle's first round waits until the test holds the database's write lock; the
    run is kept as files (exit 4), and `import` stores it with its rounds."""
    clean_env.setenv("COMMSCOPE_BUSY_TIMEOUT", "0.5")
    oracle = oracle_script(
        tmp_path,
        "if request['round'] == 1:\n"
        "    open(os.path.join(here, 'asked'), 'w').write('1')\n"
        "    while not os.path.exists(os.path.join(here, 'locked')):\n"
        "        time.sleep(0.05)\n" + HEALTHY,
    )
    import threading

    holder: dict = {}

    def hold_the_lock() -> None:
        wait_for(tmp_path / "asked")
        other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")  # another writer that keeps the lock
        holder["conn"] = other
        (tmp_path / "locked").write_text("1")

    thread = threading.Thread(target=hold_the_lock)
    thread.start()
    out = tmp_path / "verdict.json"
    result = cli(*locate_argv(oracle, db, "--json", str(out)))
    thread.join()
    holder["conn"].execute("ROLLBACK")
    holder["conn"].close()
    assert result.exit_code == 4, result.output
    assert "is kept as files" in result.stderr and "hosts cleared" in result.stderr
    [kept] = (tmp_path / "xdg-data" / "commscope" / "unsaved").glob("*.jsonl")
    assert f"commscope import {kept}" in result.stderr
    document = json.loads(out.read_text())
    assert document["run_id"] is None
    later = tmp_path / "later.db"
    imported = cli("import", kept, "--db", later)
    assert imported.exit_code == 0, imported.output
    with Store(later) as store:
        (summary,) = store.summaries()
        run = store.run(summary.id)
    assert {point.pair.round for point in run.points} == set(range(document["rounds"]))
    shown = cli("show", run.id, "--db", later)
    assert shown.exit_code == 0 and "hosts cleared" in shown.stdout


@pytest.mark.slow  # 10 oracle programs started
def test_an_oracle_round_can_fail_for_hosts_that_die_or_hang_at_start(cli, clean_env, db, tmp_path):
    """Issue 45: the simulator's dead host (its ranks die at start) and hung host (rank 0's: no
    start line comes) fail the rounds they are in, as launches would; the sweep sets each
    aside by the rules it applies to launches (the same host dead twice; probes over halves),
    judges the other 30 and clears them. Every request the oracle got is counted."""
    hosts = [f"cn{i:03d}" for i in range(32)]
    (tmp_path / "net.json").write_text(json.dumps({"seed": 4, "dead": {"cn017": "SIGSEGV"}, "hung": ["cn000"]}))
    oracle = oracle_script(
        tmp_path,
        "from commscope.sweep.simulate import Network, answer\n"
        "net = Network.of(json.load(open(here + '/net.json')))\n"
        "open(here + '/asked', 'a').write(('probe' if 'probe' in request else 'round') + '\\n')\n"
        "print(json.dumps(answer(net, request)))\n",
    )
    argv = ["sweep", "locate", "--hosts", ",".join(hosts), "--oracle", oracle, "--seed", "5", "--db", db]
    result = cli(*argv, "--json", tmp_path / "v.json")
    assert result.exit_code == 1, result.output
    verdict = json.loads((tmp_path / "v.json").read_text())
    named = {node["host"]: node["reason"] for node in verdict["bad_nodes"]}
    assert named == {"cn017": "fails at MPI start", "cn000": "hangs at MPI start"}
    assert verdict["certain"]
    asked = (tmp_path / "asked").read_text().split()
    # the dead host: its round asked again (named twice), a probe of it second that fails
    # too, the round once more without it; the hung one (rank 0: no start line): a probe of
    # every host with another first, one with a partner, the round once more
    assert (asked.count("round"), asked.count("probe")) == (verdict["rounds"] + 3, 3), asked
    assert stored_runs(db) == 1
