"""Running the programs of other projects (hpcc, xhpl, fio, wrappers): finding them with a
message naming the Debian package, starting them in their own process group so a
timeout or Ctrl-C takes down every process they started, and what ldd says they use."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from commscope.errors import EXIT_INTERRUPTED, CommscopeError, UsageError

TERMINATE_GRACE_SECONDS = 5.0


def find_program(name: str, package: str, option: str | None = None, given: str | None = None) -> Path:
    """The program to run: `given` (a path from an option) or `name` on PATH; otherwise an error
    naming the Debian package that provides it."""
    if given:
        path = Path(given).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise UsageError(f"{option or name}: {given} is not an executable file")
        return path.absolute()
    found = shutil.which(name)
    if found is None:
        hint = f", or give its path with {option}" if option else ""
        raise CommscopeError(
            f"{name} not found on PATH: install the Debian package {package} (apt-get install {package}){hint}"
        )
    return Path(found)


def shared_libraries(program: Path) -> dict[str, str]:
    """ldd's view of a program: library name -> resolved path ({} without ldd or for static programs)."""
    try:
        done = subprocess.run(
            ["ldd", str(program)], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    libraries = {}
    for line in done.stdout.splitlines():
        match = re.match(r"^\s*(\S+)\s+=>\s+(\S+)", line)
        if match and match.group(2) != "not":
            libraries[match.group(1)] = match.group(2)
    return libraries


def debian_package_of(path: str) -> str | None:
    """The Debian package owning a file (dpkg -S on its real path), or None."""
    real = os.path.realpath(path)
    try:
        done = subprocess.run(
            ["dpkg", "-S", real], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = done.stdout.splitlines()[:1]
    return first[0].split(":")[0] if done.returncode == 0 and first else None


@dataclass
class Finished:
    """How a program ended: status, output, and why it was stopped early (None if it was not)."""

    returncode: int
    stdout: bytes
    stderr: bytes
    seconds: float
    stopped: str | None = None

    def stderr_tail(self, lines: int = 10) -> str:
        return "\n".join(self.stderr.decode(errors="replace").strip().splitlines()[-lines:])


class Interrupted(CommscopeError):
    exit_code = EXIT_INTERRUPTED


def _stop_group(process: subprocess.Popen) -> None:
    """SIGTERM to the program's whole process group (launchers, ranks), SIGKILL after a grace period."""
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, signum)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=TERMINATE_GRACE_SECONDS)
            return
        except subprocess.TimeoutExpired:
            continue


def run_program(
    argv: Sequence[str], cwd: Path | None = None, env: Mapping[str, str] | None = None, timeout: float | None = None
) -> Finished:
    """Run a program to its end (or `timeout`), its output captured. Ctrl-C stops its whole
    process group and is raised again as KeyboardInterrupt, so callers clean up in `finally`."""
    begin = time.monotonic()
    try:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise CommscopeError(f"cannot start {argv[0]}: {exc.strerror}") from exc
    stopped = None
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop_group(process)
        stdout, stderr = process.communicate()
        stopped = f"timed out after {timeout:g} s"
    except KeyboardInterrupt:
        _stop_group(process)
        raise
    return Finished(process.returncode, stdout, stderr, time.monotonic() - begin, stopped)


def memory_bytes() -> int:
    """This machine's memory (MemTotal)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None
