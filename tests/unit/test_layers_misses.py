"""What the layer checks of test_layers.py once let through, each shown caught by a violation
planted in a module of its own: a relative import, an import through importlib, a
benchmark's name compared as a literal, a process started in kinds/, and output/ computing
what analysis/ should (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from test_layers import PACKAGE, _imports, _modules, _starts_processes, imports_in, wrong_imports


def _relative(path: Path) -> Path:
    return path.relative_to(PACKAGE)


def _planted(source: str, where: str) -> list[str]:
    """The layer check's complaints about `source` as if it were the module at `where`."""
    module = "commscope." + where.removesuffix(".py").replace("/", ".")
    return wrong_imports(Path(where), imports_in(ast.parse(source), module))


# -- a relative import is an import all the same -------------------------------------------


def relative_imports(tree: ast.AST) -> list[int]:
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level]


def test_no_module_imports_relatively():
    """ruff refuses them too (TID252, pyproject.toml): a relative import hides which part a
    module uses."""
    found = [
        f"{_relative(path)}:{line}" for path in _modules() for line in relative_imports(ast.parse(path.read_text()))
    ]
    assert not found, f"relative imports: {found}"


def test_a_relative_import_up_the_layers_is_found():
    source = "from ..cli.main import main\nfrom . import stats\n"
    assert relative_imports(ast.parse(source)) == [1, 1 + 1]
    assert _planted(source, "analysis/planted.py") == [
        "analysis/planted.py:1 imports commscope.cli.main (cli is not below analysis)"
    ]


# -- importlib: a module named in a string is imported -------------------------------------

#: Calls that import a module named at run time.
DYNAMIC = ("importlib.import_module", "import_module", "__import__", "importlib.__import__")
#: Modules that import a module named in a variable, each with why; the names they import
#: are string literals of the module (which the layer check reads as imports).
DYNAMIC_IMPORTERS = {
    # an option's parser imported when the option is given, so that `commscope --help` and
    # commands that never take it start without analysis/ (ParsedValue)
    "cli/common.py",
}


def dynamic_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, argument) of every call that imports a module named at run time."""
    return [
        (node.lineno, ast.unparse(node.args[0]) if node.args else "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func) in DYNAMIC
    ]


def test_modules_are_imported_by_name_where_the_layers_can_see_them():
    found = [
        f"{_relative(path)}:{line} imports {argument}"
        for path in _modules()
        if str(_relative(path)) not in DYNAMIC_IMPORTERS
        for line, argument in dynamic_imports(ast.parse(path.read_text()))
        if not (argument.startswith(("'", '"')))
    ]
    assert not found, "a module imported through a name the layer check cannot read:\n" + "\n".join(found)


def test_the_dynamic_importers_still_import_dynamically():
    for name in DYNAMIC_IMPORTERS:
        assert dynamic_imports(ast.parse((PACKAGE / name).read_text())), f"{name}: take it off DYNAMIC_IMPORTERS"


def test_a_module_imported_through_importlib_is_an_import():
    source = (
        "import importlib\n\n"
        "def later(name):\n"
        "    cli = importlib.import_module('commscope.cli.main')\n"
        "    return importlib.import_module(name)\n"
    )
    assert _planted(source, "analysis/planted.py") == [
        "analysis/planted.py:4 imports commscope.cli.main (cli is not below analysis)"
    ]
    assert dynamic_imports(ast.parse(source)) == [(4, "'commscope.cli.main'"), (5, "name")]


def test_the_option_parsers_named_in_strings_are_imports_of_the_cli():
    imported = {module for _, module in _imports(PACKAGE / "cli" / "common.py")}
    assert {"commscope.analysis.check", "commscope.store.selection"} <= imported


# -- a benchmark's name is records/benchmarks.py's, also where a run's benchmark is compared --


def _is_benchmark(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "benchmark") or (
        isinstance(node, ast.Name) and node.id == "benchmark"
    )


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [element.value for element in node.elts if isinstance(element, ast.Constant)]
    return []


def benchmarks_compared_with_literals(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) where a benchmark is compared with, or looked for among, written names
    (`run.benchmark == "init"`, `benchmark in ("bw", "bibw")`, `benchmark.startswith("osu_")`)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(_is_benchmark(side) for side in (node.left, *node.comparators)):
            found += [(node.lineno, text) for side in (node.left, *node.comparators) for text in _strings(side)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_benchmark(node.func.value):
            found += [(node.lineno, text) for argument in node.args for text in _strings(argument)]
    return found


def test_no_benchmark_is_compared_with_a_written_name():
    found = [
        f"{_relative(path)}:{line} compares a benchmark with {name!r}"
        for path in _modules()
        if path != PACKAGE / "records" / "benchmarks.py"
        for line, name in benchmarks_compared_with_literals(ast.parse(path.read_text()))
    ]
    assert not found, "use records/benchmarks.py's constants:\n" + "\n".join(found)


def test_a_benchmark_compared_with_a_written_name_is_found():
    source = (
        "def kind(run, benchmark):\n"
        "    if run.benchmark == 'init' or benchmark in ('bw', 'bibw'):\n"
        "        return run.benchmark.startswith('osu_')\n"
        "    return run.metric == 'latency'\n"
    )
    assert benchmarks_compared_with_literals(ast.parse(source)) == [(2, "init"), (2, "bw"), (2, "bibw"), (3, "osu_")]


# -- kinds/ (and every part that only decides, computes or shows) starts no process --------

#: Parts that never start a process: they launch through execute/ (process control: limits,
#: bounded output, signals) or not at all. Slurm's clients, crontab and scrontab (cluster/),
#: what the command line starts (cli/) and the workflows' allocations (workflow/) too.
NO_PROCESSES = ("kinds", "sweep", "analysis", "output", "store", "cluster", "cli", "workflow")


def test_kinds_and_the_pure_parts_start_no_process():
    found = [
        f"{_relative(path)}:{where}"
        for path in _modules()
        if _relative(path).parts[0] in NO_PROCESSES
        for where in _starts_processes(path)
    ]
    assert not found, "a process started outside execute/:\n" + "\n".join(found)


def test_a_process_started_in_kinds_is_found(tmp_path):
    planted = tmp_path / "kinds_planted.py"
    planted.write_text("import subprocess\n\n\ndef table_text(run):\n    return subprocess.run(['cat']).stdout\n")
    assert _starts_processes(planted) == ["1: imports subprocess"]


def test_a_slurm_client_started_by_hand_in_cluster_is_found(tmp_path):
    """What cluster/ did before its Slurm commands went through execute/process: Popen, and
    the os calls that start a program."""
    planted = tmp_path / "cluster_planted.py"
    planted.write_text(
        "import os\nfrom subprocess import Popen\n\n\ndef ping():\n"
        "    os.system('scontrol ping')\n    os.execvp('squeue', ['squeue'])\n    return Popen(['sinfo'])\n"
    )
    assert _starts_processes(planted) == ["2: imports subprocess", "6: calls os.system", "7: calls os.execvp"]


# -- output/ renders: it computes no statistic ---------------------------------------------

#: Calls that compute a statistic over values: analysis/'s work, never output/'s.
STATISTICS = {
    "mean",
    "nanmean",
    "median",
    "nanmedian",
    "percentile",
    "nanpercentile",
    "quantile",
    "nanquantile",
    "std",
    "nanstd",
    "var",
    "nanvar",
    "average",
    "fmean",
    "geometric_mean",
    "stdev",
    "pstdev",
    "variance",
    "linregress",
    "polyfit",
    "lstsq",
}
#: What output/ computed before this check, by module, to be moved out; none may be added,
#: and the check fails once one is gone, so this only shrinks. A heatmap of more hosts than
#: it has cells for averages blocks of hosts (sweep_view.blocks).
NOT_YET_MOVED = {"output/sweep_view.py": {"nanmean"}}


def statistics_computed(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in STATISTICS:
                found.append((node.lineno, name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [(node.lineno, module) for module in modules if module.split(".")[0] == "statistics"]
    return found


@pytest.mark.parametrize("path", sorted((PACKAGE / "output").rglob("*.py")), ids=lambda path: str(_relative(path)))
def test_output_computes_no_statistic(path):
    allowed = NOT_YET_MOVED.get(str(_relative(path)), set())
    found = statistics_computed(ast.parse(path.read_text()))
    wrong = [f"{_relative(path)}:{line} computes {name}" for line, name in found if name not in allowed]
    assert not wrong, "output/ renders; compute in analysis/ and pass the result:\n" + "\n".join(wrong)
    stale = allowed - {name for _, name in found}
    assert not stale, f"{_relative(path)} no longer computes {sorted(stale)}: take them off NOT_YET_MOVED"


def test_a_statistic_computed_in_output_is_found():
    source = "import statistics\nimport numpy as np\n\n\ndef row(values):\n    return np.median(values), max(values)\n"
    assert statistics_computed(ast.parse(source)) == [(1, "statistics"), (6, "median")]


# -- analysis/ and output/ use only records/ and store/ (output: and analysis/) ------------


def test_analysis_importing_execute_is_found():
    assert _planted("from commscope.execute.cpu_topology import cpu_topology\n", "analysis/planted.py") == [
        "analysis/planted.py:1 imports commscope.execute.cpu_topology (execute is not below analysis)"
    ]
    assert _planted("from commscope.ingest.importer import import_files\n", "output/planted.py") == [
        "output/planted.py:1 imports commscope.ingest.importer (output uses only analysis, records, store)"
    ]
    assert (
        _planted("from commscope.records.run import Run\nfrom commscope.store.db import Store\n", "analysis/x.py") == []
    )
