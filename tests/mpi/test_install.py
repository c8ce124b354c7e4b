"""`pip install .` from the repository root into a fresh virtual environment builds the
core and installs it with the harness and the osu_* programs: against the MPI on PATH,
and, with no mpicc on PATH, against the mpich wheel it then depends on. The environment
module `commscope modulefile` writes puts the installation on PATH under Debian's Lmod.

Each pip build compiles the core (a minute or two on two cores): marked slow; the module
tests reuse the first installation."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from commands import FEW_ITERATIONS
from paths import REPO

pytestmark = pytest.mark.slow
LMOD_INIT = Path("/usr/share/lmod/lmod/init/bash")
MPI_NAMES = re.compile(r"^(mpi|orte|opal|ompi|oshcc|oshrun|shmem)")


def _run(argv, env=None, timeout=900, cwd=None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(arg) for arg in argv], capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)
    assert done.returncode == 0, f"{argv}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _install(venv: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    _run([sys.executable, "-m", "venv", venv])
    # --no-compile: byte-compiling numpy's, scipy's and matplotlib's sources is a third of
    # the install's time and says nothing about the installation
    return _run([venv / "bin" / "pip", "install", "--quiet", "--no-compile", REPO], env=env)


def _info(venv: Path, env: dict[str, str]) -> dict:
    return json.loads(_run([venv / "bin" / "commscope", "info", "--format", "json"], env=env, cwd=venv).stdout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """commscope pip-installed against the MPI on PATH."""
    if shutil.which("mpicc") is None:
        pytest.skip("no mpicc on PATH")
    venv = tmp_path_factory.mktemp("pip") / "venv"
    env = {key: value for key, value in os.environ.items() if key not in ("MPICC", "COMMSCOPE_BENCH")}
    _install(venv, env)
    return venv


def test_pip_install_builds_the_core_with_the_mpi_on_path(installed, tmp_path):
    env = {key: value for key, value in os.environ.items() if key != "COMMSCOPE_BENCH"}
    info = _info(installed, env)
    assert info["core"] == str(installed / "bin" / "commscope-bench")
    assert info["compat"] == str(installed / "libexec" / "commscope" / "compat")
    assert "osu_latency" in info["compat_programs"] and "osu_allreduce" in info["compat_programs"]
    wrapper = Path(info["compat"]) / "osu_latency"
    assert wrapper.is_file() and not wrapper.is_symlink() and os.access(wrapper, os.X_OK)
    # the MPI the core says it runs with is the one mpicc on PATH belongs to
    shown = _run(["mpicc", "-show"]).stdout.lower()
    library = info["core_version"][1]
    assert library.startswith("# MPI library: ")
    assert ("open mpi" in library.lower()) == ("openmpi" in shown or "open-mpi" in shown), (library, shown)
    requires = _run([installed / "bin" / "pip", "show", "commscope"]).stdout
    assert "mpich" not in requires.split("Requires:")[1].splitlines()[0]
    # the harness runs the installed core and stores the run
    db = tmp_path / "results.db"
    _run(
        [
            installed / "bin" / "commscope",
            "run",
            "latency",
            "--np",
            "2",
            "--db",
            db,
            "--",
            "-m",
            "1:8",
            *FEW_ITERATIONS,
        ],
        env=env,
        timeout=300,
    )
    assert "latency" in _run([installed / "bin" / "commscope", "list", "runs", "--db", db]).stdout


def _module_shell(module_dir: Path, commands: str) -> str:
    script = f"source {LMOD_INIT}\nmodule use {module_dir}\nmodule load commscope\n{commands}\n"
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root")}
    return _run(["bash", "--noprofile", "--norc", "-c", script], env=env).stdout


@pytest.mark.parametrize("name", ["0.1.0.lua", "0.1.0"])
def test_module_load_puts_the_installation_on_path(installed, tmp_path, name):
    """Lua (Lmod) and Tcl (Lmod and Environment Modules) modulefiles, loaded by Debian's Lmod."""
    if not LMOD_INIT.exists():
        if os.environ.get("COMMSCOPE_REQUIRE_LMOD"):
            pytest.fail(f"COMMSCOPE_REQUIRE_LMOD is set but {LMOD_INIT} does not exist")
        pytest.skip("Lmod is not installed (apt-get install lmod)")
    module_dir = tmp_path / "modulefiles"
    _run(
        [
            installed / "bin" / "commscope",
            "modulefile",
            "--prefix",
            installed,
            "--output",
            module_dir / "commscope" / name,
        ]
    )
    text = (module_dir / "commscope" / name).read_text()
    assert ("prepend_path(" in text) == name.endswith(".lua") and "PYTHONPATH" not in text
    found = _module_shell(module_dir, "which osu_latency commscope commscope-bench").split()
    assert found == [
        str(installed / "libexec" / "commscope" / "compat" / "osu_latency"),
        str(installed / "bin" / "commscope"),
        str(installed / "bin" / "commscope-bench"),
    ]


def _path_without_mpi(tmp_path: Path) -> str:
    """This machine's programs but no MPI: links to /usr/bin's programs except mpicc & co."""
    shadow = tmp_path / "no-mpi-bin"
    shadow.mkdir()
    for program in Path("/usr/bin").iterdir():
        if not MPI_NAMES.match(program.name):
            (shadow / program.name).symlink_to(program)
    return str(shadow)


def test_pip_install_without_an_mpi_uses_the_mpich_wheel(tmp_path):
    path = _path_without_mpi(tmp_path)
    env = {key: value for key, value in os.environ.items() if key not in ("MPICC", "COMMSCOPE_BENCH")}
    env["PATH"] = path
    assert shutil.which("mpicc", path=path) is None
    venv = tmp_path / "venv"
    _install(venv, env)
    requires = _run([venv / "bin" / "pip", "show", "commscope"], env=env).stdout
    assert "mpich" in requires.split("Requires:")[1].splitlines()[0]
    env["PATH"] = f"{venv / 'bin'}:{path}"
    info = _info(venv, env)
    assert info["core_version"][1].startswith("# MPI library: MPICH")
    runpath = _run(["readelf", "-d", venv / "bin" / "commscope-bench"]).stdout
    assert "$ORIGIN/../lib" in runpath and "pip-build-env" not in runpath
    # a job script written for OMB, with the compat folder on PATH and the wheel's mpiexec
    env["PATH"] = f"{info['compat']}:{env['PATH']}"
    table = _run(["mpiexec", "-n", "2", "osu_latency", "-m", "1:8", *FEW_ITERATIONS], env=env, timeout=300).stdout
    assert "# commscope MPI Latency Test" in table and re.search(r"^8\s+\d+\.\d+$", table, re.MULTILINE)


@pytest.mark.skipif(
    not os.environ.get("COMMSCOPE_EASYBUILD"),
    reason="EasyBuild round trip (about 4-5 minutes): COMMSCOPE_EASYBUILD=1 runs it; "
    "or scripts/easybuild-check by hand",
)
def test_easybuild_builds_installs_and_the_module_loads(tmp_path):
    """scripts/easybuild-check: EasyBuild from PyPI, contrib/easybuild's easyconfig, Lmod."""
    done = _run([REPO / "scripts" / "easybuild-check", tmp_path / "eb"], timeout=1200)
    assert "easybuild-check: osu_latency -> " in done.stdout
    assert "== COMPLETED: Installation ended successfully" in done.stdout
