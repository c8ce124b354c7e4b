"""The package's parts and their direction of use: a module imports only from its own part
or from parts below it, so the folder tree shows the architecture (docs/architecture.md).
Siblings on one level (cluster and sweep) never import each other, no two modules import
each other (not even lazily, inside a function), and no module grows past what one
reader keeps in mind."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from commscope.records import benchmarks
from paths import REPO

PACKAGE = REPO / "python" / "commscope"

#: Top to bottom; parts in one tuple are siblings.
LAYERS = (
    ("cli", "reframe"),  # reframe: ReFrame tests of commscope, a user of every part like the CLI
    # run kinds: what each kind of run does in show, compare, check, plot, report; workflows:
    # what chains Slurm and sweeps in one process (--nodes, recheck, the nightly locate)
    ("kinds", "workflow"),
    ("cluster", "sweep"),
    ("execute", "output"),  # launching and storing what was measured; rendering what was analysed
    ("ingest", "analysis"),  # execute reads what hpcc and fio wrote with import's own readers
    ("store",),
    ("records",),
)
#: The pure parts: what they may use, besides themselves and SHARED, whatever LAYERS allows.
#: Analysis computes on records (what the store gives back), output renders records and what
#: analysis computed; neither launches, imports, schedules nor asks Slurm.
PURE = {
    "analysis": {"records", "store"},
    "output": {"analysis", "records", "store"},
}
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
    return imports_in(ast.parse(path.read_text(), str(path)), _module_name(path))


def imports_in(tree: ast.AST, module: str) -> list[tuple[int, str]]:
    """(line, module) of every import of `module`'s source, wherever it is written (inside a
    function, under `if TYPE_CHECKING:`): `from a.b import c` imports a.b.c where c is a
    module, else a.b; a relative import counts as the absolute one it stands for, and a
    string that names one of the package's modules ("commscope.analysis.check", handed to
    importlib) as an import of that module."""
    package = module.split(".") if _is_package(module) else module.split(".")[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
            named = [f"{base}.{alias.name}" for alias in node.names]
            found += [(node.lineno, name if _is_module(name) else base) for name in named]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _names_a_module(node.value):
            found.append((node.lineno, node.value))
    return found


def _names_a_module(text: str) -> bool:
    return re.fullmatch(r"commscope(\.[a-z_][a-z0-9_]*)+", text) is not None and _is_module(text)


def _is_package(module: str) -> bool:
    return PACKAGE.parent.joinpath(*module.split(".")).is_dir()


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
    wrong = wrong_imports(path.relative_to(PACKAGE), _imports(path))
    assert not wrong, "\n".join(wrong)


def wrong_imports(relative: Path, imports: list[tuple[int, str]]) -> list[str]:
    """The imports of the module at `relative` (to the package) that point up or sideways,
    or out of a pure part."""
    if len(relative.parts) == 1:
        return []  # errors.py, ui.py, __init__.py, __main__.py: leaves and the entry point
    own = relative.parts[0]
    own_level = _level(own)
    wrong = []
    for line, module in imports:
        target = _part(module)
        if target is None or target in SHARED or target == own:
            continue
        target_level = _level(target)
        if target_level is None or target_level <= own_level:
            wrong.append(f"{relative}:{line} imports {module} ({target} is not below {own})")
        elif own in PURE and target not in PURE[own]:
            wrong.append(f"{relative}:{line} imports {module} ({own} uses only {', '.join(sorted(PURE[own]))})")
    return wrong


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
    if not path.is_relative_to(PACKAGE.parent):
        return path.stem  # a module planted by a test, outside the package
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


# -- facts written once: benchmark names -------------------------------------------------

#: The names records/benchmarks.py gives a benchmark that has a single meaning. "pairs"
#: (PAIRS_BENCHMARK) is left out: it is also the core's --pairs parameter and a key of the
#: oracle's and the GPU inventory's JSON, where the word is not a benchmark's name.
BENCHMARK_NAMES = (
    {benchmarks.HPL_BENCHMARK, benchmarks.STORAGE_BENCHMARK, benchmarks.CONGESTION_BENCHMARK}
    | set(benchmarks.SYSTEM_BENCHMARKS)
    | set(benchmarks.NCCL_TESTS_PROGRAMS.values())
)
#: (module, where in it, the word): the same word meaning something else.
OTHER_MEANINGS = {
    ("ingest/parse/model.py", "SOURCE_FORMATS", "hpl"),  # HPL.out, a file format
    ("ingest/parse/storage.py", "read_storage_tables", "storage"),  # a table's device when no heading names one
    ("output/views.py", "provenance_items", "storage"),  # the label of a run's storage provenance row
    ("records/run_kinds.py", "HPL", "hpl"),  # the kinds' names, the same words as their benchmarks'
    ("records/run_kinds.py", "CONGESTION", "congestion"),
}


def _literals(tree: ast.AST):
    """(line, where, text) of each string literal: where is the innermost function or
    class, or the name a module-level assignment binds. A kind's `name` (the kind's, which
    may be its benchmark's word) and a `source_format=` (a file format) are not benchmark
    names."""

    def kind_name(node, parent) -> bool:
        return (
            isinstance(parent, ast.ClassDef)
            and isinstance(node, ast.Assign)
            and [getattr(target, "id", None) for target in node.targets] == ["name"]
        )

    def visit(node, where, parent=None):
        if kind_name(node, parent) or (isinstance(node, ast.keyword) and node.arg == "source_format"):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            where = node.name
        elif isinstance(node, ast.Assign) and where is None and isinstance(node.targets[0], ast.Name):
            where = node.targets[0].id
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, where, node.value
        for child in ast.iter_child_nodes(node):
            yield from visit(child, where, node)

    for node in ast.iter_child_nodes(tree):
        yield from visit(node, None)


def _benchmark_names_outside(paths) -> list[str]:
    found = []
    for path in paths:
        relative = str(path.relative_to(PACKAGE))
        for line, where, text in _literals(ast.parse(path.read_text(), str(path))):
            if text in BENCHMARK_NAMES and (relative, where, text) not in OTHER_MEANINGS:
                found.append(f"{relative}:{line} ({where}) writes {text!r}")
    return found


def test_benchmark_names_are_written_only_in_records_benchmarks():
    """Every module names a benchmark by records/benchmarks.py's constant, so a name
    changes in one place and a search for its constant finds every use."""
    found = _benchmark_names_outside(path for path in _modules() if path != PACKAGE / "records" / "benchmarks.py")
    assert not found, "benchmark names written outside records/benchmarks.py:\n" + "\n".join(found)


def test_a_benchmark_name_written_twice_is_found():
    source = 'STORED = "hpl"\nclass Kind:\n    name = "hpl"\ndef f():\n    name = "storage"\n'
    found = [f"{where}:{text}" for _, where, text in _literals(ast.parse(source)) if text in BENCHMARK_NAMES]
    assert found == ["STORED:hpl", "f:storage"]  # a kind's own name is the kind's


# -- sweeps and analysis never start a process -------------------------------------------

#: Calls that start a process without subprocess.
_PROCESS_CALLS = re.compile(
    r"^(?:os\.(?:fork|forkpty|exec\w*|spawn\w*|posix_spawn\w*|system|popen)|pty\.\w+|asyncio\.create_subprocess_\w+)$"
)


#: Modules known to start one today, each with why.
def _starts_processes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = [
        f"{line}: imports {module}"
        for line, module in _imports(path)
        if module.split(".")[0] in ("subprocess", "pty", "multiprocessing")
    ]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _PROCESS_CALLS.match(ast.unparse(node.func)):
            found.append(f"{node.lineno}: calls {ast.unparse(node.func)}")
    return found


def test_sweep_and_analysis_start_no_process():
    """Sweeps launch through execute/ (one way to start, follow, time out and stop a
    program); analysis computes on what was measured."""
    found = [
        f"{path.relative_to(PACKAGE)}:{where}"
        for path in _modules()
        if path.relative_to(PACKAGE).parts[0] in ("sweep", "analysis")
        for where in _starts_processes(path)
    ]
    assert not found, "sweep/ or analysis/ starting a process:\n" + "\n".join(found)


def test_a_module_that_starts_a_process_is_found(tmp_path):
    module = tmp_path / "starts.py"
    module.write_text("import os\nfrom subprocess import run\n\n\ndef go():\n    os.execvp('x', ['x'])\n")
    assert _starts_processes(module) == ["2: imports subprocess", "6: calls os.execvp"]
