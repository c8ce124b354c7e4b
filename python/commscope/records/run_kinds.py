"""The kinds of run, by name, and how a run's kind is known: a curve over message sizes, a
link sweep, a locate sweep, HPL/hpcc, fio storage, congestion. A run's kind follows from its
benchmark and, for a link sweep, the mode its sweep entry names; it is worked out once, when
the run is stored, and kept in the runs table (`kind`, `sweep_mode`), so reading a run never
derives it again (store.schema's version 11 filled it in for the runs stored before).
kinds/ gives each kind its behaviour under the same name; the sweep modes (sweep/modes) are
the modes a sweep entry names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from commscope.records.benchmarks import COMPUTE_BENCHMARKS, CONGESTION_BENCHMARK, PAIRS_BENCHMARK, STORAGE_BENCHMARK

if TYPE_CHECKING:
    from commscope.records.run import Run

#: The key of a sweep's entry in a run's provenance: its mode, rules and retest
#: (analysis.sweep_verdicts writes it).
SWEEP_KEY = "sweep"
#: The mode a locate sweep's entry names (sweep/modes/locate.py is the mode of that name).
LOCATE_MODE = "locate"

CURVE = "curve"
LINK_SWEEP = "link-sweep"
LOCATE_SWEEP = "locate-sweep"
HPL = "hpl"
FIO = "fio"
CONGESTION = "congestion"

#: The kind of each benchmark that is not a curve (the pairs benchmark: by its sweep's mode).
_BY_BENCHMARK = {
    STORAGE_BENCHMARK: FIO,
    CONGESTION_BENCHMARK: CONGESTION,
    **{benchmark: HPL for benchmark in COMPUTE_BENCHMARKS},
}


def sweep_mode_of(provenance: dict[str, Any] | None) -> str | None:
    """The mode a run's sweep entry names (None: not a sweep, or a serial retest)."""
    entry = (provenance or {}).get(SWEEP_KEY)
    mode = entry.get("mode") if isinstance(entry, dict) else None
    return mode if isinstance(mode, str) else None


def kind_name(benchmark: str | None, sweep_mode: str | None) -> str | None:
    """The kind of a run of `benchmark` (None: a record that names no benchmark)."""
    if not benchmark:
        return None
    if benchmark == PAIRS_BENCHMARK:
        return LOCATE_SWEEP if sweep_mode == LOCATE_MODE else LINK_SWEEP
    return _BY_BENCHMARK.get(benchmark, CURVE)


def kind_of_run(run: Run) -> str | None:
    """The kind a run is: as stored with it, or, for a run not stored yet, as its benchmark
    and sweep mode make it."""
    return run.kind or kind_name(run.benchmark, run.sweep_mode or sweep_mode_of(run.provenance))
