"""`commscope history`: series over time from hand-made runs with exact numbers (noise from
a seeded generator), their change points, what changed, and the command's exits."""

from __future__ import annotations

import json

import numpy as np
import pytest

from commscope.analysis.changepoints import Rule, find_changes
from commscope.analysis.check import Policy
from commscope.analysis.history import headline, history, sizes_to_load
from commscope.analysis.provenance_diff import Difference, aspects, changed_at, lasting_differences
from commscope.records.invocation import invocation
from commscope.records.run import Run
from commscope.store.db import Store
from fixtures.analysis.handmade import SIZES, run_of

LATENCY = Rule(higher_worse=True, tolerance=0.10, floor=0.05)


def noisy(levels: list[tuple[int, float]], spread: float, seed: int = 1) -> list[float]:
    """`count` values around `level` for each (count, level), lognormal noise of `spread`."""
    rng = np.random.default_rng(seed)
    return [level * rng.lognormal(0, spread) for count, level in levels for _ in range(count)]


def test_a_flat_noisy_series_has_no_change_point():
    for seed in range(5):
        assert find_changes(noisy([(40, 2.0)], 0.10, seed), LATENCY) == []


def test_a_step_smaller_than_the_noise_has_no_change_point():
    # 15 % is beyond the tolerance, but with 30 % noise six runs a side cannot tell it
    assert find_changes(noisy([(6, 2.0), (6, 2.3)], 0.30, seed=3), LATENCY) == []
    # 4 % over many runs: the test may see it, the tolerance does not let it count
    assert find_changes(noisy([(30, 2.0), (30, 2.08)], 0.05), LATENCY) == []


def test_a_step_beyond_the_noise_is_one_change_point_with_its_medians():
    [change] = find_changes(noisy([(10, 1.0), (10, 3.0)], 0.05), LATENCY)
    assert change.index == 10 and change.worse
    assert change.before == pytest.approx(1.0, rel=0.05) and change.after == pytest.approx(3.0, rel=0.05)
    assert change.ratio == pytest.approx(3.0, rel=0.08)
    assert change.evidence.method == "mann-whitney" and change.evidence.significant


def test_a_regression_and_its_fix_are_two_change_points():
    changes = find_changes(noisy([(10, 1.0), (10, 2.0), (10, 1.0)], 0.05), LATENCY)
    assert [(change.index, change.worse) for change in changes] == [(10, True), (20, False)]


def test_lower_bandwidth_is_worse():
    [change] = find_changes(noisy([(8, 1000.0), (8, 600.0)], 0.03), Rule(False, 0.10, 0.0))
    assert change.worse and change.ratio == pytest.approx(0.6, rel=0.05)


def test_a_change_point_falls_between_repeat_groups():
    # launches of one `run --repeat` share their environment: the one odd first launch of
    # the third group does not move the change point into the group
    values = noisy([(6, 1.0), (6, 1.0), (6, 3.0)], 0.03)
    values[12] = 1.0
    [change] = find_changes(values, LATENCY, boundaries=[6, 12])
    assert change.index == 12


def _nightly(db, runs: list[Run], start_day: int = 1) -> list[int]:
    """Store each run as its own `commscope run` (as nightly jobs do), a day apart."""
    ids = []
    with Store(db) as store:
        for day, run in enumerate(runs, start=start_day):
            run.started_at = f"2026-03-{day:02d}T02:00:00Z"
            ids += store.add_runs([run], store.add_invocation(invocation("run", ["commscope", "run"])))
    return ids


def _latency_runs(levels: list[tuple[int, float]], spread: float = 0.03, **provenance) -> list[Run]:
    rng = np.random.default_rng(5)
    runs = []
    for count, level in levels:
        for _ in range(count):
            factor = level * rng.lognormal(0, spread)
            run = run_of({size: (1.0 + size / 5000) * factor for size in SIZES[:10]}, label="nightly", system="vm")
            runs.append(run)
    return runs


def _described(**changes) -> dict:
    """aspects() of a run on n1 with MPICH 4.0.2 over shared memory, as `changes` change it."""
    run = Run("latency", mpi_library="MPICH", mpi_version="4.0.2", hosts=[{"name": "n1", "ranks": [0, 1]}])
    run.environment = {"UCX_TLS": "sm,self", "OMP_NUM_THREADS": "1"}
    run.provenance = {"transport": {"requested": "shm"}, "kernel": "6.1.0-18"}
    for name, value in changes.items():
        setattr(run, name, value)
    return aspects(run)


def test_lasting_differences_name_what_changed_and_leave_out_what_changes_every_launch():
    upgraded = {
        "mpi_version": "4.1.1",
        "hosts": [{"name": "n2", "ranks": [0, 1]}],
        "provenance": {"transport": {"requested": "net"}, "kernel": "6.1.0-21"},
    }
    series = [
        _described(job_id="1", environment={"UCX_TLS": "sm,self", "SLURM_JOB_ID": "1", "TMP_SESSION": "a"}),
        _described(environment={"UCX_TLS": "sm,self", "SLURM_JOB_ID": "2", "TMP_SESSION": "b"}),
        _described(**upgraded, environment={"UCX_TLS": "tcp,self", "MPIR_CVAR_NOLOCAL": "1", "TMP_SESSION": "c"}),
        _described(**upgraded, environment={"UCX_TLS": "tcp,self", "MPIR_CVAR_NOLOCAL": "1", "TMP_SESSION": "d"}),
    ]
    assert lasting_differences(series, 2) == [
        Difference("MPI", "MPICH 4.0.2", "MPICH 4.1.1"),
        Difference("transport", "shm", "net"),
        Difference("hosts", "n1", "n2"),
        Difference("kernel", "6.1.0-18", "6.1.0-21"),
        Difference("UCX_TLS", "sm,self", "tcp,self"),
        Difference("MPIR_CVAR_NOLOCAL", None, "1"),
    ]
    assert changed_at(series) == {2}


def test_a_kernel_upgrade_on_the_inventoried_hosts_is_a_difference():
    """`commscope run` stores each host's link inventory with its kernel release: an upgrade
    on one host of two is named, the same release on every host once."""

    def on(kernels: dict[str, str]) -> dict:
        inventories = {host: {"host": host, "kernel": release} for host, release in kernels.items()}
        return _described(provenance={"transport": {"requested": "shm"}, "links": {"hosts": inventories}})

    series = [on({"n1": "6.1.0-18", "n2": "6.1.0-18"})] * 2 + [on({"n1": "6.1.0-18", "n2": "6.1.0-21"})] * 2
    assert lasting_differences(series, 2) == [Difference("kernel", "6.1.0-18", "6.1.0-18, 6.1.0-21")]


def test_a_change_point_one_run_from_a_change_of_environment_moves_to_it():
    values = noisy([(8, 1.0), (8, 2.0)], 0.03)
    values[7] = 2.1  # the last run before the upgrade met a busy neighbour
    [change] = find_changes(values, LATENCY)
    assert change.index == 7
    [change] = find_changes(values, LATENCY, changed={8})
    assert change.index == 8 and change.worse


def test_headline_sizes():
    sizes = {0, 1, 2, 4, 8, 16, 1 << 20}
    assert headline("latency", "latency_us", sizes, sizes).text == "0-8 B"
    assert headline("bw", "bandwidth_MBps", sizes, {1, 1 << 20}).sizes == (1 << 20,)
    assert headline("allreduce", "latency_us", sizes, sizes).sizes == (8,)
    assert headline("barrier", "latency_us", {None}, {None}).sizes == (None,)


def test_history_of_stored_runs_names_the_change(db):
    runs = _latency_runs([(8, 1.0), (8, 2.0)])
    for index, run in enumerate(runs):
        run.provenance = {"transport": {"requested": "shm" if index < 8 else "net"}}
    ids = _nightly(db, runs)
    with Store(db) as store:
        found = history([store.run(run_id) for run_id in ids], Policy())
    [series] = found.series
    assert series.name == "latency (vm, nightly) at 0-8 B" and len(series.samples) == 16
    [point] = series.changes
    assert (point.before.id, point.after.id) == (ids[7], ids[8])
    assert point.differences == [Difference("transport", "shm", "net")]
    assert found.regressed == [series]


def test_history_command_exits_1_on_a_regression_and_0_after_a_fix(cli, db):
    _nightly(db, _latency_runs([(8, 1.0), (8, 2.0)]))
    result = cli("history", "--benchmark", "latency", "--db", db)
    assert result.exit_code == 1, result.output
    assert "1 change point(s); the newest level is a REGRESSION" in result.output
    assert "change at run 9 (2026-03-09 02:00)" in result.output
    _nightly(db, _latency_runs([(8, 1.0)]), start_day=17)
    result = cli("history", "--benchmark", "latency", "--db", db, "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    [series] = document["series"]
    assert [(change["after_run"], change["worse"]) for change in series["changes"]] == [(9, True), (17, False)]
    assert [level["runs"] for level in series["levels"]] == [8, 8, 8]


def test_history_at_a_size_and_as_markdown(cli, db):
    _nightly(db, _latency_runs([(6, 1.0), (6, 1.5)]))
    result = cli("history", "--benchmark", "latency", "--size", "256", "--format", "markdown", "--db", db)
    assert result.exit_code == 1, result.output
    assert "latency (vm, nightly) at 256 B" in result.output and "| Level | Runs |" in result.output
    assert "latency (vm, nightly) at 256 B: change points" in result.output


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nosuch"], "no run matches 'nosuch'"),
        (["1"], "history needs two or more runs; the selection has only run 1"),
        (["--size", "3"], "no selected run has size 3 B"),
        (["--size", "three"], "is not a size"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, db, argv, message):
    _nightly(db, _latency_runs([(3, 1.0)]))
    result = cli("history", *argv, "--db", db)
    assert result.exit_code == 2 and message in result.output, result.output
    assert "Traceback" not in result.output


def test_report_has_a_timeline_per_headline_series_with_its_change_points(cli, db, tmp_path):
    runs = _latency_runs([(6, 1.0), (6, 2.0)])
    for index, run in enumerate(runs):
        run.provenance = {"transport": {"requested": "shm" if index < 6 else "net"}}
    _nightly(db, runs)
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    result = cli("report", "--all", "-o", html, "--markdown", md, "--db", db)
    assert result.exit_code == 0, result.output
    page = html.read_text()
    timeline = page[page.index('<h2 id="timelines">') : page.index('<h2 id="provenance">')]
    assert "latency (vm, nightly) at 0-8 B" in timeline and "REGRESSION" in timeline
    assert 'src="data:image/svg+xml;base64,' in timeline and "transport shm → net" in timeline
    text = md.read_text()
    assert "## Over time" in text and "](r-figures/timeline-1.svg)" in text
    assert (tmp_path / "r-figures" / "timeline-1.svg").read_bytes().startswith(b"<?xml")


def test_loading_only_the_sizes_history_needs_gives_the_same_series(db):
    latency = _latency_runs([(4, 1.0), (4, 2.0)])
    bandwidth = [run_of({size: 1000.0 + size / 1000 for size in SIZES[3:12]}, metric="bandwidth_MBps", benchmark="bw")]
    bandwidth += [run_of({size: 900.0 for size in SIZES[3:14]}, metric="bandwidth_MBps", benchmark="bw")]
    ids = _nightly(db, [*latency, *bandwidth])
    with Store(db) as store:
        whole = history([store.run(run_id) for run_id in ids])
        wanted = sizes_to_load(store.point_sizes(ids), None, False)
        part = history(store.runs_at_sizes(ids, wanted))
    assert [(s.name, [x.value for x in s.samples]) for s in part.series] == [
        (s.name, [x.value for x in s.samples]) for s in whole.series
    ]
    assert [s.where.text for s in part.series] == ["0-8 B", "4 KiB"]
