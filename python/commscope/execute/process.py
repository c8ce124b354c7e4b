"""Starting, following and stopping the programs commscope launches: commscope-bench through
its launcher, its --list probe, hpcc or xhpl, fio, locate's oracle. Written once for all
of them: nothing else in the harness starts a program in a group of its own or kills one
on a timeout.

A program starts in a process group of its own (a new session), and stopping it reaches
that group and every process below the program, wherever they moved (ranks may outlive
their launcher; fio's job processes start sessions of their own). Stopping is SIGTERM to the
group first, so mpirun/mpiexec/srun can take their ranks down, SIGKILL after a grace
period, or at once when another stop signal comes (execute/signals.py). A stop signal or
a timeout never kills commscope itself: the caller learns why the program was stopped
and keeps what it measured. Every program carries a tag of its own in its environment
(TAG_VARIABLE), which what it starts inherits: a child that left the group and its
parent (`setsid`, then the parent exits) is still found and stopped, and `run_program`
stops what a program leaves running when it ends.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from commscope.errors import CommscopeError
from commscope.execute.signals import StopSignals

POLL_SECONDS = 0.2
TERMINATE_GRACE_SECONDS = 5.0


#: Set in the environment of every program started here, to a value of its own: every
#: process it starts inherits it, also one that left the program's group and session
#: (`setsid`) and outlived it, so stopping the program finds them all (`tagged`).
TAG_VARIABLE = "COMMSCOPE_PROGRAM"
_started = itertools.count(1)


def start(
    argv: Sequence[str],
    stdout: IO[bytes] | None,
    stderr: IO[bytes] | None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    stdin: IO[bytes] | None = None,
    file_limit: int | None = None,
) -> subprocess.Popen:
    """Start a program in a process group of its own, its output into the given files (None:
    this process's own), its input from `stdin` (a file; default: nothing). `file_limit`:
    the most bytes it may write to any file (RLIMIT_FSIZE), its output files among them: a
    program that floods is stopped by the kernel there, not by a look after the fact."""
    tag = f"{os.getpid()}.{next(_started)}.{time.monotonic_ns()}"

    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    try:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env={**os.environ, **(env or {}), TAG_VARIABLE: tag},
            stdin=stdin if stdin is not None else subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=limit_files if file_limit is not None else None,
        )
    except OSError as exc:
        raise CommscopeError(f"cannot start {argv[0]}: {exc.strerror}") from exc
    process.commscope_tag = tag
    return process


def _processes() -> dict[int, tuple[str, int, int]]:
    """Every process's (state, parent, process group), from /proc."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # it just ended
        state, parent, group = text[text.rindex(")") + 2 :].split()[:3]
        found[int(stat.parent.name)] = (state, int(parent), int(group))
    return found


def group_alive(group: int) -> bool:
    """Whether a process of the group still runs. Zombies do not count: ranks orphaned
    by their launcher wait for init to reap them, which can take a while in containers."""
    if not Path("/proc").is_dir():
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        return True
    return any(group == process_group and state != "Z" for state, _, process_group in _processes().values())


def tagged(process: subprocess.Popen) -> set[int]:
    """The live processes that carry the program's tag (TAG_VARIABLE) in their environment:
    the program and all it started, wherever they went. Only processes of this user can be
    read, which are the only ones it could have started."""
    tag = getattr(process, "commscope_tag", None)
    if tag is None or not Path("/proc").is_dir():
        return set()
    marker = f"{TAG_VARIABLE}={tag}".encode() + b"\0"
    found = set()
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if marker in environ.read_bytes() and _state(int(environ.parent.name)) not in (None, "Z"):
                found.add(int(environ.parent.name))
        except OSError:
            continue  # it ended, or is not ours to read
    return found


def _state(pid: int) -> str | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()[0]


def _descendants(leader: int, known: set[int]) -> set[int]:
    """`known` and every live process below `leader` now: fio's job processes each start a
    session of their own, which the group's signal does not reach, and outlive a killed
    parent (orphans of init, waiting for it forever)."""
    processes = _processes() if Path("/proc").is_dir() else {}
    children: dict[int, list[int]] = {}
    for pid, (_, parent, _) in processes.items():
        children.setdefault(parent, []).append(pid)
    found, below = set(known), [leader]
    while below:
        for child in children.get(below.pop(), []):
            if child not in found:
                found.add(child)
                below.append(child)
    return {pid for pid in found if pid in processes and processes[pid][0] != "Z"}


def terminate(process: subprocess.Popen, signals: StopSignals) -> None:
    """Stop the program, every process of its group and every process below it: SIGTERM,
    then SIGKILL after a grace period, or at once when another stop signal comes."""
    signals_seen = len(signals.received)
    strays: set[int] = set()
    for signum in (signal.SIGTERM, signal.SIGKILL):
        # the program itself gets the group's signal only: mpirun takes a second SIGTERM as
        # "abort now" and leaves its session folder behind
        strays = _descendants(process.pid, strays | (tagged(process) - {process.pid}))
        try:
            os.killpg(process.pid, signum)
        except ProcessLookupError:
            pass
        for pid in strays:
            try:
                os.kill(pid, signum)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + TERMINATE_GRACE_SECONDS
        while time.monotonic() < deadline and len(signals.received) == signals_seen:
            strays = _descendants(process.pid, strays)  # an orphan stays known once seen
            if process.poll() is not None and not group_alive(process.pid) and not strays:
                return
            time.sleep(POLL_SECONDS / 4)
    process.wait()


@contextmanager
def exit_waiter(process: subprocess.Popen) -> Iterator[Callable[[float], bool]]:
    """Yields a function that waits up to N seconds for the process to end and says whether
    it did. On Linux it sleeps on a pidfd, which wakes it the moment the program exits:
    subprocess's own timed wait polls with sleeps growing to 50 ms, a delay a short
    benchmark would notice."""
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):  # not Linux, or a kernel older than 5.3
        pidfd = None
    else:
        exited = select.poll()
        exited.register(pidfd, select.POLLIN)  # readable once the process has ended

    def ended_within(seconds: float) -> bool:
        if pidfd is None:
            try:
                process.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                return False
            return True
        exited.poll(seconds * 1000)
        return process.poll() is not None

    try:
        yield ended_within
    finally:
        if pidfd is not None:
            os.close(pidfd)


def signal_name(returncode: int) -> str | None:
    """The signal that ended a program: a negative status for the process itself, or
    128 + signal as launchers and shells report a rank killed by a signal."""
    number = -returncode if returncode < 0 else returncode - 128
    try:
        return signal.Signals(number).name if number > 0 else None
    except ValueError:
        return None


#: How a stop reason begins when the program ran out of its time (--timeout).
TIMED_OUT = "timed out after"


def stop_reason(signals: StopSignals, deadline: float | None, timeout: float | None) -> str | None:
    """Why a program that still runs must be stopped now: a stop signal came, or its time is up."""
    if signals.received:
        return f"interrupted by {signals.received[0]}"
    if deadline is not None and time.monotonic() > deadline:
        return f"{TIMED_OUT} {timeout:g} s"
    return None


@dataclass
class Finished:
    """How a program ended: status, output, and why it was stopped early (None if it was not).
    `stdout` is None when the program wrote more than the caller's limit."""

    returncode: int
    stdout: bytes | None
    stderr: bytes
    seconds: float
    stopped: str | None = None

    def stderr_tail(self, lines: int = 10) -> str:
        return "\n".join(self.stderr.decode(errors="replace").strip().splitlines()[-lines:])


#: Scans of /proc for what a program left running: a process in the middle of an exec (or
#: of starting another) can be unreadable to one scan, so they go on until one finds none.
LEFTOVER_SCANS = 5


def stop_leftovers(process: subprocess.Popen) -> None:
    """Kill what the ended program left running (a child in the background, one that
    started a session of its own): nothing a program started outlives its run."""
    for scan in range(LEFTOVER_SCANS):
        found = tagged(process)
        if not found and scan:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)


def _tail(handle: IO[bytes], limit: int) -> bytes:
    handle.seek(max(0, os.fstat(handle.fileno()).st_size - limit))
    return handle.read(limit)


def run_program(
    argv: Sequence[str],
    signals: StopSignals | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    input: bytes | None = None,
    stdout_limit: int | None = None,
    stderr_limit: int | None = None,
    file_limit: int | None = None,
) -> Finished:
    """Run a program to its end, or until `timeout` or a stop signal stops it whole (its group
    and every process below it); then stop what it left behind. `input` is its standard
    input. Its output goes to temporary files, not pipes: a pipe nobody reads while we wait
    would fill and stall it, and a process the program left holding a pipe would keep a
    reader waiting after the program ended. Output past `stdout_limit` bytes stops the
    program (Finished.stdout is then None); of its error output the last `stderr_limit`
    bytes are kept. `file_limit`: the most it may write to a file (start)."""
    signals = signals if signals is not None else StopSignals()
    begin = time.monotonic()
    deadline = begin + timeout if timeout else None
    stopped = None
    with (
        tempfile.TemporaryFile() as stdin,
        tempfile.TemporaryFile() as stdout,
        tempfile.TemporaryFile() as stderr,
    ):
        stdin.write(input or b"")
        stdin.seek(0)
        process = start(argv, stdout, stderr, env, cwd, stdin=stdin, file_limit=file_limit)
        try:
            with exit_waiter(process) as ended_within:
                while not ended_within(POLL_SECONDS):
                    stopped = stop_reason(signals, deadline, timeout)
                    if stopped is None and stdout_limit is not None and _size(stdout) > stdout_limit:
                        stopped = f"wrote more than {stdout_limit:,} bytes"
                    if stopped:
                        terminate(process, signals)
                        break
        finally:
            if process.poll() is None:  # an exception on the way: never leave it running
                terminate(process, signals)
            stop_leftovers(process)
        over = stdout_limit is not None and _size(stdout) > stdout_limit
        stdout.seek(0)
        out = None if over else stdout.read()
        err = _tail(stderr, stderr_limit) if stderr_limit is not None else (stderr.seek(0), stderr.read())[1]
        return Finished(process.returncode, out, err, time.monotonic() - begin, stopped)


def run_attached(argv: Sequence[str], signals: StopSignals | None = None, timeout: float | None = None) -> int:
    """A program whose output is this process's own (a terminal, a job's log), run to its end
    in a group of its own, or until `timeout` or a stop signal of `signals` stops it whole;
    what it leaves running is stopped too. Its exit status."""
    signals = signals if signals is not None else StopSignals()
    deadline = time.monotonic() + timeout if timeout else None
    for stream in (sys.stdout, sys.stderr):  # what was said before it comes before it
        stream.flush()
    process = start(argv, None, None)
    try:
        with exit_waiter(process) as ended_within:
            while not ended_within(POLL_SECONDS):
                if stop_reason(signals, deadline, timeout):
                    terminate(process, signals)
                    break
    finally:
        if process.poll() is None:
            terminate(process, signals)
        stop_leftovers(process)
    return process.returncode


def _size(handle: IO[bytes]) -> int:
    return os.fstat(handle.fileno()).st_size


class NoAnswer(CommscopeError):
    """A command that did not answer within its time."""


#: The most a command's answer is read (Slurm's clients, crontab): `scontrol show node` of
#: 10,000 nodes is some 20 MB; more is no answer but a flood, stopped there.
ANSWER_LIMIT = 64 * 2**20
#: How much of a command's error output is kept: its end, where the reason is.
ERROR_TAIL = 64 * 2**10


def run_command(
    argv: Sequence[str],
    timeout: float | None,
    signals: StopSignals | None = None,
    input: bytes | None = None,
    cwd: Path | None = None,
    limit: int = ANSWER_LIMIT,
    name: str | None = None,
) -> Finished:
    """A command whose answer commscope reads (Slurm's clients, crontab), run to its end by
    run_program: its output read up to `limit` bytes, the end of its error output kept, as
    bytes (the caller decodes: a byte that is not UTF-8 is no traceback). One that does not
    answer within `timeout` (None: no limit) is a NoAnswer, one that floods a CommscopeError, each naming it;
    one that a stop signal of `signals` ended comes back with `stopped` saying so (None:
    only the timeout stops it, so that what cleans up after a stop is not stopped by it).
    `name`: the command as messages say it (default: its first words)."""
    shown = name or " ".join(argv[:3])
    done = run_program(
        argv,
        signals,
        cwd,
        timeout=timeout,
        input=input,
        stdout_limit=limit,
        stderr_limit=ERROR_TAIL,
        file_limit=limit + 1,  # one byte more than is read: a flood is told from an answer of `limit`
    )
    if done.stopped and done.stopped.startswith(TIMED_OUT):
        raise NoAnswer(f"`{shown}` did not answer within {timeout:g} s")
    if done.stdout is None:
        raise CommscopeError(f"`{shown}` answered more than {limit:,} bytes, which is no answer; stopped it")
    return done
