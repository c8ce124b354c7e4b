"""ReFrame tests that run commscope-bench and report every message size.

A test runs the core under the partition's launcher with `--json-out`, reads the JSON
with commscope's own reader and makes one performance variable per size of the
benchmark's main metric, named METRIC_SIZE (latency_us_8, bandwidth_MBps_65536).
References, with a tolerance in the bad direction only (latency may not grow, bandwidth
may not shrink):

* reference_values = {8: 1.5, 1024: 3.0}: size -> value, or
* baseline = "before": the per-size medians of a commscope baseline in commscope_db,
* or ReFrame's own `reference` dictionary under the same names.

With commscope_db set, the run is also imported into that commscope result database.
"""

from __future__ import annotations

import os
import statistics
from pathlib import Path

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.builtins import parameter, run_after, run_before, sanity_function, variable

from commscope.execute.core import find_core
from commscope.ingest.parse import parse_file
from commscope.records.benchmarks import primary_metric
from commscope.records.metrics import higher_is_worse, unit_of
from commscope.records.suite import builtin_suites, expand, find_suite

JSON_OUT = "commscope.json"


def suite_entries(name: str) -> list[tuple[str, tuple[str, ...], int]]:
    """(benchmark, flags, ranks) of every entry of a shipped suite or a suite file."""
    path = builtin_suites().get(name) or find_suite(name) or Path(name)
    return [(entry.benchmark, tuple(entry.flags), entry.ranks) for entry in expand(path)]


class CommscopeBenchmark(rfm.RunOnlyRegressionTest, pin_prefix=False):
    """One commscope-bench benchmark with OMB flags, every size a performance variable."""

    benchmark = variable(str, value="latency")
    flags = variable(typ.List[str], value=[])
    ranks = variable(int, value=2)
    #: size -> reference value of the main metric; tolerance is the allowed share of it
    reference_values = variable(typ.Dict[int, float], value={})
    tolerance = variable(float, value=0.10)
    #: a commscope baseline (commscope baseline set NAME ...) to take reference values from
    baseline = variable(str, value="")
    #: a commscope result database: the baseline's, and where runs are imported when set
    commscope_db = variable(str, value="")
    core = variable(str, value="")  # default: the one `commscope run` would use
    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    tags = {"commscope"}
    maintainers = ["commscope"]

    @run_after("init")
    def describe(self):
        self.descr = f"commscope-bench {self.benchmark} {' '.join(self.flags)}".rstrip()

    @run_before("run")
    def set_command(self):
        self.executable = self.core or str(find_core())
        self.executable_opts = [self.benchmark, *self.flags, "--json-out", JSON_OUT]
        self.num_tasks = self.ranks

    def _runs(self):
        return parse_file(os.path.join(self.stagedir, JSON_OUT))

    @sanity_function
    def completed(self):
        """The core exited 0 (validation included) and its JSON document says complete."""
        document = os.path.join(self.stagedir, JSON_OUT)
        return sn.all(
            [
                sn.assert_eq(self.job.exitcode, 0, msg="commscope-bench exited with {0}"),
                sn.assert_true(os.path.exists(document), msg=f"no {JSON_OUT}: the core wrote no JSON"),
                sn.assert_found(
                    r'"status":\s*"complete"', document, msg="the core's JSON says the run did not complete"
                ),
            ]
        )

    @property
    def metric(self) -> str:
        return primary_metric(self.benchmark)

    @run_before("performance")
    def set_perf_variables(self):
        (parsed,) = self._runs()
        points = [point for point in parsed.run.points if self.metric in point.metrics]
        windows = len({point.window for point in points}) > 1  # -V
        axes = len({point.axes for point in points}) > 1  # -T, one-sided -w and -s
        self.perf_variables = {}
        for point in points:
            suffix = (f"_window {point.window}" if windows else "") + (f"_{point.axes.label()}" if axes else "")
            name = f"{self.metric}_{point.size}{suffix}"
            self.perf_variables[name] = sn.make_performance_function(
                sn.defer(point.metrics[self.metric]), unit_of(self.metric)
            )
        references = dict(self.reference_values) or self._baseline_values()
        if references:
            higher_worse = higher_is_worse(self.metric)
            lower, upper = (None, self.tolerance) if higher_worse else (-self.tolerance, None)
            self.reference = {
                "*": {
                    f"{self.metric}_{size}": (value, lower, upper, unit_of(self.metric))
                    for size, value in references.items()
                }
            }
        if self.commscope_db:
            self._store()

    def _baseline_values(self) -> dict[int, float]:
        if not self.baseline:
            return {}
        from commscope.store.db import Store

        if not self.commscope_db:
            raise ValueError("baseline needs commscope_db: the database that holds it")
        with Store(Path(self.commscope_db), create=False) as store:
            ids = store.baseline_run_ids(self.baseline) or []
            runs = [store.run(run_id) for run_id in ids]
        values: dict[int, list[float]] = {}
        for run in runs:
            if run.benchmark != self.benchmark:
                continue
            for point in run.points:
                value = point.metrics.get(self.metric)
                if point.size is not None and isinstance(value, (int, float)):
                    values.setdefault(point.size, []).append(value)
        if not values:
            raise ValueError(f"commscope baseline {self.baseline!r} has no {self.benchmark} runs")
        return {size: statistics.median(found) for size, found in values.items()}

    def _store(self):
        from commscope.ingest.importer import import_files
        from commscope.store.db import Store

        with Store(Path(self.commscope_db)) as store:
            result = import_files(
                store,
                [os.path.join(self.stagedir, JSON_OUT)],
                f"reframe {self.unique_name}",
                None,
                ["reframe", self.unique_name],
                force=True,
            )
        if result.errors:
            raise ValueError("; ".join(result.errors))


class CommscopeSuite(CommscopeBenchmark):
    """Every entry of a commscope suite as a test variant. Subclass and set the parameter:
    entry = parameter(suite_entries("pt2pt"), fmt=lambda entry: entry[0])."""

    entry = parameter([], fmt=lambda entry: entry[0])

    @run_after("init")
    def from_entry(self):
        self.benchmark, flags, self.ranks = self.entry
        self.flags = list(flags)
        self.describe()


@rfm.simple_test
class commscope_latency(CommscopeBenchmark):
    """Two-rank latency, small messages: a quick health check of a node or a link."""

    flags = ["-m", "1:64", "-i", "1000", "-x", "100"]
    tags = {"commscope", "quick"}


@rfm.simple_test
class commscope_quick_suite(CommscopeSuite):
    """commscope's quick suite (latency, bw, bibw up to 64 KiB on 2 ranks)."""

    entry = parameter(suite_entries("quick"), fmt=lambda entry: entry[0])
