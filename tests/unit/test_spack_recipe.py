"""The Spack recipes in packaging/spack against the files they restate: the CMake variables
and environment the core's recipe sets are ones CMakeLists.txt reads, each variant turns on
the CMake option of its name, and the harness's recipe asks for every dependency of
pyproject.toml. Spack itself is not needed: the recipes are read as Python syntax trees (a
real `spack install` is the hand-run check of docs/install.md, "Spack")."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
CMAKELISTS = (ROOT / "CMakeLists.txt").read_text()
RECIPES = ROOT / "packaging" / "spack" / "packages"
CORE = RECIPES / "commscope" / "package.py"
HARNESS = RECIPES / "py-commscope" / "package.py"


def _calls(path: Path, name: str) -> list[ast.Call]:
    """Every call of `name(...)` or `x.name(...)` in the recipe."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (getattr(node.func, "id", None) == name or getattr(node.func, "attr", None) == name)
    ]


def _first_strings(path: Path, name: str) -> list[str]:
    return [c.args[0].value for c in _calls(path, name) if c.args and isinstance(c.args[0], ast.Constant)]


def _cmake_cache_variables() -> set[str]:
    """What CMakeLists.txt lets a user set: option(NAME ...) and set(NAME ... CACHE ...)."""
    options = re.findall(r"^\s*option\((\w+)\s", CMAKELISTS, re.M)
    cached = re.findall(r"^\s*set\((\w+)\s[^)]*\bCACHE\b", CMAKELISTS, re.M)
    return set(options) | set(cached)


def _read_by_cmake(name: str) -> bool:
    """A variable of CMake's own modules that CMakeLists.txt relies on: one it names
    (MPI_C_COMPILER), or <Package>_ROOT of a package it looks for (CUDAToolkit_ROOT)."""
    if re.search(rf"\b{re.escape(name)}\b", CMAKELISTS):
        return True
    root = re.fullmatch(r"(\w+)_ROOT", name)
    return bool(root) and re.search(rf"find_package\({root.group(1)}\b", CMAKELISTS) is not None


def test_recipes_are_python_and_the_repository_is_spack_shaped():
    for path in (CORE, HARNESS):
        ast.parse(path.read_text(), filename=str(path))
    assert re.search(r"^\s+namespace:\s*commscope\s*$", (RECIPES.parent / "repo.yaml").read_text(), re.M)


def test_every_cmake_variable_the_core_recipe_sets_is_one_cmakelists_reads():
    defined = _first_strings(CORE, "define")
    assert defined, "the recipe sets no CMake variable"
    ours = _cmake_cache_variables()
    unknown = [name for name in defined if name not in ours and not _read_by_cmake(name)]
    assert not unknown, f"{CORE.name} sets CMake variables CMakeLists.txt does not read: {unknown}"
    # the project's own must be declared options or cache entries, not merely mentioned
    assert not [n for n in defined if n.startswith("CS_") and n not in ours]


def test_each_variant_sets_the_cmake_option_of_its_name():
    variants = set(_first_strings(CORE, "variant"))
    assert {"cuda", "nccl"} <= variants
    defined = set(_first_strings(CORE, "define"))
    for variant in variants:
        option = f"CS_WITH_{variant.upper()}"
        assert option in _cmake_cache_variables(), f"variant {variant}: CMakeLists.txt has no {option}"
        assert option in defined, f"variant {variant} does not set {option}"
    # and the other way: every CS_WITH_ choice but the MPI (always on: the core is an MPI
    # program) has its variant, so a new one is not silently left to AUTO
    with_options = {n for n in _cmake_cache_variables() if n.startswith("CS_WITH_")} - {"CS_WITH_MPI"}
    assert {f"CS_WITH_{v.upper()}" for v in variants} == with_options


def test_the_environment_the_core_recipe_sets_is_read_by_cmakelists():
    names = _first_strings(CORE, "set")
    assert "NCCL_HOME" in names
    for name in names:
        assert re.search(rf"\bENV[{{ ]{name}\b", CMAKELISTS), f"CMakeLists.txt does not read ${name}"


def test_the_compat_folder_on_path_is_where_cmake_installs_it():
    join_paths = [c for c in _calls(CORE, "join_path") if all(isinstance(a, ast.Constant) for a in c.args[1:])]
    folders = ["/".join(a.value for a in c.args[1:]) for c in join_paths]
    assert "commscope/compat" in folders
    assert "${CMAKE_INSTALL_LIBEXECDIR}/commscope/compat" in CMAKELISTS


def test_the_harness_recipe_asks_for_every_dependency_of_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {}
    for spec in _first_strings(HARNESS, "depends_on"):
        name, _, version = spec.partition("@")
        declared[name] = version
    assert declared.get("commscope") == "", "the harness runs the core of the same recipe repository"
    for line in project["dependencies"]:
        req = Requirement(line)
        spack_name = "py-" + req.name.lower().replace("_", "-")
        assert spack_name in declared, f"{HARNESS.name} lacks {spack_name} ({line} in pyproject.toml)"
        minimum = next((s.version for s in req.specifier if s.operator == ">="), "")
        # Spack's "@1.2:" is "1.2 or newer"; "@1.2" alone would pin 1.2.x
        assert declared[spack_name] == f"{minimum}:", f"{spack_name}@{declared[spack_name]}: pyproject.toml says {line}"


@pytest.mark.parametrize("recipe", [CORE, HARNESS])
def test_recipes_build_this_checkout_by_default(recipe):
    # no tarballs are published: a version is a branch of the git checkout the recipe is in
    assert _first_strings(recipe, "version") == ["main"]
