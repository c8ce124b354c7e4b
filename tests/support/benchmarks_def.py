"""The benchmark list of src/core/benchmarks.def, the file the core's registry, --list and
compat links are built from, so the tests' lists of benchmarks cannot drift from them."""

from __future__ import annotations

import re

from mpi_flavours import REPO

DEF_FILE = REPO / "src" / "core" / "benchmarks.def"
_LINE = re.compile(r"^CS_(BENCH|COLLECTIVE)\((\w+), (\w+)\)$", re.MULTILINE)
_ENTRIES = _LINE.findall(DEF_FILE.read_text())


def family(name: str) -> list[str]:
    """Base names of one family (the folder under src/bench), in --list order; a collective
    is its blocking name."""
    return [bench for _, bench, fam in _ENTRIES if fam == name]


# a collective is listed with its non-blocking and persistent forms
ALL_BENCHMARKS = [
    name
    for kind, bench, _ in _ENTRIES
    for name in ((bench, f"i{bench}", f"{bench}_persistent") if kind == "COLLECTIVE" else (bench,))
]
COLLECTIVES = [bench for kind, bench, _ in _ENTRIES if kind == "COLLECTIVE"]
assert ALL_BENCHMARKS and COLLECTIVES, f"no benchmarks read from {DEF_FILE}"
