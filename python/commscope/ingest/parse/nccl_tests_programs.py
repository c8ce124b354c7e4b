"""Which nccl-tests program wrote a table that does not say.

nccl-tests prints the program's name ("# Collective test starting: all_gather_perf") only
since v2.16.7 (June 2025): earlier outputs, most of those published, start with the
settings line, the devices and the table. The table itself tells a good deal (nccl-tests'
src/*.cu, every version since 2019):

- its key columns: before v2.13 (August 2022) each program printed its own (all_reduce,
  reduce_scatter and alltoall: type redop; broadcast, gather and scatter: type root;
  reduce: type redop root; all_gather, sendrecv and hypercube: type); since, all print
  type, redop and root;
- the reduction in the redop column: "none" (blank before v2.13, and in hypercube's) for
  the programs that do not reduce;
- the root: -1 but for the rooted programs (broadcast, reduce, gather, scatter);
- the count per size: size = count x the type's size, or that times n for the programs
  whose count is one rank's part (all_gather, reduce_scatter, alltoall, gather, scatter,
  hypercube);
- busbw / algbw: 2(n-1)/n for all_reduce; (n-1)/n for reduce_scatter, all_gather,
  alltoall, gather and scatter; 1 for broadcast, reduce, sendrecv and hypercube (and for
  all_gather and reduce_scatter before June 2020);
- the in-place #wrong beside an out-of-place count: N/A for sendrecv and alltoall, which
  have no in-place check, a count for the others (since v2.13.1, September 2022: v2.13.0
  alone printed a count for all, so its sendrecv of 2 ranks reads as an all_reduce and
  its alltoall as an all_gather);

with n the ranks the device lines list. The program is the one that fits all of it; a
table that fits several (without validation, -c 0, an all_reduce and a sendrecv of 2 ranks
print the same table, and so do an all_gather and an alltoall) or none is refused, and
`commscope import --benchmark PROGRAM` names its program.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import Point
from commscope.records import benchmarks


def _all_reduce(ranks: int) -> float:
    return 2 * (ranks - 1) / ranks


def _ring(ranks: int) -> float:
    return (ranks - 1) / ranks


def _one(ranks: int) -> float:
    return 1.0


#: nccl-tests' types and their sizes in bytes (char and int: as built against NCCL 1).
TYPE_SIZES = {
    "int8": 1,
    "uint8": 1,
    "char": 1,
    "int32": 4,
    "uint32": 4,
    "int": 4,
    "int64": 8,
    "uint64": 8,
    "half": 2,
    "float": 4,
    "double": 8,
    "bfloat16": 2,
    "f8e4m3": 1,
    "f8e5m2": 1,
}
_NO_REDUCTION = (None, "", "none")

_BEFORE_2_13 = {"redop": ("type", "redop"), "root": ("type", "root"), "none": ("type",)}
_SINCE_2_13 = ("type", "redop", "root")


@dataclass(frozen=True)
class Signature:
    """What one program's table looks like."""

    program: str
    keys: tuple[tuple[str, ...], ...]  # the key columns after size and count it printed
    reduces: bool  # a reduction in the redop column (sendrecv prints its unused "sum")
    rooted: bool  # a root of 0 or more, not -1
    per_rank: bool  # the count is one rank's part: size = count x type size x ranks
    factor: Callable[[int], float]  # busbw / algbw for n ranks
    in_place_unchecked: bool = False  # prints N/A for the in-place #wrong
    once_one: bool = False  # busbw = algbw before June 2020 (so with the key columns of before v2.13)


#: program, key columns, reduces, rooted, per_rank, factor (Signature's fields, in order)
SIGNATURES = (
    Signature("all_reduce_perf", (_BEFORE_2_13["redop"], _SINCE_2_13), True, False, False, _all_reduce),
    Signature("reduce_scatter_perf", (_BEFORE_2_13["redop"], _SINCE_2_13), True, False, True, _ring, once_one=True),
    Signature(
        "alltoall_perf", (_BEFORE_2_13["redop"], _SINCE_2_13), False, False, True, _ring, in_place_unchecked=True
    ),
    Signature("broadcast_perf", (_BEFORE_2_13["root"], _SINCE_2_13), False, True, False, _one),
    Signature("reduce_perf", (_SINCE_2_13,), True, True, False, _one),
    Signature("gather_perf", (_BEFORE_2_13["root"], _SINCE_2_13), False, True, True, _ring),
    Signature("scatter_perf", (_BEFORE_2_13["root"], _SINCE_2_13), False, True, True, _ring),
    Signature("all_gather_perf", (_BEFORE_2_13["none"], _SINCE_2_13), False, False, True, _ring, once_one=True),
    Signature("sendrecv_perf", (_BEFORE_2_13["none"], _SINCE_2_13), True, False, False, _one, in_place_unchecked=True),
    Signature("hypercube_perf", (_BEFORE_2_13["none"], _SINCE_2_13), False, False, True, _one),
)
_KNOWN_NAMES = frozenset(benchmarks.from_nccl_tests(signature.program) for signature in SIGNATURES)


@dataclass
class Row:
    """What one table row says about its program."""

    type: str | None
    redop: str | None
    root: int | None
    point: Point


@dataclass
class Inference:
    """The programs a table fits, and what in it was looked at (for the note that says how)."""

    candidates: list[str]
    facts: list[str]

    @property
    def program(self) -> str | None:
        return self.candidates[0] if len(self.candidates) == 1 else None


def _fits_bandwidth(signature: Signature, rows: list[Row], ranks: int, shape: tuple[str, ...]) -> bool:
    """busbw = factor x algbw on every side of every row, within the rounding of '%6.2f'."""
    factors = [signature.factor(ranks)] + ([1.0] if signature.once_one and shape != _SINCE_2_13 else [])
    for row in rows:
        for prefix in ("", "in_place_"):
            algbw, busbw = row.point.values.get(prefix + "algbw_GBps"), row.point.values.get(prefix + "busbw_GBps")
            if algbw is None or busbw is None:
                continue
            # each printed to 2 decimals: within 0.005 of its value
            if not any(abs(busbw - factor * algbw) <= 0.005 * (1 + factor) + 1e-9 for factor in factors):
                return False
    return True


def _count_per_size(rows: list[Row], ranks: int) -> str | None:
    """ "whole" when every row's size is its count x the type's size, "per_rank" when it is
    that x ranks, "neither" when a row is neither or rows disagree; None when no row tells
    (no count, a type not known here) or one rank makes both the same."""
    found = set()
    for row in rows:
        count, width, size = row.point.values.get("elements"), TYPE_SIZES.get(row.type or ""), row.point.size
        if not count or not width or not size:
            continue
        if size == count * width:
            found.add("whole")
        elif size == count * width * ranks:
            found.add("per_rank")
        else:
            return "neither"
    if ranks == 1 or not found:
        return None
    return found.pop() if len(found) == 1 else "neither"


def infer(keys: Iterable[str], rows: list[Row], ranks: int | None, checks_wrong: bool) -> Inference:
    """The programs whose tables look like this one. `keys` are the table's key columns,
    `ranks` the device lines' count, `checks_wrong` whether it has a #wrong column."""
    shape = tuple(key for key in keys if key not in ("size", "count"))
    facts = [f"key columns {' '.join(shape) or '(none)'}"]
    candidates = [signature for signature in SIGNATURES if shape in signature.keys]
    if "redop" in shape:
        redops = {row.redop for row in rows}
        reduces = {redop not in _NO_REDUCTION for redop in redops}
        facts.append("redop " + ", ".join(sorted(redop or "blank" for redop in redops)))
        candidates = [s for s in candidates if {s.reduces} == reduces]
    if "root" in shape:
        roots = {row.root for row in rows}
        facts.append("root " + ", ".join(str(root) for root in sorted(r for r in roots if r is not None)))
        candidates = [s for s in candidates if {s.rooted} == {root is not None and root >= 0 for root in roots}]
    if ranks:
        fit = _count_per_size(rows, ranks)
        if fit == "neither":
            facts.append(f"sizes that are neither count x type size nor that x {ranks} ranks")
            candidates = []
        elif fit is not None:
            facts.append("size = count x type size" + (f" x {ranks} ranks" if fit == "per_rank" else ""))
            candidates = [s for s in candidates if s.per_rank == (fit == "per_rank")]
        candidates = [s for s in candidates if _fits_bandwidth(s, rows, ranks, shape)]
        ratio = _ratio(rows)
        if ratio is not None:
            facts.append(f"busbw = {ratio:.3f} x algbw with {ranks} rank{'s' if ranks > 1 else ''}")
    else:
        facts.append("no device lines (ranks unknown)")
    checked = [row.point.values for row in rows if "validation_errors" in row.point.values]
    if checks_wrong and checked:
        unchecked = any("in_place_validation_errors" not in values for values in checked)
        facts.append("in-place #wrong N/A" if unchecked else "in-place #wrong counted")
        candidates = [s for s in candidates if s.in_place_unchecked == unchecked]
    return Inference([s.program for s in candidates], facts)


def _ratio(rows: list[Row]) -> float | None:
    """busbw / algbw of the row with the largest algbw (the most digits), for the note."""
    sides = [(row.point.values.get("algbw_GBps"), row.point.values.get("busbw_GBps")) for row in rows]
    sides = [(algbw, busbw) for algbw, busbw in sides if algbw and busbw is not None and algbw >= 1]
    if not sides:
        return None
    algbw, busbw = max(sides)
    return busbw / algbw


def _check_given(given: str, named: str | None, found: Inference, source: str, line: int) -> None:
    """--benchmark names the program of a table the output does not name for sure; refused
    where the file says otherwise: a table that cannot be `given`'s (an alltoall table is no
    all_reduce), or one a command line above names another program of, that it fits."""
    stored_name = benchmarks.from_nccl_tests
    fits = {stored_name(program) for program in found.candidates}
    if found.candidates and stored_name(given) not in fits:
        raise ParseError(
            source,
            line,
            f"--benchmark says {given}, but this table is not {given}'s ({'; '.join(found.facts)}): "
            "--benchmark names the program of outputs that do not name theirs",
        )
    if named is not None and stored_name(named) != stored_name(given) and stored_name(named) in fits:
        raise ParseError(
            source,
            line,
            f"the command line above names {named}, whose table this is as much as {given}'s; "
            f"--benchmark says {given}: import this output without --benchmark",
        )


def choose_program(
    named: str | None,
    named_by: str | None,
    given: str | None,
    inference: Callable[[], Inference],
    source: str,
    line: int,
) -> tuple[str, str | None]:
    """The program of a table, and how it was known where the output does not say.

    `named` is what the output names and `named_by` where: "output" (its "Collective test
    starting" line, or the -J document's arguments) or "command" (a *_perf command line
    above the table, which may be a script's echo of another program). `given` is
    --benchmark's program. A program the output states itself is checked against `given`;
    one a command line names, against the table; the table alone is read last."""
    stored_name = benchmarks.from_nccl_tests
    if given is not None:
        if named_by == "output":
            if stored_name(named or "") != stored_name(given):
                raise ParseError(source, line, f"the output says it is {named}, --benchmark says {given}")
            return named or given, None
        above = f"the command line above names {named}" if named else "the output does not name it"
        _check_given(given, named, inference(), source, line)
        return given, f"{given}, named by --benchmark ({above})"
    if named is not None:
        if named_by == "command" and stored_name(named) in _KNOWN_NAMES:
            found = inference()
            if stored_name(named) not in {stored_name(program) for program in found.candidates}:
                raise ParseError(
                    source,
                    line,
                    f"the command line above names {named}, but this table is not {named}'s "
                    f"({'; '.join(found.facts)}): --benchmark names the program that wrote it",
                )
        return named, None
    found = inference()
    if found.program is not None:
        return found.program, f"{found.program}, inferred from the table ({'; '.join(found.facts)})"
    fits = f"fits {', '.join(found.candidates)}" if found.candidates else "fits no nccl-tests program"
    raise ParseError(
        source,
        line,
        "cannot tell which nccl-tests program wrote this table: the output does not name it (no "
        f"'Collective test starting' line, nccl-tests before v2.16.7) and the table {fits} "
        f"({'; '.join(found.facts)}); name it with --benchmark, e.g. --benchmark "
        f"{found.candidates[0] if found.candidates else 'all_reduce_perf'}",
    )
