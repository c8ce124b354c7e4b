"""An import inside a function is there for start-up time only: it defers a module that the
module importing it does not load otherwise (numpy, matplotlib, scipy, the analysis and the
report behind a command that may not need them), so `commscope --help` and the commands
that need little start fast. One that imports what its module loads anyway defers nothing,
and belongs at the top. (Layering is no reason: test_layers.py reads imports wherever they
are written, and forbids a cycle even through a function.) For cli/, what "loads anyway"
means is what `commscope` loads before any command runs (cli.main)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from test_layers import PACKAGE, _is_module, _module_name, _modules


def _imports_in_functions(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    return [
        node
        for function in ast.walk(tree)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(function)
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]


def _modules_named(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import loads: `from a import b` loads a, and a.b where b is a module."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    found = [node.module or ""]
    return found + [f"{node.module}.{alias.name}" for alias in node.names if _is_module(f"{node.module}.{alias.name}")]


#: A fresh interpreter for each module, as many times cheaper: it imports a module's
#: packages once, each in its own process, and forks one child per module or package below
#: it. `import a.b.c` loads a, then a.b, then a.b.c, so a child forked where a.b is loaded
#: ends as a fresh interpreter importing a.b.c would (sys, json and os loaded at start).
_FORK_TREE = """
import sys, json, os

wanted, folder = set(json.loads(sys.argv[1])), sys.argv[2]
below = {}
for name in wanted:
    parts = name.split(".")
    for k in range(len(parts)):
        below.setdefault(".".join(parts[:k]), set()).add(".".join(parts[: k + 1]))


def visit(name):
    if name in wanted:
        with open(os.path.join(folder, name), "w") as out:
            json.dump(sorted(sys.modules), out)
    for child in sorted(below.get(name, ())):
        pid = os.fork()
        if pid == 0:
            try:
                __import__(child)
                visit(child)
            except BaseException:
                import traceback

                traceback.print_exc()
                os._exit(1)
            os._exit(0)
        if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0:
            sys.exit(f"importing {child} failed")


visit("")
"""


def _loaded_by(modules: list[str]) -> dict[str, set[str]]:
    """The modules a fresh interpreter holds once one of `modules` is imported, for each."""
    with tempfile.TemporaryDirectory() as folder:
        # one thread per library that would start a pool at import (numpy's BLAS): a fork
        # copies only the thread that forks, and a pool's lock held by another would stay held
        single = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        done = subprocess.run(
            [sys.executable, "-c", _FORK_TREE, json.dumps(modules), folder], capture_output=True, text=True, env=single
        )
        assert done.returncode == 0, done.stderr
        return {module: set(json.loads(Path(folder, module).read_text())) for module in modules}


def deferring_nothing(source: str, loaded: set[str]) -> list[str]:
    """The imports inside functions of `source` whose every module `loaded` holds already."""
    return [
        f"{node.lineno} imports {', '.join(_modules_named(node))}"
        for node in _imports_in_functions(ast.parse(source))
        if all(name in loaded for name in _modules_named(node))
    ]


@pytest.mark.slow  # an interpreter (a fork, see _FORK_TREE) per module that imports in a function
def test_every_import_inside_a_function_defers_a_module():
    searched = [path for path in _modules() if _imports_in_functions(ast.parse(path.read_text()))]
    at_start = "commscope.cli.main"
    each = [
        at_start if path.relative_to(PACKAGE).parts[0] in ("cli", "reframe") else _module_name(path)
        for path in searched
    ]
    loaded = _loaded_by(sorted(set(each)))
    found = []
    for path, module in zip(searched, each):
        found += [f"{path.relative_to(PACKAGE)}:{line}" for line in deferring_nothing(path.read_text(), loaded[module])]
    assert not found, "imports that defer nothing: move them to the top of their module\n" + "\n".join(found)


def test_an_import_that_defers_nothing_is_found():
    source = "import dataclasses\n\n\ndef later():\n    import dataclasses\n    import http.server\n"
    assert deferring_nothing(source, {"dataclasses"}) == ["5 imports dataclasses"]
