"""The programs of other projects (hpcc, xhpl, fio, wrappers): finding them with a message
naming the Debian package, and what they run on: ldd's libraries (BLAS, MPI), the
machine's CPU and memory. Running them is execute/process.py's job."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from commscope.errors import CommscopeError, UsageError
from commscope.execute.core import core_mpi_flavour

_BLAS_NAMES = ("libblas", "libopenblas", "libblis", "libmkl", "libatlas", "libflexiblas", "libsci")


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


def blas_provenance(program: Path) -> dict[str, str]:
    """Which BLAS the program really uses: the library ldd resolves, the Debian alternative
    it goes through (libblas.so.3 is switched by update-alternatives) and its package."""
    for name, path in shared_libraries(program).items():
        if not name.startswith(_BLAS_NAMES):
            continue
        info = {"blas_soname": name, "blas_library": os.path.realpath(path)}
        link = path
        while os.path.islink(link):  # /lib/.../libblas.so.3 -> /etc/alternatives/NAME -> the real file
            target = os.readlink(link)
            link = target if os.path.isabs(target) else os.path.join(os.path.dirname(link), target)
            if os.path.dirname(link) == "/etc/alternatives":
                info["blas_alternative"] = os.path.basename(link)
        package = debian_package_of(path)
        if package:
            info["blas_package"] = package
        return info
    return {}


def mpi_of(program: Path) -> dict[str, str]:
    flavour = core_mpi_flavour(program)
    info = {"mpi_flavour": flavour} if flavour else {}
    for name, path in shared_libraries(program).items():
        if name.startswith(("libmpi", "libmpich")):
            package = debian_package_of(path)
            info["mpi_library_file"] = os.path.realpath(path)
            if package:
                info["mpi_package"] = package
            break
    return info


def machine_provenance(program: Path) -> dict:
    return {
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "memory_bytes": memory_bytes(),
        "program": str(program),
        "program_package": debian_package_of(str(program)),
        **blas_provenance(program),
        **mpi_of(program),
    }
