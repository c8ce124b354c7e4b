"""Finding the measurement core, commscope-bench, and asking it what it offers."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
from collections.abc import Mapping
from pathlib import Path

from commscope import REPO_ROOT
from commscope.errors import CommscopeError
from commscope.execute.process import run_program

ENV_VAR = "COMMSCOPE_BENCH"
PROGRAM = "commscope-bench"
REPO_BUILD = REPO_ROOT / "build" / "default" / PROGRAM
#: Where the osu_* compatibility programs are, relative to the folder of commscope-bench:
#: an installation (pip, `cmake --install`, EasyBuild, a module) keeps them in
#: <prefix>/libexec/commscope/compat beside <prefix>/bin; a build folder in compat/.
COMPAT_PLACES = (Path("..") / "libexec" / "commscope" / "compat", Path("compat"))

OPENMPI = "openmpi"
MPICH = "mpich"

# Shared-library names that tell which MPI a binary was linked against.
# libmpi.so.12 is the MPICH ABI that Intel MPI, MVAPICH and Cray MPICH share;
# Open MPI has used libmpi.so.40 since 3.0.
_MPI_LIBRARIES = (
    (re.compile(r"\blibmpich\w*\.so"), MPICH),
    (re.compile(r"\blibmpi\.so\.12\b"), MPICH),
    (re.compile(r"\blibmpi\.so\.4\d\b|\blibopen-(?:rte|pal)\.so"), OPENMPI),
)


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def installed_core() -> Path:
    """Where `pip install .` puts commscope-bench: the scripts folder of the environment
    this harness runs in (a virtual environment's bin/, ~/.local/bin for --user)."""
    return Path(sysconfig.get_path("scripts")) / PROGRAM


def find_core(environ: Mapping[str, str] = os.environ) -> Path:
    """The commscope-bench to run: $COMMSCOPE_BENCH, then the one installed with this
    harness, then PATH, then the repository build."""
    explicit = environ.get(ENV_VAR)
    if explicit:
        path = Path(explicit).expanduser()
        if not _is_executable(path):
            raise CommscopeError(f"{ENV_VAR}={explicit} is not an executable file")
        return path.absolute()
    if _is_executable(installed_core()):
        return installed_core()
    on_path = shutil.which(PROGRAM, path=environ.get("PATH"))
    if on_path:
        return Path(on_path)
    if _is_executable(REPO_BUILD):
        return REPO_BUILD
    raise CommscopeError(
        f"{PROGRAM} (the measurement core) was not found: not in ${ENV_VAR}, not installed with "
        f"the harness ({installed_core()}), not on PATH, not at {REPO_BUILD}.\n"
        f"Install both with `pip install .` in the repository, build it with `make build` in {REPO_ROOT}, "
        f"or set {ENV_VAR}=/path/to/{PROGRAM}."
    )


def compat_dir(core: Path) -> Path | None:
    """The folder of osu_* programs that belongs to `core`, None if it has none."""
    for place in COMPAT_PLACES:
        folder = (core.parent / place).resolve()
        if (folder / "osu_latency").exists():
            return folder
    return None


def core_version(core: Path) -> str:
    """What `commscope-bench --version` prints: its version, commit and MPI library."""
    try:
        done = subprocess.run(
            [str(core), "--version"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CommscopeError(f"cannot run {core} --version: {exc}") from exc
    if done.returncode != 0:
        detail = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise CommscopeError(f"{core} --version failed: {detail[0]}")
    return done.stdout.strip()


#: How long `commscope-bench --list` may take before the core is taken for hung: run's
#: --timeout, but at least PROBE_MIN_S (starting Python fakes or a cold file system takes
#: a moment, and --timeout is meant for the benchmark) and at most PROBE_MAX_S.
PROBE_MIN_S = 10.0
PROBE_MAX_S = 60.0
#: The most a `--list` answer may hold (a few KB in truth).
LIST_LIMIT_BYTES = 1 << 20


def list_benchmarks(core: Path, timeout: float | None = None) -> dict[str, str]:
    """Benchmark name -> one-line description, from `commscope-bench --list`, which must
    answer in time (see PROBE_MIN_S); execute/process runs it and stops it whole if it hangs."""
    limit = min(max(timeout or PROBE_MAX_S, PROBE_MIN_S), PROBE_MAX_S)
    done = run_program([str(core), "--list"], timeout=limit, stdout_limit=LIST_LIMIT_BYTES)
    if done.stopped is not None and done.stdout is not None:
        raise CommscopeError(
            f"{core} --list did not answer within {limit:g} s, so nothing was run: is the "
            "core hanging at start-up (its MPI library, a file system)?"
        )
    if done.stdout is None:
        raise CommscopeError(f"{core} --list printed more than {LIST_LIMIT_BYTES:,} bytes: is it commscope-bench?")
    if done.returncode != 0:
        detail = done.stderr_tail(1) or f"exit status {done.returncode}"
        raise CommscopeError(f"{core} --list failed: {detail}")
    benchmarks = {}
    for line in done.stdout.decode(errors="replace").splitlines():
        name, _, description = line.strip().partition(" ")
        if name:
            benchmarks[name] = description.strip()
    return benchmarks


def core_mpi_flavour(core: Path) -> str | None:
    """ "openmpi" or "mpich" from the libraries the core links against; None if unknown
    (static build, no ldd, or a script standing in for the core)."""
    try:
        done = subprocess.run(["ldd", str(core)], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for pattern, flavour in _MPI_LIBRARIES:
        if pattern.search(done.stdout):
            return flavour
    return None
