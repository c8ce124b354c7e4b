"""`commscope baseline` and `commscope check`: the regression rule on hand-made series."""

from __future__ import annotations

import pytest

from commscope.analysis.check import (
    FAIL,
    IMPROVED,
    MISSING,
    NOT_SIGNIFICANT,
    OK,
    Policy,
    judge_curve,
    parse_floor,
    parse_tolerance,
)
from commscope.analysis.stats import Summary, worse_evidence
from commscope.errors import UsageError
from commscope.kinds import check
from fixtures.analysis.handmade import SIZES, run_of, store_runs
from paths import FIXTURES

BASE = {size: 1.0 + size / 5000 for size in SIZES}
# Five repeats whose noise (at most 2 %) stays well inside a 10 % tolerance.
NOISE = [1.00, 1.02, 0.99, 0.98, 1.01]
SLOW = {64, 4096, 1 << 20}


def repeats(values: dict[int, float], factor=lambda size: 1.0, noise=NOISE, **fields):
    return [
        run_of({size: value * factor(size) * wiggle for size, value in values.items()}, **fields) for wiggle in noise
    ]


def statuses(curve):
    return {size.key[0]: size.status for size in curve.sizes}


def test_a_20_percent_slowdown_fails_exactly_at_those_sizes():
    base = repeats(BASE)
    new = repeats(BASE, lambda size: 1.2 if size in SLOW else 1.0, noise=NOISE[::-1])
    curve = judge_curve("latency", "latency_us", base, new, Policy())
    assert {size for size, status in statuses(curve).items() if status == FAIL} == SLOW
    assert not curve.passed and len(curve.failing) == 3
    assert all(size.evidence.method == "mann-whitney" for size in curve.sizes)
    assert curve.worst.key[0] in SLOW and curve.worst.change == pytest.approx(0.2, abs=0.03)


def test_noise_within_tolerance_passes():
    curve = judge_curve("latency", "latency_us", repeats(BASE), repeats(BASE, lambda size: 1.08), Policy())
    assert set(statuses(curve).values()) == {OK} and curve.passed
    assert curve.geomean_ratio == pytest.approx(1.08, rel=1e-3)


def test_the_floor_keeps_tiny_absolute_differences_from_failing():
    base, new = [run_of({8: 0.20, 16: 10.0})], [run_of({8: 0.26, 16: 10.5})]  # +30 % of 0.2 us, +5 % of 10 us
    assert statuses(judge_curve("latency", "latency_us", base, new, Policy(floor=parse_floor("0.1us"))))[8] == OK
    assert statuses(judge_curve("latency", "latency_us", base, new, Policy()))[8] == FAIL  # default 0.05 us
    assert statuses(judge_curve("latency", "latency_us", base, new, Policy(floor=parse_floor("50ns"))))[8] == FAIL


def test_bandwidth_fails_only_when_lower():
    base = [run_of({1024: 1000.0, 2048: 2000.0}, metric="bandwidth_MBps", benchmark="bw")]
    new = [run_of({1024: 700.0, 2048: 3000.0}, metric="bandwidth_MBps", benchmark="bw")]
    curve = judge_curve("bw", "bandwidth_MBps", base, new, Policy())
    assert statuses(curve) == {1024: FAIL, 2048: IMPROVED}
    with pytest.raises(UsageError, match="'2us' is a time but bandwidth_MBps is in MB/s"):
        judge_curve("bw", "bandwidth_MBps", base, new, Policy(floor=parse_floor("2us")))
    assert Policy(floor=parse_floor("0.5GB/s")).floor_for("bandwidth_MBps") == 500


def test_allow_failing_counts_failing_sizes():
    base, new = [run_of({1: 1.0, 2: 1.0, 4: 1.0})], [run_of({1: 1.5, 2: 1.5, 4: 1.0})]
    assert not judge_curve("latency", "latency_us", base, new, Policy(allow_failing=1)).passed
    assert judge_curve("latency", "latency_us", base, new, Policy(allow_failing=2)).passed


def test_a_difference_beyond_tolerance_but_within_the_noise_does_not_fail():
    base = repeats({8: 1.0}, noise=[1.0, 1.5, 0.7, 1.3, 0.9])
    new = repeats({8: 1.0}, noise=[1.2, 0.8, 1.6, 1.15, 0.75])  # median +15 %, but no real shift
    [size] = judge_curve("latency", "latency_us", base, new, Policy()).sizes
    assert size.status == NOT_SIGNIFICANT and size.evidence.significant is False
    assert size.change == pytest.approx(0.15)


def test_per_size_sample_statistics_decide_for_single_runs():
    quiet = judge_curve(
        "latency", "latency_us", [run_of({8: 1.0}, spread=0.01)], [run_of({8: 1.2}, spread=0.01)], Policy()
    )
    assert quiet.sizes[0].status == FAIL and quiet.sizes[0].evidence.method == "welch"
    noisy = judge_curve(
        "latency",
        "latency_us",
        [run_of({8: 1.0}, spread=1.0, samples=3)],
        [run_of({8: 1.2}, spread=1.0, samples=3)],
        Policy(),
    )
    assert noisy.sizes[0].status == NOT_SIGNIFICANT
    # Imported runs have neither repeats nor statistics: the threshold alone decides.
    bare = judge_curve("latency", "latency_us", [run_of({8: 1.0})], [run_of({8: 1.2})], Policy())
    assert bare.sizes[0].status == FAIL and bare.sizes[0].evidence.method == "none"


def test_few_repeats_use_a_bootstrap_interval():
    evidence = worse_evidence([1.0, 1.01, 0.99], [1.3, 1.31, 1.29], higher_worse=True)
    assert evidence.method == "bootstrap" and evidence.significant
    assert not worse_evidence([1.0, 1.01, 0.99], [1.3, 1.31, 1.29], higher_worse=False).significant


def test_pooled_summary_counts_the_spread_between_runs():
    pooled = Summary.pooled([Summary(10, 1.0, 0.0), Summary(10, 3.0, 0.0)])
    assert (pooled.n, pooled.mean) == (20, 2.0) and pooled.sd == pytest.approx((20 / 19) ** 0.5)


def test_sizes_missing_from_the_new_run_fail():
    curve = judge_curve("latency", "latency_us", [run_of({1: 1.0, 2: 1.0})], [run_of({1: 1.0, 4: 1.0})], Policy())
    assert statuses(curve) == {1: OK, 2: MISSING, 4: "new"} and len(curve.failing) == 1


def test_check_pairs_runs_by_benchmark_and_groups_repeats_by_label():
    base = [run_of({8: 1.0}), run_of({8: 100.0}, metric="bandwidth_MBps", benchmark="bw")]
    for run_id, run in enumerate(base, start=1):
        run.id = run_id
    new = [run_of({8: 1.5}, label="x"), run_of({8: 1.0}, label="y"), run_of({8: 5.0}, benchmark="bcast")]
    result = check("nightly", base, new, Policy())
    assert [(curve.benchmark, curve.name, curve.passed) for curve in result.curves] == [
        ("latency", "x", False),
        ("latency", "y", True),
    ]
    assert [run.benchmark for run in result.unmatched] == ["bcast"] and not result.passed


@pytest.mark.parametrize("text, value", [("10%", 0.10), ("2.5 %", 0.025), (".5%", 0.005)])
def test_tolerance_strings(text, value):
    assert parse_tolerance(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["10 percent", "0.1", "%", "ten%"])
def test_bad_tolerance_strings(text):
    with pytest.raises(ValueError, match=repr(text)):
        parse_tolerance(text)


def test_floor_strings():
    assert parse_floor("500ns").in_unit_of("latency_us") == pytest.approx(0.5)
    assert parse_floor("2").in_unit_of("bandwidth_MBps") == 2
    with pytest.raises(ValueError, match="'3 parsecs'"):
        parse_floor("3 parsecs")


# -- the command line --------------------------------------------------------------


@pytest.fixture
def stored(db, clean_env):
    """Runs 1-5: baseline repeats; 6-10: 20 % slower at SLOW; 11-15: only noise."""
    store_runs(db, repeats(BASE, label="before"))
    store_runs(db, repeats(BASE, lambda size: 1.2 if size in SLOW else 1.0, noise=NOISE[::-1], label="slow"))
    store_runs(db, repeats(BASE, lambda size: 1.05, label="same"))
    return db


def test_baseline_set_list_delete(cli, stored):
    result = cli("baseline", "set", "ref", "before", "--db", stored)
    assert result.exit_code == 0 and "baseline 'ref' is runs 1, 2, 3, 4, 5" in result.stderr
    assert "(was 1, 2, 3, 4, 5)" in cli("baseline", "set", "ref", "before", "--db", stored).stderr
    assert cli("baseline", "list", "--db", stored).stdout.startswith("ref\t")
    assert cli("baseline", "delete", "ref", "--db", stored).exit_code == 0
    result = cli("baseline", "delete", "ref", "--db", stored)
    assert result.exit_code == 2 and "no baseline 'ref'" in result.stderr


def test_check_exit_codes(cli, stored):
    assert cli("baseline", "set", "ref", "before", "--db", stored).exit_code == 0
    result = cli("check", "slow", "--baseline", "ref", "--db", stored)
    assert result.exit_code == 1
    assert "FAIL against baseline 'ref'" in result.stdout and "3 of 24 sizes fail" in result.stdout
    assert len([line for line in result.stdout.splitlines() if line.rstrip().endswith(" FAIL")]) == 3
    assert cli("check", "slow", "--baseline", "ref", "--allow-failing", "3", "--db", stored).exit_code == 0
    assert cli("check", "slow", "--baseline", "ref", "--tolerance", "25%", "--db", stored).exit_code == 0
    result = cli("check", "same", "--baseline", "ref", "--db", stored)
    assert result.exit_code == 0 and "PASS against baseline 'ref'" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["slow", "--baseline", "ref", "--tolerance", "10 percent"], "'10 percent' is not a percentage"),
        (["slow", "--baseline", "nope"], "no baseline 'nope'"),
        (["999", "--baseline", "ref"], "no run 999"),
        (["--baseline", "ref"], "name the runs to check"),
        (["before", "--baseline", "ref"], "is part of baseline 'ref' itself"),
        (["slow", "--baseline", "ref", "--floor", "5 MB/s"], "'5 MB/s' is a bandwidth but latency_us is in us"),
    ],
)
def test_check_usage_errors_exit_2_and_store_nothing(cli, stored, args, message):
    assert cli("baseline", "set", "ref", "before", "--db", stored).exit_code == 0
    before = stored.read_bytes()
    result = cli("check", *args, "--db", stored)
    assert result.exit_code == 2 and message in result.stderr, result.output
    assert "Traceback" not in result.output and stored.read_bytes() == before


def test_check_without_a_database_exits_4_like_every_command(cli, tmp_path, clean_env):
    result = cli("check", "1", "--baseline", "ref", "--db", tmp_path / "none.db")
    assert result.exit_code == 4 and "no result database" in result.stderr


def test_deleting_a_run_takes_it_out_of_its_baseline(cli, stored):
    cli("baseline", "set", "ref", "1", "2", "--db", stored)
    assert cli("delete", "1", "2", "--db", stored).exit_code == 0
    result = cli("check", "slow", "--baseline", "ref", "--db", stored)
    assert result.exit_code == 2 and "baseline 'ref' has no runs left" in result.stderr


def test_an_imported_file_is_judged_a_datatype_at_a_time(cli, db, clean_env, tmp_path):
    """One OMB file holds a run per datatype: each is judged at its own datatype, and a
    datatype the baseline has and the new file lacks fails as missing."""
    whole = FIXTURES / "parse" / "omb7_allreduce_all_types.txt"
    without_float = tmp_path / "no_float.txt"
    without_float.write_text(whole.read_text().split("# Datatype: MPI_FLOAT.")[0])
    for path, label in ((whole, "ref"), (whole, "same"), (without_float, "short")):
        assert cli("import", path, "--label", label, "--force", "--db", db).exit_code == 0
    assert cli("baseline", "set", "ref", "ref", "--db", db).exit_code == 0
    same = cli("check", "same", "--baseline", "ref", "--db", db)
    assert same.exit_code == 0, same.output
    summaries = [line for line in same.stdout.splitlines() if line.startswith("allreduce")]
    assert [line.split(" (")[0] for line in summaries] == [
        "allreduce [MPI_CHAR]",
        "allreduce [MPI_INT]",
        "allreduce [MPI_FLOAT]",
    ]
    short = cli("check", "short", "--baseline", "ref", "--db", db)
    assert short.exit_code == 1
    assert "allreduce [MPI_FLOAT] (latency_us): FAIL, 2 of 2 sizes fail" in short.stdout
