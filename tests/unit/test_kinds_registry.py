"""The run-kind registry itself: over runs of every kind as commscope stores them (the
core's golden records imported, HPL, hpcc and fio outputs, a link sweep and a locate sweep
measured by the real sweep code, a congestion run), each run is stored with its kind and
read back as exactly one kind, whatever the order the kinds are asked in; a record of no
known kind, or one two kinds of one name would claim, is refused by name; a kind answers
what every kind answers, and history and model only where it has them."""

from __future__ import annotations

import json
import shlex
import sys

import pytest

from commscope.errors import UsageError
from commscope.kinds import KINDS, kind_of
from commscope.kinds.base import Followed, Modelled, RunKind
from commscope.kinds.curve import CURVE, Curve
from commscope.records import run_kinds
from commscope.records.benchmarks import CONGESTION_BENCHMARK, PAIRS_BENCHMARK
from commscope.records.invocation import invocation
from commscope.records.run import Axes, Point, Run
from commscope.store.db import Store
from fixtures.analysis.handmade import run_of, store_runs
from fixtures.analysis.sweep_runs import planted_sweep
from paths import CORE_GOLDEN, FIXTURES

COMPUTE = FIXTURES / "compute"


def _congestion_run() -> Run:
    metrics = {"isolated_avg_us": 2.0, "congested_avg_us": 4.0, "impact_avg": 2.0, "impact_p99": 2.0}
    point = Point(size=8, metrics=metrics, axes=Axes(canary="rr_lat", congestor="alltoall"), iterations=10)
    return Run(benchmark=CONGESTION_BENCHMARK, label="congestion", points=[point])


@pytest.fixture
def stored(cli, clean_env, monkeypatch, tmp_path) -> tuple[list[Run], range]:
    """One store holding runs of every kind, as the commands that make them store them;
    and the ids of those imported from the core's golden records."""
    sweep = planted_sweep(monkeypatch, tmp_path, 4, "node")  # its run and its retest run
    db = sweep.db
    golden = sorted(CORE_GOLDEN.glob("*.json"))
    imported = cli("import", *golden, "--db", db)
    assert imported.exit_code == 0, imported.output
    with Store(db) as store:
        golden_ids = range(sweep.run_id + 2, store.last_run_id() + 1)  # after the sweep and its retest
    for name in ("HPL.out", "hpccoutf_np1.txt", "fio_2jobs_seq_write.json"):
        assert cli("import", COMPUTE / name, "--db", db).exit_code == 0
    network = tmp_path / "network.json"
    network.write_text(json.dumps({"seed": 3, "slow_nodes": {"cn03": 0.5}}))
    oracle = f"{shlex.quote(sys.executable)} -m commscope.sweep.simulate {shlex.quote(str(network))}"
    hosts = ",".join(f"cn{index:02d}" for index in range(12))
    located = cli("sweep", "locate", "--hosts", hosts, "--oracle", oracle, "--seed", "1", "--db", db)
    assert located.exit_code == 1, located.output  # a bad node found
    with Store(db) as store:
        last = store.add_run(_congestion_run(), store.add_invocation(invocation("run", ["commscope", "run"])))
        return store.runs(range(1, last + 1)), golden_ids


@pytest.mark.slow
def test_every_run_is_stored_with_its_kind_and_read_back_as_it(stored):
    stored_runs, golden_ids = stored
    kinds = {run.id: run.kind for run in stored_runs}  # the column, as read
    names = {
        run_kinds.CURVE,
        run_kinds.LINK_SWEEP,
        run_kinds.LOCATE_SWEEP,
        run_kinds.HPL,
        run_kinds.FIO,
        run_kinds.CONGESTION,
    }
    assert set(kinds.values()) == {kind.name for kind in KINDS} == names, kinds
    assert all(kind_of(run).name == run.kind for run in stored_runs)
    golden = [run for run in stored_runs if run.id in golden_ids]
    assert len(golden) >= len(list(CORE_GOLDEN.glob("*.json")))
    assert {run.benchmark for run in golden if kind_of(run) is not CURVE} == {
        PAIRS_BENCHMARK
    }  # as imported: a link sweep


@pytest.mark.slow
def test_the_order_the_kinds_are_asked_in_does_not_matter(stored):
    for run in stored[0]:
        assert kind_of(run, tuple(reversed(KINDS))) is kind_of(run)


def test_a_record_of_no_known_kind_is_refused_by_name():
    with pytest.raises(UsageError, match=r"run 7 \(no benchmark named\) is of no known kind"):
        kind_of(Run(benchmark="", id=7))


def test_a_run_two_kinds_of_one_name_would_claim_is_refused_by_name():
    class Greedy(Curve):
        pass

    with pytest.raises(UsageError, match=r"run 3 \(latency\) is claimed by several kinds \(curve, curve\)"):
        kind_of(Run(benchmark="latency", id=3), (Greedy(), *KINDS))


def test_a_kind_answers_what_every_kind_answers_and_only_has_what_it_has():
    class Partial:
        name = title = plural = "partial"
        compare_options = ()

        def repeats(self, runs):
            return [list(runs)]

    assert all(isinstance(kind, RunKind) for kind in KINDS) and not isinstance(Partial(), RunKind)
    assert {kind.name for kind in KINDS if isinstance(kind, Modelled)} == {CURVE.name}
    assert {kind.name for kind in KINDS if not isinstance(kind, Followed)} == {"link-sweep", "locate-sweep"}


# -- history and model, dispatched by kind ----------------------------------------------


def test_history_follows_the_curves_and_refuses_a_selection_of_sweeps_by_name(cli, clean_env, monkeypatch, tmp_path):
    sweep = planted_sweep(monkeypatch, tmp_path, 4, "node")  # runs 1 (the sweep) and 2 (its retest)
    only_sweeps = cli("history", "1", "2", "--db", sweep.db)
    assert only_sweeps.exit_code == 2
    assert "history follows a value over time, and these runs have none to follow: sweep runs (1, 2)" in (
        only_sweeps.stderr
    )
    store_runs(sweep.db, [run_of({0: 1.0, 1: 1.0, 8: 1.1}, label="n"), run_of({0: 1.0, 1: 1.0, 8: 1.1}, label="n")])
    mixed = cli("history", "--db", sweep.db)  # every stored run
    assert mixed.exit_code == 0, mixed.output
    assert "latency (n) at 0-8 B" in mixed.stdout and "pairs" not in mixed.stdout


def test_model_fits_curves_and_the_other_kinds_refuse_by_name(cli, clean_env, db):
    assert cli("import", COMPUTE / "HPL.out", "--db", db).exit_code == 0  # run 1
    store_runs(db, [run_of({size: 1.0 + size / 5000 for size in (1, 2, 4, 8, 16, 32, 64, 128)})])  # run 2
    fitted = cli("model", "2", "--db", db)
    assert fitted.exit_code == 0 and "α" in fitted.stdout, fitted.output
    refused = cli("model", "1", "2", "--db", db)
    assert refused.exit_code == 2
    assert "model fits time over message size, which HPL and hpcc runs do not measure (run 1)" in refused.stderr
