"""The package's parts and their direction of use: a module imports only from its own part
or from parts below it, so the folder tree shows the architecture (docs/architecture.md).
Siblings on one level (cluster and sweep) never import each other, no two modules import
each other (not even lazily, inside a function), and no module grows past what one
reader keeps in mind."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from paths import REPO

PACKAGE = REPO / "python" / "commscope"

#: Top to bottom; parts in one tuple are siblings.
LAYERS = (
    ("cli", "reframe"),  # reframe: ReFrame tests of commscope, a user of every part like the CLI
    ("kinds",),  # run kinds: what each kind of run does in show, compare, check, plot, report
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


@functools.cache
def _is_module(dotted: str) -> bool:
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.is_dir() or path.with_suffix(".py").is_file()


# Parsed once per test process: the checks below ask about every module many times over.
@functools.cache
def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import, wherever it is written (inside a function, under
    `if TYPE_CHECKING:`): `from a.b import c` imports a.b.c where c is a module, else a.b."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            named = [f"{node.module}.{alias.name}" for alias in node.names]
            found += [(node.lineno, module if _is_module(module) else node.module) for module in named]
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


def test_only_the_store_knows_sqlite():
    """The store raises StoreError for every SQLite error, so no other part needs sqlite3."""
    outside = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in _modules()
        if path.relative_to(PACKAGE).parts[0] != "store"
        for line, module in _imports(path)
        if module == "sqlite3"
    ]
    assert not outside, f"sqlite3 imported outside store/: {outside}"


# -- no cycles: within a part the modules have a direction of use too --------------------

#: Past this a module holds several things; split it where they part.
MAX_LINES = 450


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _import_graph() -> dict[str, set[str]]:
    """Which of the package's modules each module imports (a package: its __init__); a lazy
    import is a two-way dependency all the same, and so is one only for type checking."""
    known = {_module_name(path) for path in _modules()}
    return {
        _module_name(path): {module for _, module in _imports(path) if module in known} - {_module_name(path)}
        for path in _modules()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as a path
    that closes on its first module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for used in sorted(graph[module]):
            if used not in index:
                visit(used)
                low[module] = min(low[module], low[used])
            elif used in stack:
                low[module] = min(low[module], index[used])
        if low[module] == index[module]:
            component = []
            while not component or component[-1] != module:
                component.append(stack.pop())
            if len(component) > 1:
                components.append(_closed_path(graph, set(component)))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return components


def _closed_path(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest way from the component's first module back to itself, to show in a failure."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        module = frontier.pop(0)
        for used in sorted(graph[module] & component):
            if used == start:
                return [*paths[module], start]
            if used not in paths:
                paths[used] = [*paths[module], used]
                frontier.append(used)
    raise AssertionError(f"{sorted(component)} is no cycle")


def _part_of(module: str) -> str:
    return module.split(".")[1] if module.count(".") else module


PARTS = [name for names in LAYERS for name in names]


@pytest.mark.parametrize("part", PARTS)
def test_no_import_cycle_inside_a_part(part):
    graph = _import_graph()
    inside = {module: used for module, used in graph.items() if _part_of(module) == part}
    cycles = _cycles({module: {u for u in used if u in inside} for module, used in inside.items()})
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_no_import_cycle_across_the_package():
    cycles = [cycle for cycle in _cycles(_import_graph()) if len({_part_of(module) for module in cycle}) > 1]
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_no_module_is_too_long():
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in _modules()
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_a_cycle_is_found_and_shown_as_a_path():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert _cycles(graph) == [["a", "b", "c", "a"]]
