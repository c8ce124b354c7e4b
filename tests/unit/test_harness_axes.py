"""Every sweep axis of the core reaches the store and everything that reads it (issue 9).

`commscope run allreduce -- -T mpi_char,mpi_int -m 1:8` measures six points: four
sizes in MPI_CHAR, two in MPI_INT (whole elements only). They used to be stored as
size and window alone, so compare showed four rows with MPI_INT's values in place of
MPI_CHAR's. Hand-made records here; the real core under both MPI libraries below.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from pathlib import Path

import pytest

from commands import FEW_ITERATIONS
from commscope.records.core_record import point_from_core
from commscope.records.run import Axes, Point, Run
from commscope.store.db import Store
from fixtures.analysis.handmade import stats_for, store_runs
from mpi_flavours import flavour_params, need
from paths import FIXTURES as SUPPORT_FIXTURES

# (datatype, size, latency): what -T mpi_char,mpi_int -m 1:8 measures, in the core's order.
SWEEP = [
    ("MPI_CHAR", 1, 1.0),
    ("MPI_CHAR", 2, 2.0),
    ("MPI_CHAR", 4, 3.0),
    ("MPI_CHAR", 8, 4.0),
    ("MPI_INT", 4, 30.0),
    ("MPI_INT", 8, 40.0),
]


def core_record(size: int, latency: float, **axes: str) -> dict:
    """A result record as commscope-bench writes it (result.schema.json $defs/record)."""
    stats = {"unit": "us", "samples": 100, **stats_for(latency, 0.01, 100)}
    return {
        "size": size,
        "window": 1,
        "iterations": 100,
        "warmup": 10,
        "batch": 1,
        "stats": stats,
        "metrics": {"latency_us": latency},
        "percentiles": [],
        "validation": None,
        **axes,
    }


def allreduce_run(label: str = "t") -> Run:
    points = [
        point_from_core(core_record(size, latency, datatype=datatype), "latency") for datatype, size, latency in SWEEP
    ]
    return Run(benchmark="allreduce", label=label, ranks=2, points=points)


def test_datatypes_survive_the_store_and_compare(cli, db, clean_env):
    store_runs(db, [allreduce_run()])
    result = cli("compare", "--db", db, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert list(csv.reader(io.StringIO(result.stdout))) == [
        ["datatype", "size", "t"],
        *([datatype, str(size), str(latency)] for datatype, size, latency in SWEEP),
    ]


def test_export_has_the_datatype_of_every_point(cli, db, clean_env):
    store_runs(db, [allreduce_run()])
    rows = list(csv.DictReader(io.StringIO(cli("export", "1", "--db", db, "--format", "csv").stdout)))
    assert [(row["datatype"], int(row["size"]), float(row["latency_us"])) for row in rows] == SWEEP


# -- the real core ------------------------------------------------------------------------


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def test_a_datatype_sweep_is_stored_and_compared_per_datatype(mpi, tmp_path):
    db = tmp_path / "results.db"
    done = mpi.commscope(
        db,
        "run",
        "allreduce",
        "--launcher",
        mpi.launcher,
        "--",
        "-T",
        "mpi_char,mpi_int",
        "-m",
        "1:8",
        *FEW_ITERATIONS,
    )
    assert done.returncode == 0, done.stderr
    with Store(db, create=False) as store:
        run = store.run(store.last_run_id())
    assert [(point.axes.datatype, point.size) for point in run.points] == [
        (datatype, size) for datatype, size, _ in SWEEP
    ]
    compared = mpi.commscope(db, "compare", "last", "--format", "csv")
    assert compared.returncode == 0, compared.stderr
    rows = list(csv.reader(io.StringIO(compared.stdout)))
    assert rows[0][:2] == ["datatype", "size"]
    assert [(row[0], int(row[1])) for row in rows[1:]] == [(datatype, size) for datatype, size, _ in SWEEP]
    assert all(float(row[2]) > 0 for row in rows[1:])


# -- every reader of the store keys on the axes ------------------------------------------------

GOLDEN = SUPPORT_FIXTURES / "analysis"


def scaled(run: Run, label: str, factor_of: dict[str, float]) -> Run:
    """A copy of `run` under another label, each datatype's times multiplied by its factor."""
    points = []
    for point in run.points:
        factor = factor_of[point.axes.datatype]
        points.append(
            dataclasses.replace(
                point,
                metrics={"latency_us": point.metrics["latency_us"] * factor},
                stats={key: value * factor for key, value in point.stats.items()},
            )
        )
    return dataclasses.replace(run, label=label, points=points)


@pytest.fixture
def two(db, clean_env) -> Path:
    """Run a, and run b: MPI_CHAR as fast as a, MPI_INT twice as slow."""
    first = allreduce_run("a")
    store_runs(db, [first, scaled(first, "b", {"MPI_CHAR": 1.0, "MPI_INT": 2.0})])
    return db


def test_markdown_compare_has_a_datatype_column(cli, two):
    result = cli("compare", "--db", two, "--format", "markdown", "--ratio")
    assert result.stdout == (GOLDEN / "compare_datatypes.md").read_text()


def test_csv_export_is_golden(cli, two):
    result = cli("export", "1", "--db", two, "--format", "csv")
    assert result.stdout == (GOLDEN / "export_datatypes.csv").read_text()


def test_check_judges_each_datatype_on_its_own(cli, two):
    assert cli("baseline", "set", "ref", "a", "--db", two).exit_code == 0
    result = cli("check", "b", "--baseline", "ref", "--db", two)
    assert result.exit_code == 1
    summaries = [line for line in result.stdout.splitlines() if line.startswith("allreduce")]
    assert summaries[0].startswith("allreduce [MPI_CHAR] (latency_us): PASS, 0 of 4 sizes fail")
    assert summaries[1].startswith("allreduce [MPI_INT] (latency_us): FAIL, 2 of 2 sizes fail")


def test_model_fits_each_datatype(cli, db, clean_env):
    points = [
        point_from_core(core_record(size, alpha + size / 1000, datatype=datatype), "latency")
        for datatype, alpha in (("MPI_CHAR", 1.0), ("MPI_INT", 3.0))
        for size in (4, 8, 16, 32, 64)
    ]
    store_runs(db, [Run(benchmark="allreduce", points=points)])
    result = cli("model", "1", "--db", db, "--format", "json")
    assert result.exit_code == 0, result.output
    fits = json.loads(result.stdout)
    assert [(fit["datatype"], round(fit["alpha_us"], 3)) for fit in fits] == [("MPI_CHAR", 1.0), ("MPI_INT", 3.0)]
    table = cli("model", "1", "--db", db).stdout
    assert "run 1: allreduce [MPI_CHAR]" in table and "run 1: allreduce [MPI_INT]" in table


def test_plot_draws_a_labelled_line_per_datatype(two):
    from commscope.output.plot import figure

    with Store(two, create=False) as store:
        runs = [store.run(1), store.run(2)]
    [axis] = figure(runs).axes
    assert [line.get_label() for line in axis.get_lines()] == ["a MPI_CHAR", "a MPI_INT", "b MPI_CHAR", "b MPI_INT"]


def test_a_table_that_does_not_say_its_datatype_lines_up_with_one_that_does(cli, db, clean_env):
    """Unswept (None) is not a value of its own: one datatype and none is no axis to show."""
    chars = [point_from_core(core_record(size, 1.0, datatype="MPI_CHAR"), "latency") for size in (1, 2)]
    store_runs(
        db,
        [
            Run(benchmark="allreduce", label="new", points=chars),
            Run(
                benchmark="allreduce",
                label="old",
                points=[Point(size=1, metrics={"latency_us": 2.0}), Point(size=2, metrics={"latency_us": 2.0})],
            ),
        ],
    )
    assert cli("compare", "--db", db, "--format", "csv").stdout == "size,new,old\n1,1.0,2.0\n2,1.0,2.0\n"


# -- imports carry the axes where the file names them ---------------------------------------------

PARSE_FIXTURES = SUPPORT_FIXTURES / "parse"


def imported(cli, db: Path, path: Path) -> list[Run]:
    assert cli("import", path, "--db", db).exit_code == 0
    with Store(db, create=False) as store:
        return [store.run(summary.id) for summary in reversed(store.summaries())]


def test_omb_datatype_lines_reach_the_points(cli, db, clean_env):
    runs = imported(cli, db, PARSE_FIXTURES / "omb7_allreduce_all_types.txt")
    assert [{point.axes for point in run.points} for run in runs] == [
        {Axes(datatype=name)} for name in ("MPI_CHAR", "MPI_INT", "MPI_FLOAT")
    ]
    rows = list(csv.reader(io.StringIO(cli("compare", "--db", db, "--format", "csv").stdout)))
    assert rows[0][:2] == ["datatype", "size"] and rows[1][:2] == ["MPI_CHAR", "1"]


def test_show_prints_an_imported_tables_own_text(cli, db, clean_env):
    """Each table of an OMB -T file is a run; show prints its lines as the file has them."""
    imported(cli, db, PARSE_FIXTURES / "omb7_allreduce_all_types.txt")
    text = (PARSE_FIXTURES / "omb7_allreduce_all_types.txt").read_text().splitlines()
    shown = cli("show", "2", "--db", db).stdout
    assert shown.endswith("\n\n" + "\n".join([text[1], *text[6:10]]) + "\n")  # title, the MPI_INT table
    assert "# Datatype: MPI_INT." in shown and "MPI_CHAR" not in shown


def test_omb_one_sided_modes_are_stored_in_the_cores_words(cli, db, clean_env):
    [run] = imported(cli, db, PARSE_FIXTURES / "omb7_put_latency.txt")
    assert {point.axes for point in run.points} == {Axes("MPI_CHAR", "allocate", "flush")}


def test_a_commscope_json_document_with_datatypes_imports(cli, db, clean_env, tmp_path):
    document = json.loads((PARSE_FIXTURES / "commscope_latency.json").read_text())
    document["benchmark"].update(name="allreduce", pattern="collective")
    document["options"]["datatypes"] = ["MPI_CHAR", "MPI_INT"]
    document["results"] = [core_record(size, latency, datatype=datatype) for datatype, size, latency in SWEEP]
    path = tmp_path / "allreduce.json"
    path.write_text(json.dumps(document))
    runs = imported(cli, db, path)
    assert [(point.axes.datatype, point.size) for run in runs for point in run.points] == [
        (datatype, size) for datatype, size, _ in SWEEP
    ]
