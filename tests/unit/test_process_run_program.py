"""execute/process.run_program, the one way commscope runs a program to its end: standard
input given as bytes, output past a limit stopping the program, the end of its error
output kept, and nothing it started outliving it, also a child in a session of its own."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from commscope.execute.process import run_program


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_input_goes_to_standard_input():
    done = run_program(python("import sys; sys.stdout.write(sys.stdin.read().upper())"), input=b"round 1")
    assert (done.returncode, done.stdout, done.stopped) == (0, b"ROUND 1", None)


def test_output_past_the_limit_stops_the_program_and_is_not_read():
    began = time.monotonic()
    done = run_program(
        python("import sys, time\nsys.stdout.write('x' * 3000000)\nsys.stdout.flush()\ntime.sleep(60)"),
        stdout_limit=2**20,
    )
    assert time.monotonic() - began < 20
    assert done.stdout is None and done.stopped == f"wrote more than {2**20:,} bytes"


def test_only_the_end_of_the_error_output_is_kept():
    done = run_program(
        python("import sys; sys.stderr.write('noise\\n' * 2000000 + 'the reason\\n')"), stderr_limit=1000
    )
    assert len(done.stderr) == 1000 and done.stderr_tail(1) == "the reason"


def test_what_a_program_leaves_running_is_stopped(tmp_path):
    pid_file = tmp_path / "child"
    code = (
        "import subprocess, sys\n"
        "child = subprocess.Popen(['setsid', 'sleep', '60'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "print('answered')\n"
    )
    done = run_program(python(code), timeout=30)
    assert done.returncode == 0 and done.stdout == b"answered\n" and done.stopped is None
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)


def test_a_timeout_stops_a_program_whose_child_holds_its_output(tmp_path):
    pid_file = tmp_path / "child"
    code = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen(['setsid', 'sleep', '60'], stdout=sys.stdout)\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    began = time.monotonic()
    done = run_program(python(code), timeout=1)
    assert time.monotonic() - began < 15
    assert done.stopped == "timed out after 1 s"
    assert not alive(int(pid_file.read_text()))
