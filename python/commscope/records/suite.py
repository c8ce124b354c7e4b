"""Suite files: YAML lists of benchmark runs, validated with pydantic.

A suite file looks like::

    description: point-to-point essentials, small messages
    include: [other-suite]          # optional: runs of other suites first
    benchmarks:
      - benchmark: latency
        flags: ["-m", "1:64K"]      # commscope-bench flags (OMB's)
        ranks: 2
        placement: intra-node       # intra-node | inter-node | any
        device: cuda                # optional, OMB's -d: cuda | managed
        buffers: [D, D]             # optional, OMB's trailing words: H, D, M, MH, MD per side

Problems are reported as ``file:line: key: message``, the line taken from
PyYAML's node marks, so a typo in a long file is found at once.

Suites and their entries are plain dataclasses; the pydantic models that check
a file are built only when a file is read. pydantic and PyYAML take about a
tenth of a second to import and set up, which `commscope run latency`, naming a
benchmark directly, does not need to spend.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from commscope.errors import UsageError

if TYPE_CHECKING:
    import yaml
    from pydantic import BaseModel

BUILTIN_DIR = Path(__file__).parents[1] / "suites"
SUFFIXES = (".yaml", ".yml")
Placement = Literal["intra-node", "inter-node", "any"]
Device = Literal["cuda", "managed"]
Buffer = Literal["H", "D", "M", "MH", "MD"]


@dataclass
class Entry:
    """One benchmark run of a suite."""

    benchmark: str  # commscope-bench benchmark name
    flags: list[str] = field(default_factory=list)  # flags passed to commscope-bench
    ranks: int = 2  # number of MPI ranks
    placement: Placement = "any"
    device: Device | None = None  # OMB's -d
    buffers: list[Buffer] = field(default_factory=list)  # OMB's trailing placement words, one per side

    def core_flags(self) -> list[str]:
        """The flags, then -d and the buffer words: what commscope-bench is given."""
        return [*self.flags, *(["-d", self.device] if self.device else []), *self.buffers]


@dataclass
class Suite:
    description: str
    name: str | None = None  # defaults to the file name without suffix
    include: list[str] = field(default_factory=list)
    benchmarks: list[Entry] = field(default_factory=list)


@functools.cache
def _file_models() -> tuple[type[BaseModel], type[BaseModel]]:
    """The pydantic models (Suite, Entry) a suite file is checked with: the fields of the
    dataclasses above with their constraints. They carry the dataclasses' names because
    pydantic's messages name them."""
    from pydantic import ConfigDict, Field, create_model

    config = ConfigDict(extra="forbid", strict=True)
    entry = create_model(
        "Entry", __config__=config,
        benchmark=(str, Field(min_length=1, description="commscope-bench benchmark name")),
        flags=(list[str], Field(default_factory=list, description="flags passed to commscope-bench")),
        ranks=(int, Field(default=2, ge=1, description="number of MPI ranks")),
        placement=(Placement, "any"),
        device=(Device | None, Field(default=None, description="OMB's -d: GPU buffers")),
        buffers=(list[Buffer], Field(default_factory=list, max_length=2,
                                     description="OMB's buffer placement words, sender's side first")))
    suite = create_model(
        "Suite", __config__=config,
        name=(str | None, None),
        description=(str, ...),
        include=(list[str], Field(default_factory=list)),
        benchmarks=(list[entry], Field(default_factory=list)))
    return suite, entry


class SuiteError(UsageError):
    """A suite file that cannot be used; `problems` holds (path, line, key, message)."""

    def __init__(self, problems: list[tuple[str, int, str, str]]) -> None:
        self.problems = problems
        super().__init__("\n".join(f"{path}:{line}: {key}: {message}" if key else f"{path}:{line}: {message}"
                                   for path, line, key, message in problems))


def builtin_suites() -> dict[str, Path]:
    return {path.stem: path for path in sorted(BUILTIN_DIR.glob("*.yaml"))}


def find_suite(name: str, near: Path | None = None) -> Path | None:
    """A suite by name: next to `near` (the including file) first, then the shipped ones."""
    if near is not None:
        for suffix in SUFFIXES:
            candidate = near.parent / f"{name}{suffix}"
            if candidate.is_file():
                return candidate
    return builtin_suites().get(name)


def load_suite_file(path: Path) -> Suite:
    """Read and validate one suite file (its includes are not followed)."""
    import yaml
    from pydantic import ValidationError

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read suite file {path}: {exc}") from exc
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise SuiteError([(str(path), mark.line + 1 if mark else 1, "", f"invalid YAML: {exc.problem}")]) from exc
    except yaml.YAMLError as exc:
        raise SuiteError([(str(path), 1, "", f"invalid YAML: {exc}")]) from exc
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        line = root.start_mark.line + 1 if root is not None else 1
        raise SuiteError([(str(path), line, "", "a suite file is a mapping with 'description' and 'benchmarks'")])
    suite_model, _ = _file_models()
    try:
        checked = suite_model.model_validate(data)
    except ValidationError as exc:
        raise SuiteError([_problem(path, root, error) for error in exc.errors()]) from exc
    return Suite(name=checked.name or path.stem, description=checked.description, include=checked.include,
                 benchmarks=[Entry(**entry.model_dump()) for entry in checked.benchmarks])


def _problem(path: Path, root: yaml.Node, error: dict) -> tuple[str, int, str, str]:
    loc = error["loc"]
    key = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")
    message = error["msg"]
    if error["type"] == "extra_forbidden":
        suite_model, entry_model = _file_models()
        model = suite_model if len(loc) == 1 else entry_model
        message = f"unknown key; allowed keys: {', '.join(model.model_fields)}"
    elif error["type"] == "missing":
        message = "required key is missing"
    return str(path), _line_of(root, loc), key, message


def _line_of(root: yaml.Node, loc: tuple) -> int:
    """1-based line of the YAML node at `loc`; the deepest existing node if `loc` leads nowhere
    (a missing key is reported at the mapping that lacks it)."""
    import yaml

    node = root
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == part:
                    # The key's own line: for an unknown key, and for a value on the next line.
                    child = key_node if part == loc[-1] else value_node
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node = child
    return node.start_mark.line + 1


def expand(path: Path, _seen: tuple[Path, ...] = ()) -> list[Entry]:
    """The entries of the suite in `path`: its includes' entries first, then its own."""
    path = path.resolve()
    if path in _seen:
        chain = " -> ".join(p.stem for p in (*_seen, path))
        raise UsageError(f"suite includes itself: {chain}")
    suite = load_suite_file(path)
    entries: list[Entry] = []
    for name in suite.include:
        included = find_suite(name, near=path)
        if included is None:
            raise UsageError(f"{path}: include {name!r}: no such suite next to it or shipped")
        entries += expand(included, (*_seen, path))
    return entries + suite.benchmarks


def suite_path(name_or_path: str) -> Path | None:
    """Path of a suite given by name or file path; None if it is neither."""
    path = Path(name_or_path)
    if path.suffix in SUFFIXES and path.is_file():
        return path
    return find_suite(name_or_path)
