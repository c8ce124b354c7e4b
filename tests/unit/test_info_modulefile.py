"""`commscope info` and `commscope modulefile` without installing anything: the repository's
MPICH build and hand-made prefixes (test_install.py installs for real)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mpi_flavours import load_flavours


@pytest.fixture
def mpich_core(clean_env):
    flavours = load_flavours()
    if "mpich" not in flavours:
        pytest.skip("needs the MPICH build of commscope-bench (make flavours)")
    clean_env.setenv("COMMSCOPE_BENCH", str(flavours["mpich"].bench))
    return flavours["mpich"]


def test_info_names_the_core_its_mpi_and_the_compat_folder(cli, mpich_core):
    result = cli("info")
    assert result.exit_code == 0, result.output
    assert f"core     {mpich_core.bench}" in result.stdout
    assert "MPI library: MPICH Version:" in result.stdout
    assert f"export PATH={mpich_core.compat.resolve()}:$PATH" in result.stdout
    facts = json.loads(cli("info", "--format", "json").stdout)
    assert facts["core_version"][0].startswith("# commscope-bench v")
    assert "osu_latency" in facts["compat_programs"] and "osu_put_latency" in facts["compat_programs"]
    assert cli("info", "--compat").stdout == f"{mpich_core.compat.resolve()}\n"


def test_info_of_a_core_without_compat_folder(cli, mpich_core, tmp_path, clean_env):
    lone = tmp_path / "bin" / "commscope-bench"
    lone.parent.mkdir()
    lone.symlink_to(mpich_core.bench)
    clean_env.setenv("COMMSCOPE_BENCH", str(lone))
    assert "compat   none beside this core" in cli("info").stdout
    result = cli("info", "--compat")
    assert result.exit_code == 1 and "has no folder of osu_* programs" in result.stderr


def _prefix(tmp_path: Path, venv: bool) -> Path:
    prefix = tmp_path / "prefix"
    for path in ("bin/commscope", "bin/commscope-bench", "libexec/commscope/compat/osu_latency"):
        (prefix / path).parent.mkdir(parents=True, exist_ok=True)
        (prefix / path).write_text("")
    if venv:
        (prefix / "pyvenv.cfg").write_text("home = /usr/bin\n")
    else:
        (prefix / "lib" / "python3.11" / "site-packages" / "commscope").mkdir(parents=True)
    return prefix


def test_tcl_and_lua_modulefiles_of_a_virtual_environment(cli, tmp_path):
    prefix = _prefix(tmp_path, venv=True)
    tcl = cli("modulefile", "--prefix", prefix).stdout
    assert tcl.startswith("#%Module1.0\n") and "conflict osu-micro-benchmarks" in tcl
    assert tcl.index(f'prepend-path PATH [commscope_path "{prefix}/libexec/commscope/compat"]') < tcl.index(
        f'prepend-path PATH [commscope_path "{prefix}/bin"]'
    )  # bin ends up first on PATH
    assert "PYTHONPATH" not in tcl
    out = tmp_path / "modules" / "commscope" / "0.1.0.lua"
    result = cli("modulefile", "--prefix", prefix, "--output", out)
    assert result.exit_code == 0 and f"wrote {out}" in result.stderr
    assert f'prepend_path("PATH", "{prefix}/bin")' in out.read_text()


def test_a_pip_prefix_install_also_needs_its_site_packages(cli, tmp_path):
    prefix = _prefix(tmp_path, venv=False)
    text = cli("modulefile", "--prefix", prefix, "--format", "lua").stdout
    assert f'prepend_path("PYTHONPATH", "{prefix}/lib/python3.11/site-packages")' in text


def test_a_prefix_without_commscope_is_warned_about(cli, tmp_path):
    result = cli("modulefile", "--prefix", tmp_path / "empty")
    assert result.exit_code == 0 and "commscope-bench does not exist (yet)" in result.stderr


def test_an_output_that_cannot_be_written_is_a_usage_error(cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = cli("modulefile", "--prefix", _prefix(tmp_path, venv=True), "--output", blocker / "x" / "commscope")
    assert result.exit_code == 2 and "cannot write" in result.stderr and "Traceback" not in result.output


def test_the_easyconfig_is_for_this_version():
    """contrib/easybuild's file name and version follow commscope/__init__.py."""
    from commscope import __version__
    from paths import REPO

    easyconfig = REPO / "contrib" / "easybuild" / f"commscope-{__version__}.eb"
    assert f"version = '{__version__}'" in easyconfig.read_text()


LMOD_INIT = Path("/usr/share/lmod/lmod/init/bash")


def _load_with_lmod(module_dir: Path, tmp_path: Path) -> tuple[list[str], subprocess.CompletedProcess]:
    """PATH after `module load commscope` under Debian's Lmod, and the shell's result."""
    script = f'source {LMOD_INIT}\nmodule use {module_dir}\nmodule load commscope\nprintf "%s" "$PATH"\n'
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        cwd=tmp_path,
        timeout=60,
    )
    return done.stdout.split(":"), done


HOSTILE_PREFIXES = [
    '/x]==]..os.execute("touch PWNED")..[==[',
    '/x]]..os.execute("touch PWNED")..[[',
    '/x"..os.execute("touch PWNED").."',
    "/x{a}b",
    "/x}b",
    "/x{b",
    '/x"b',
    "/x\\b\\",
    "/x[exec touch PWNED]$HOME",
    "/x $(touch PWNED) `touch PWNED` 'b",
]


@pytest.mark.parametrize("fmt", ["lua", "tcl"])
@pytest.mark.parametrize("prefix", HOSTILE_PREFIXES, ids=range(len(HOSTILE_PREFIXES)))
def test_a_prefix_with_quotes_or_brackets_loads_as_written(cli, tmp_path, fmt, prefix):
    """The prefix is data in either language: Lmod loads the module, puts exactly that
    prefix's folders first on PATH and runs nothing written in it."""
    if not LMOD_INIT.exists():
        pytest.skip("Lmod is not installed (apt-get install lmod)")
    module_dir = tmp_path / "modulefiles"
    name = "0.1.0.lua" if fmt == "lua" else "0.1.0"
    result = cli("modulefile", "--prefix", prefix, "--format", fmt, "--output", module_dir / "commscope" / name)
    assert result.exit_code == 0, result.output
    path, done = _load_with_lmod(module_dir, tmp_path)
    assert not (tmp_path / "PWNED").exists()
    assert path[:2] == [f"{prefix}/bin", f"{prefix}/libexec/commscope/compat"], done.stderr


@pytest.mark.parametrize("prefix", ["/x\ntouch PWNED", "/x\rb", "/x:/y"])
def test_a_prefix_that_path_cannot_hold_is_a_usage_error(cli, prefix):
    """A newline reaches the shell code Lmod writes unquoted (a line of it runs as a
    command); a colon splits the folder into two PATH entries."""
    result = cli("modulefile", "--prefix", prefix)
    assert result.exit_code == 2 and "--prefix" in result.stderr and "Traceback" not in result.output
    assert result.stdout == ""
