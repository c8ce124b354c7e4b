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
import subprocess
import sys

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


def _loaded_by(module: str) -> set[str]:
    """The modules a fresh interpreter holds once `module` is imported."""
    done = subprocess.run(
        [sys.executable, "-c", f"import sys, json, {module}\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(done.stdout))


def deferring_nothing(source: str, loaded: set[str]) -> list[str]:
    """The imports inside functions of `source` whose every module `loaded` holds already."""
    return [
        f"{node.lineno} imports {', '.join(_modules_named(node))}"
        for node in _imports_in_functions(ast.parse(source))
        if all(name in loaded for name in _modules_named(node))
    ]


@pytest.mark.slow  # an interpreter per module that imports in a function
def test_every_import_inside_a_function_defers_a_module():
    at_start = _loaded_by("commscope.cli.main")
    found = []
    for path in _modules():
        if not _imports_in_functions(ast.parse(path.read_text())):
            continue
        top = path.relative_to(PACKAGE).parts[0]
        loaded = at_start if top in ("cli", "reframe") else _loaded_by(_module_name(path))
        found += [f"{path.relative_to(PACKAGE)}:{line}" for line in deferring_nothing(path.read_text(), loaded)]
    assert not found, "imports that defer nothing: move them to the top of their module\n" + "\n".join(found)


def test_an_import_that_defers_nothing_is_found():
    source = "import dataclasses\n\n\ndef later():\n    import dataclasses\n    import http.server\n"
    assert deferring_nothing(source, {"dataclasses"}) == ["5 imports dataclasses"]
