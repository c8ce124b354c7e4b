"""scripts/find-mpi: the MPI that `make build` and `make run` use.

CMake takes a compiler only by full path (or a bare name found on PATH), so every path
find-mpi prints must be absolute, also when it is given a relative virtual environment
or PATH holds a relative folder. The MPI-from-PyPI branch is exercised with a virtual
environment whose bin/ holds Debian's MPICH programs, so no network is needed; there
find-mpi writes the launcher commscope-mpiexec (the wheel's mpiexec with ranks that
busy-poll, see scripts/no-yield.c).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from mpi_flavours import shell_rank
from paths import REPO

FIND_MPI = REPO / "scripts" / "find-mpi"
MPICH_CC = shutil.which("mpicc.mpich")
MPICH_EXEC = shutil.which("mpiexec.mpich")
needs_mpich = pytest.mark.skipif(
    not (MPICH_CC and MPICH_EXEC), reason="needs Debian's MPICH (mpicc.mpich, mpiexec.mpich)"
)


def tools_without_mpi(folder: Path) -> str:
    """A PATH folder with what find-mpi needs from the system, and no MPI."""
    folder.mkdir()
    for tool in (
        "bash",
        "sh",
        "env",
        "realpath",
        "readlink",
        "dirname",
        "cat",
        "chmod",
        "mv",
        "cc",
        "gcc",
        "as",
        "ld",
        "grep",
        "sed",
    ):
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    return str(folder)


def find_mpi(venv: str, path: str, cwd: Path) -> list[str]:
    done = subprocess.run(
        [str(FIND_MPI), venv], cwd=cwd, env={**os.environ, "PATH": path}, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    words = done.stdout.split()
    assert len(words) == 2, done.stdout
    return words


@needs_mpich
def test_mpi_on_a_relative_path_entry_is_printed_absolute(tmp_path):
    (tmp_path / "mpi").mkdir()
    (tmp_path / "mpi" / "mpicc").symlink_to(MPICH_CC)
    (tmp_path / "mpi" / "mpiexec").symlink_to(MPICH_EXEC)
    path = os.pathsep.join(["mpi", tools_without_mpi(tmp_path / "tools")])
    cc, launcher = find_mpi("venv", path, cwd=tmp_path)
    assert cc == str(tmp_path / "mpi" / "mpicc")
    assert launcher == "/usr/bin/mpiexec.mpich"  # matched to the library, not to the name


@needs_mpich
def test_mpi_from_the_virtual_environment_uses_its_own_launcher(tmp_path):
    venv = tmp_path / "project" / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "lib").mkdir()
    (venv / "bin" / "mpicc").symlink_to(MPICH_CC)
    (venv / "bin" / "mpiexec").symlink_to(MPICH_EXEC)
    proxy = Path(MPICH_EXEC).resolve().parent / "hydra_pmi_proxy"  # Hydra looks beside mpiexec
    if proxy.exists():
        (venv / "bin" / "hydra_pmi_proxy").symlink_to(proxy)
    # another MPI's launcher on PATH must not be taken for the environment's
    other = tmp_path / "other"
    other.mkdir()
    (other / "mpiexec").symlink_to(shutil.which("true") or "/bin/true")
    path = os.pathsep.join([str(other), tools_without_mpi(tmp_path / "tools")])
    cc, launcher = find_mpi(".venv", path, cwd=venv.parent)
    assert cc == str(venv / "bin" / "mpicc")
    assert launcher == str(venv / "bin" / "commscope-mpiexec")
    # the wrapper starts the environment's mpiexec (its --version is Hydra's) with the
    # busy-polling preload, which must define sched_yield
    version = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=60)
    assert "HYDRA" in version.stdout, version.stdout + version.stderr
    preload = venv / "lib" / "commscope-no-yield.so"
    assert f'LD_PRELOAD="{preload}' in Path(launcher).read_text()
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(preload)], capture_output=True, text=True)
    assert " T sched_yield" in symbols.stdout, symbols.stdout + symbols.stderr
    # ranks get the preload up to one per core; beyond that they keep yielding
    for ranks, expected in ((1, str(preload)), (os.cpu_count() + 1, "")):
        argv = [launcher, "-n", str(ranks), *shell_rank('echo "[$LD_PRELOAD]"')]
        shown = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert set(shown.stdout.split()) == {f"[{expected}]"}, (ranks, shown.stdout, shown.stderr)
