"""Published OSU figures shipped with commscope (references/osu.yaml): each entry a table
of another system's results with its source, for `compare --reference` and the report's
"against published systems"."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from commscope.errors import UsageError

REFERENCES_FILE = Path(__file__).parents[1] / "references" / "osu.yaml"
UNITS = ("us", "MB/s")
PLACEMENTS = ("intra-node", "inter-node")
MEMORIES = ("host", "device")
_REQUIRED = ("name", "system", "source", "interconnect", "mpi", "omb", "date", "figures")


@dataclass(frozen=True)
class Figure:
    benchmark: str
    placement: str
    memory: str
    size: int | None
    value: float
    unit: str


@dataclass(frozen=True)
class Reference:
    name: str
    system: str
    source: str
    interconnect: str
    mpi: str
    omb: str
    date: str
    figures: tuple[Figure, ...] = field(default_factory=tuple)
    notes: str | None = None


def parse(entries: list, where: str) -> list[Reference]:
    """The entries of a references file; a missing field or an unknown unit is refused."""
    references = []
    for index, entry in enumerate(entries or []):
        missing = [key for key in _REQUIRED if not entry.get(key)]
        if missing:
            raise UsageError(f"{where}: entry {index + 1}: missing {', '.join(missing)}")
        figures = []
        for figure in entry["figures"]:
            if figure.get("unit") not in UNITS or figure.get("placement") not in PLACEMENTS:
                raise UsageError(f"{where}: {entry['name']}: a figure needs unit {UNITS} and placement {PLACEMENTS}")
            if figure.get("memory") not in MEMORIES:
                raise UsageError(f"{where}: {entry['name']}: memory must be one of {MEMORIES}")
            figures.append(Figure(**{key: figure.get(key) for key in Figure.__dataclass_fields__}))
        fields_ = {key: str(entry[key]) for key in _REQUIRED if key != "figures"}
        references.append(Reference(**fields_, figures=tuple(figures), notes=entry.get("notes")))
    return references


@functools.cache
def load(path: Path = REFERENCES_FILE) -> tuple[Reference, ...]:
    import yaml

    # libyaml's parser where PyYAML has it: the same data, read in a tenth of the time (the
    # report's published section reads this file on every run of `commscope report`)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return tuple(parse(yaml.load(path.read_text(encoding="utf-8"), Loader=loader), str(path)))


def named(name: str) -> Reference:
    for reference in load():
        if reference.name == name:
            return reference
    known = ", ".join(reference.name for reference in load())
    raise UsageError(f"no published reference named {name!r}; there are: {known} (compare --reference list)")
