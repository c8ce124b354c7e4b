"""The package's parts and their direction of use: a module imports only from its own part
or from parts below it, so the folder tree shows the architecture (docs/architecture.md).
Siblings on one level (cluster and sweep) never import each other."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from paths import REPO

PACKAGE = REPO / "python" / "commscope"

#: Top to bottom; parts in one tuple are siblings.
LAYERS = (
    ("cli", "reframe"),  # reframe: ReFrame tests of commscope, a user of every part like the CLI
    ("cluster", "sweep"),
    ("output",),
    ("analysis",),
    ("execute",),
    ("ingest",),  # execute reads what hpcc and fio wrote with import's own readers
    ("store",),
    ("records",),
)
#: Leaf modules every part may use.
SHARED = {"errors", "settings", "ui", "__init__", "__main__", "__version__"}


def _part(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "commscope" else None


def _level(part: str) -> int | None:
    for level, names in enumerate(LAYERS):
        if part in names:
            return level
    return None


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            if node.module == "commscope":  # a part or leaf module, or a name of __init__ (the version)
                found += [
                    (node.lineno, f"commscope.{alias.name}")
                    for alias in node.names
                    if (PACKAGE / alias.name).is_dir() or (PACKAGE / f"{alias.name}.py").is_file()
                ]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def _modules():
    return sorted(path for path in PACKAGE.rglob("*.py"))


def test_every_module_lives_in_a_known_part():
    strays = [
        str(path.relative_to(PACKAGE))
        for path in _modules()
        if len(path.relative_to(PACKAGE).parts) > 1 and _level(path.relative_to(PACKAGE).parts[0]) is None
    ]
    assert not strays, f"modules outside the layered parts: {strays}"


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_imports_point_down(path):
    relative = path.relative_to(PACKAGE)
    if len(relative.parts) == 1:
        return  # errors.py, ui.py, __init__.py, __main__.py: leaves and the entry point
    own = relative.parts[0]
    own_level = _level(own)
    wrong = []
    for line, module in _imports(path):
        if module.startswith("."):
            continue
        target = _part(module)
        if target is None or target in SHARED or target == own:
            continue
        target_level = _level(target)
        if target_level is None or target_level <= own_level:
            wrong.append(f"{relative}:{line} imports {module} ({target} is not below {own})")
    assert not wrong, "\n".join(wrong)
