"""Suite files: YAML lists of benchmark runs, validated with pydantic.

A suite file looks like::

    description: point-to-point essentials, small messages
    include: [other-suite]          # optional: runs of other suites first
    benchmarks:
      - benchmark: latency
        flags: ["-m", "1:64K"]      # commscope-bench flags (OMB's)
        ranks: 2
        placement: intra-node       # intra-node | inter-node | any
        transport: net              # auto | shm | net (ranks on one node: shared memory or TCP)
        label: one node, net        # added to the run's label, so compare can tell entries apart
        precision: 2%               # optional, also for the whole suite: --precision
        max_time: 1s                #   and --max-time of commscope-bench; `precision: off`
                                    #   keeps OMB's fixed iteration counts
        device: cuda                # optional, OMB's -d: cuda | managed
        buffers: [D, D]             # optional, OMB's trailing words: H, D, M, MH, MD per side
        gpu_pairs: one-to-all       # optional: one launch per GPU pair of this node, GPU 0 with
                                    #   each other (CUDA_VISIBLE_DEVICES=0,k), the JUPITER rule
        core_pairs: one-to-all      # optional: one launch per core pair of this node, core 0 with
                                    #   a core on every NUMA node and socket (ranks bound to
                                    #   those two cores), the JUPITER rule

Problems are reported as ``file:line: key: message``, the line taken from
PyYAML's node marks, so a typo in a long file is found at once.

Suites and their entries are plain dataclasses; the pydantic models that check
a file are built only when a file is read. pydantic and PyYAML take about a
tenth of a second to import and set up, which `commscope run latency`, naming a
benchmark directly, does not need to spend.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from commscope.errors import UsageError
from commscope.records import yamlfile

if TYPE_CHECKING:
    import yaml
    from pydantic import BaseModel

BUILTIN_DIR = Path(__file__).parents[1] / "suites"
SUFFIXES = (".yaml", ".yml")
Placement = Literal["intra-node", "inter-node", "any"]
Transport = Literal["auto", "shm", "net"]
Device = Literal["cuda", "managed"]
Buffer = Literal["H", "D", "M", "MH", "MD"]
GpuPairs = Literal["one-to-all"]
CorePairs = Literal["one-to-all"]
#: The most MPI ranks an entry (or `run --np`) may ask for: more is a typo that would start
#: that many processes.
MAX_RANKS = 1_000_000


#: Flags that fix what --precision would choose: with any of them (in the entry's flags or
#: after `--`) the suite's precision is left out, so the flags typed win.
_COUNT_FLAGS = ("-i", "--iterations", "--precision", "--max-time", "--min-samples")


@dataclass
class Entry:
    """One benchmark run of a suite."""

    benchmark: str  # commscope-bench benchmark name
    flags: list[str] = field(default_factory=list)  # flags passed to commscope-bench
    ranks: int = 2  # number of MPI ranks
    placement: Placement = "any"
    transport: Transport | None = None  # None: what `run --transport` says (auto by default)
    label: str | None = None  # this entry's part of the run's label
    precision: str | None = None  # "2" (percent) or "off"; None: the suite's
    max_time: str | None = None  # seconds, "1"; None: the suite's, else the core's default
    device: Device | None = None  # OMB's -d
    buffers: list[Buffer] = field(default_factory=list)  # OMB's trailing placement words, one per side
    gpu_pairs: GpuPairs | None = None  # one launch per GPU pair of the node (execute.runner)
    core_pairs: CorePairs | None = None  # one launch per core pair of the node (execute.runner)

    def core_flags(self, extra: Sequence[str] = ()) -> list[str]:
        """The flags for commscope-bench: the entry's, -d and the buffer words, then
        --precision/--max-time unless precision is off or the entry's or `extra` flags fix
        the counts themselves."""
        own = [*self.flags, *(["-d", self.device] if self.device else []), *self.buffers]
        typed = [*self.flags, *extra]
        if self.precision in (None, "off") or any(flag.split("=")[0] in _COUNT_FLAGS for flag in typed):
            return own
        return [*own, "--precision", self.precision, *(["--max-time", self.max_time] if self.max_time else [])]


@dataclass
class Suite:
    description: str
    name: str | None = None  # defaults to the file name without suffix
    include: list[str] = field(default_factory=list)
    benchmarks: list[Entry] = field(default_factory=list)
    precision: str | None = None  # for entries that do not say
    max_time: str | None = None


_PERCENT = re.compile(r"\s*(?P<value>\d+(?:\.\d*)?|\.\d+)\s*%?\s*")
_SECONDS = re.compile(r"\s*(?P<value>\d+(?:\.\d*)?|\.\d+)\s*(?P<unit>s|ms)?\s*")


def precision_value(value: str | int | float | bool) -> str:
    """`precision:` as the core takes it: 2%, 2, 0.5 -> "2", "2", "0.5"; off/false -> "off"."""
    if value is False or (isinstance(value, str) and value.strip().lower() == "off"):
        return "off"
    match = _PERCENT.fullmatch(str(value)) if not isinstance(value, bool) else None
    if not match or not 0 < float(match["value"]) <= 100:
        raise ValueError("give a percentage above 0 and at most 100 (2%, 0.5) or off")
    return f"{float(match['value']):g}"


def seconds_value(value: str | int | float) -> str:
    """`max_time:` in seconds as the core takes it: 1s, 500ms, 2 -> "1", "0.5", "2"."""
    match = _SECONDS.fullmatch(str(value)) if not isinstance(value, bool) else None
    seconds = float(match["value"]) * (1e-3 if match and match["unit"] == "ms" else 1) if match else 0
    if not 1e-3 <= seconds <= 86400:
        raise ValueError("give a time from 1ms to 86400s (1s, 500ms, 2)")
    return f"{seconds:g}"


@functools.cache
def _file_models() -> tuple[type[BaseModel], type[BaseModel]]:
    """The pydantic models (Suite, Entry) a suite file is checked with: the fields of the
    dataclasses above with their constraints. They carry the dataclasses' names because
    pydantic's messages name them."""

    from pydantic import AfterValidator, ConfigDict, Field, create_model

    config = ConfigDict(extra="forbid", strict=True)
    # YAML reads 2% as text and 2 as a number, off as text and false as a boolean
    precision = (
        Annotated[str | bool | int | float | None, AfterValidator(lambda v: None if v is None else precision_value(v))],
        None,
    )
    max_time = (
        Annotated[str | int | float | None, AfterValidator(lambda v: None if v is None else seconds_value(v))],
        None,
    )
    entry = create_model(
        "Entry",
        __config__=config,
        benchmark=(str, Field(min_length=1, description="commscope-bench benchmark name")),
        flags=(list[str], Field(default_factory=list, description="flags passed to commscope-bench")),
        ranks=(int, Field(default=2, ge=1, le=MAX_RANKS, description="number of MPI ranks")),
        placement=(Placement, "any"),
        transport=(Transport | None, None),
        label=(str | None, Field(default=None, min_length=1)),
        device=(Device | None, Field(default=None, description="OMB's -d: GPU buffers")),
        buffers=(
            list[Buffer],
            Field(default_factory=list, max_length=2, description="OMB's buffer placement words, sender's side first"),
        ),
        gpu_pairs=(GpuPairs | None, Field(default=None, description="one launch per GPU pair: one-to-all")),
        core_pairs=(CorePairs | None, Field(default=None, description="one launch per core pair: one-to-all")),
        precision=precision,
        max_time=max_time,
    )
    suite = create_model(
        "Suite",
        __config__=config,
        name=(str | None, None),
        description=(str, ...),
        include=(list[str], Field(default_factory=list)),
        benchmarks=(list[entry], Field(default_factory=list)),
        precision=precision,
        max_time=max_time,
    )
    return suite, entry


class SuiteError(yamlfile.YamlFileError):
    """A suite file that cannot be used; `problems` holds (path, line, key, message)."""


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
    from pydantic import ValidationError

    try:
        document = yamlfile.load(path, "suite file")
    except yamlfile.YamlFileError as exc:
        raise SuiteError(exc.problems) from None
    data, root = document.data, document.root
    if not isinstance(data, dict):
        line = root.start_mark.line + 1 if root is not None else 1
        raise SuiteError([(str(path), line, "", "a suite file is a mapping with 'description' and 'benchmarks'")])
    suite_model, _ = _file_models()
    try:
        checked = suite_model.model_validate(data)
    except ValidationError as exc:
        raise SuiteError([_problem(path, root, error) for error in exc.errors()]) from exc
    entries = []
    for entry in checked.benchmarks:
        fields_ = entry.model_dump()
        for key in ("precision", "max_time"):  # the suite's value where the entry has none
            fields_[key] = fields_[key] if fields_[key] is not None else getattr(checked, key)
        entries.append(Entry(**fields_))
    return Suite(
        name=checked.name or path.stem,
        description=checked.description,
        include=checked.include,
        benchmarks=entries,
        precision=checked.precision,
        max_time=checked.max_time,
    )


def _problem(path: Path, root: yaml.Node, error: dict) -> tuple[str, int, str, str]:
    loc = error["loc"]
    key = yamlfile.key_path(loc)
    message = error["msg"]
    if error["type"] == "extra_forbidden":
        suite_model, entry_model = _file_models()
        model = suite_model if len(loc) == 1 else entry_model
        message = f"unknown key; allowed keys: {', '.join(model.model_fields)}"
    elif error["type"] == "missing":
        message = "required key is missing"
    return str(path), yamlfile.line_of(root, loc), key, message


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
