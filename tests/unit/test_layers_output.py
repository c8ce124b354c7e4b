"""output/ renders what analysis/ computed: a module under output/ may import analysis's
types (classes, dataclasses) and constants, never a function that computes, so that the
numbers a view or the report shows are worked out once, where the analysis lives, and
handed over as data (the report: each kind's `report()`, kinds/). Every import is looked
at, wherever it is written (inside a function too)."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from paths import REPO

OUTPUT = REPO / "python" / "commscope" / "output"

#: Functions of analysis/ that only say how something is named or written, computing
#: nothing: a run's name in a table, a sweep's number with its digits, a comparison's
#: column names.
FORMATTING = {
    ("commscope.analysis.titled_tables", "run_name"),
    ("commscope.analysis.sweep", "number"),
    ("commscope.analysis.compare", "column_names"),
}

#: Computing functions output/ imported before this check, by module, to be moved out
#: (the views of stored runs and the figures still work out their own series); none may
#: be added, and the check fails once one is no longer imported, so this list only
#: shrinks. output/report/ has none.
NOT_YET_MOVED = {
    "output/plot.py": {"default_floor", "excess", "common_metric", "points_by_key", "varying_axes", "band"},
    "output/views.py": {"primary", "series", "sort_keys", "median_series"},
    "output/links_view.py": {
        "adapter_peak",
        "gpu_pairs",
        "internode_peak",
        "pcie_gbs",
        "pcie_words",
        "percent_of_peak",
        "rank",
        "run_peak",
    },
    "output/run_export.py": {"percent_of_peak", "run_peak"},
    "output/sweep_view.py": {"intra_groups"},
    "output/locate_view.py": {"rules_mapping"},
}


def _computing_imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) of every function or module of analysis/ that `path` imports
    and FORMATTING does not name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("commscope.analysis"):
            module = importlib.import_module(node.module)
            for alias in node.names:
                value = getattr(module, alias.name)
                if inspect.isclass(value) or not callable(value) and not inspect.ismodule(value):
                    continue  # a type or a constant: data
                if (node.module, alias.name) not in FORMATTING:
                    found.append((node.lineno, node.module, alias.name))
        elif isinstance(node, ast.Import):
            found += [
                (node.lineno, alias.name, "") for alias in node.names if alias.name.startswith("commscope.analysis")
            ]
    return found


def _relative(path: Path) -> str:
    return str(path.relative_to(OUTPUT.parent))


@pytest.mark.parametrize("path", sorted(OUTPUT.rglob("*.py")), ids=_relative)
def test_output_imports_no_analysis_function_that_computes(path):
    allowed = NOT_YET_MOVED.get(_relative(path), set())
    found = _computing_imports(path)
    wrong = [f"{_relative(path)}:{line} imports {module}.{name}" for line, module, name in found if name not in allowed]
    assert not wrong, (
        "output/ renders; compute in analysis/ (or in the kind, kinds/) and pass the result:\n" + "\n".join(wrong)
    )
    stale = allowed - {name for _, _, name in found}
    assert not stale, f"{_relative(path)} no longer imports {sorted(stale)}: take them off NOT_YET_MOVED"


def test_the_modules_not_yet_moved_exist():
    assert all((OUTPUT.parent / name).is_file() for name in NOT_YET_MOVED)
