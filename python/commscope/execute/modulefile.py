"""Environment modules for an installed commscope: `commscope modulefile`.

One modulefile puts the installation's bin/ (commscope, commscope-bench) and its folder
of osu_* compatibility programs on PATH, so that `module load commscope` is all a job
script written for the OSU Micro-Benchmarks needs. Tcl is read by Environment Modules
and by Lmod; Lua by Lmod only.
"""

from __future__ import annotations

import glob
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from commscope import __version__

COMPAT = Path("libexec") / "commscope" / "compat"
FORMATS = ("tcl", "lua")

_WHAT = "commscope: MPI communication benchmarks, an OSU Micro-Benchmarks successor"
_HELP = (
    "commscope-bench measures MPI latency, bandwidth and collectives; commscope runs it, stores and "
    "compares results. osu_latency, osu_bw, ... run the matching commscope benchmark, so job scripts "
    "written for the OSU Micro-Benchmarks work unchanged."
)


@dataclass(frozen=True)
class Layout:
    """What the modulefile adds to the environment, for one installation prefix."""

    prefix: Path
    python_path: Path | None  # site-packages to add when the prefix is not a virtual environment

    @property
    def paths(self) -> list[Path]:
        """PATH entries in the order they are prepended: the last one ends up first."""
        return [self.prefix / COMPAT, self.prefix / "bin"]

    def missing(self) -> list[Path]:
        wanted = [
            self.prefix / "bin" / "commscope",
            self.prefix / "bin" / "commscope-bench",
            self.prefix / COMPAT / "osu_latency",
        ]
        return [path for path in wanted if not path.exists()]


def layout(prefix: Path) -> Layout:
    """A virtual environment (`python -m venv PREFIX; PREFIX/bin/pip install .`) needs PATH
    alone; `pip install --prefix PREFIX .` also needs its site-packages on PYTHONPATH."""
    prefix = prefix.absolute()
    python_path = None
    if not (prefix / "pyvenv.cfg").exists():
        found = sorted(glob.glob(str(prefix / "lib" / "python3*" / "site-packages" / "commscope")))
        python_path = Path(found[-1]).parent if found else None
    return Layout(prefix, python_path)


def _tcl_quote(text: str) -> str:
    """A Tcl word that is `text` and nothing else: double quotes with every character Tcl
    substitutes or ends a word at escaped, control characters as \\uNNNN (always 4 digits,
    where \\x's digit count changed between Tcl releases). Braces would keep a backslash
    before an unbalanced brace as part of the text."""
    return '"' + re.sub(r'[\\"$\[\]{}\x00-\x1f\x7f]', _tcl_escape, text) + '"'


def _tcl_escape(match: re.Match[str]) -> str:
    char = match.group()
    return "\\" + char if char.isprintable() else f"\\u{ord(char):04x}"


# Lmod (8.6) reads a Tcl modulefile by running it and writing each prepend-path as a Lua
# call with the value between double quotes as it is: a quote in the value ends the Lua
# string and what follows runs as Lua. Under Lmod the value is given already escaped for
# Lua; Lmod sets ModuleTool, Environment Modules gets the value as it is.
_TCL_LMOD_PATH = r"""proc commscope_path {path} {
    global ModuleTool
    if {[info exists ModuleTool] && $ModuleTool eq "Lmod"} {
        return [string map [list \\ \\\\ \" \\\" \n \\n \r \\r] $path]
    }
    return $path
}"""


def _module(where: Layout, head: list[str], prepend: Callable[[str, Path], str]) -> str:
    """A module's text: its head, then the folders it puts first on PATH and PYTHONPATH,
    each line written by prepend(VARIABLE, folder)."""
    lines = [*head, *(prepend("PATH", path) for path in where.paths)]
    if where.python_path:
        lines.append(prepend("PYTHONPATH", where.python_path))
    return "\n".join(lines) + "\n"


def render_tcl(where: Layout) -> str:
    head = [
        "#%Module1.0",
        f"## commscope {__version__}, written by `commscope modulefile`",
        "proc ModulesHelp { } {",
        f"    puts stderr {_tcl_quote(_HELP)}",
        "}",
        f"module-whatis {_tcl_quote(f'{_WHAT} (version {__version__})')}",
        "conflict osu-micro-benchmarks",
        _TCL_LMOD_PATH,
    ]
    return _module(
        where, head, lambda variable, path: f"prepend-path {variable} [commscope_path {_tcl_quote(str(path))}]"
    )


def _lua_quote(text: str) -> str:
    """A Lua string literal that is `text`: double quotes, backslash and quote escaped, control
    characters as decimal \\ddd. A long bracket [==[...]==] ends at the first ]==] in the text."""
    return '"' + re.sub(r'[\\"\x00-\x1f\x7f]', _lua_escape, text) + '"'


def _lua_escape(match: re.Match[str]) -> str:
    char = match.group()
    return "\\" + char if char.isprintable() else f"\\{ord(char):03d}"


def render_lua(where: Layout) -> str:
    head = [
        f"-- commscope {__version__}, written by `commscope modulefile`",
        f"help({_lua_quote(_HELP)})",
        f"whatis({_lua_quote(f'{_WHAT} (version {__version__})')})",
        'conflict("osu-micro-benchmarks")',
    ]
    return _module(where, head, lambda variable, path: f'prepend_path("{variable}", {_lua_quote(str(path))})')


RENDERERS = {"tcl": render_tcl, "lua": render_lua}


def format_for(output: Path | None, chosen: str | None) -> str:
    """The format asked for, else Lua for a FILE.lua, else Tcl (which both module systems read)."""
    if chosen:
        return chosen
    return "lua" if output is not None and output.suffix == ".lua" else "tcl"
