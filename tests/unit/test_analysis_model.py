"""`commscope model`: the piecewise Hockney fit recovers known parameters and break points."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from commscope.analysis.model import fit
from commscope.errors import UsageError
from fixtures.analysis.handmade import SIZES, run_of, store_runs

EAGER = (1.2, 4000.0)  # alpha (us), beta (MB/s) below the break
RENDEZVOUS = (6.0, 12000.0)  # and from it on
BREAK = 32768


def two_regimes(noise: float = 0.003, seed: int = 7) -> dict[int, float]:
    """Latencies of an eager/rendezvous library with multiplicative noise."""
    rng = np.random.default_rng(seed)
    values = {}
    for size in SIZES:
        alpha, beta = EAGER if size < BREAK else RENDEZVOUS
        values[size] = (alpha + size / beta) * (1 + noise * rng.standard_normal())
    return values


def test_known_alpha_beta_and_break_point_are_recovered_within_2_percent():
    result = fit(run_of(two_regimes()))
    assert result.breaks == [BREAK]
    (eager, rendezvous) = result.regimes
    assert eager.alpha_us == pytest.approx(EAGER[0], rel=0.02)
    assert eager.beta_MBps == pytest.approx(EAGER[1], rel=0.02)
    assert rendezvous.alpha_us == pytest.approx(RENDEZVOUS[0], rel=0.02)
    assert rendezvous.beta_MBps == pytest.approx(RENDEZVOUS[1], rel=0.02)
    assert (result.alpha_us, result.beta_MBps) == (eager.alpha_us, rendezvous.beta_MBps)
    assert rendezvous.r_squared > 0.999 and result.max_rel_residual < 0.015
    # Half of 12000 MB/s is reached in the rendezvous regime: n = 6 us * 6000 MB/s / (1 - 1/2) = 72000 B.
    assert result.n_half == pytest.approx(72000, rel=0.02)


def test_one_regime_is_not_cut_and_gives_hockneys_half_size():
    result = fit(run_of({size: 2.0 + size / 8000 for size in SIZES}))
    assert result.breaks == [] and len(result.regimes) == 1
    assert result.alpha_us == pytest.approx(2.0) and result.beta_MBps == pytest.approx(8000)
    assert result.n_half == pytest.approx(16000) == pytest.approx(result.regimes[0].n_half)


def test_bandwidth_runs_are_fitted_as_time_per_message():
    values = {
        size: size / (alpha + size / beta)
        for size in SIZES
        if size
        for alpha, beta in [EAGER if size < BREAK else RENDEZVOUS]
    }
    result = fit(run_of(values, metric="bandwidth_MBps", benchmark="bw"))
    assert result.source_metric == "bandwidth_MBps" and result.breaks == [BREAK]
    assert result.beta_MBps == pytest.approx(RENDEZVOUS[1], rel=1e-6)
    assert result.alpha_us == pytest.approx(EAGER[0], rel=1e-6)


def test_a_flat_regime_has_infinite_bandwidth():
    result = fit(run_of({size: 1.0 for size in (1, 2, 4, 8, 16)}))
    assert math.isinf(result.beta_MBps) and result.n_half is None


def test_what_cannot_be_modelled():
    with pytest.raises(UsageError, match="has 2 sizes; the model needs at least 3"):
        fit(run_of({1: 1.0, 2: 1.0}))
    with pytest.raises(UsageError, match="neither latency nor bandwidth"):
        fit(run_of({1: 50.0, 2: 60.0, 4: 70.0}, metric="overlap_pct", benchmark="iallreduce"))


def test_the_command(cli, db, clean_env):
    store_runs(db, [run_of(two_regimes(), label="cluster")])
    result = cli("model", "1", "--db", db)
    assert result.exit_code == 0, result.output
    assert "break points       32 KiB" in result.stdout and "regime" in result.stdout
    document = json.loads(cli("model", "last", "--db", db, "--format", "json").stdout)
    assert document[0]["runs"] == [1] and document[0]["breaks"] == [BREAK]
    assert document[0]["alpha_us"] == pytest.approx(1.2, rel=0.02)
    result = cli("model", "--db", db)
    assert result.exit_code == 2 and "name the runs to model" in result.stderr


def test_repeats_are_fitted_as_their_per_size_median(cli, db, clean_env):
    noisy = [two_regimes(noise=0.3, seed=seed) for seed in range(5)]
    runs = [run_of(values, label="r") for values in noisy]
    result = fit(runs)
    assert result.times_us == [pytest.approx(float(np.median([values[size] for values in noisy]))) for size in SIZES]
    store_runs(db, runs + [run_of(two_regimes(), label="other")])
    text = cli("model", "--last-invocation", "--db", db).stdout
    assert "runs 1, 2, 3, 4, 5 (median of 5 repeats): latency (r)" in text and "run 6: latency (other)" in text
    assert cli("model", "r", "--each", "--db", db).stdout.count("regime(s) by BIC") == 5


def test_regime_fit_is_the_non_negative_least_squares_solution():
    """The closed-form regime fit gives what a general NNLS solver gives, on curves with
    either coefficient pinned at zero as well as on ordinary ones."""
    from scipy.optimize import nnls

    from commscope.analysis.model import _fit_regime

    rng = np.random.default_rng(7)
    for trial in range(300):
        sizes = np.sort(rng.choice(1 << 23, size=int(rng.integers(3, 24)), replace=False)).astype(float)
        shape = trial % 3
        if shape == 0:  # latency-like: both coefficients positive
            times = (rng.uniform(0.1, 5) + sizes / rng.uniform(100, 2e4)) * rng.uniform(0.97, 1.03, sizes.size)
        elif shape == 1:  # falling: the unconstrained slope is negative, NNLS pins it at 0
            times = rng.uniform(1, 2) * (1 + 1 / (1 + sizes)) * rng.uniform(0.9, 1.1, sizes.size)
        else:  # steeper than linear from 0: the unconstrained alpha is negative
            times = (sizes + 1) ** 1.3 / 1e3
        design = np.column_stack([np.ones_like(sizes), sizes]) / times[:, None]
        (alpha, slope), norm = nnls(design, np.ones_like(times))
        fitted = _fit_regime(sizes, times)
        assert fitted[0] == pytest.approx(alpha, rel=1e-6, abs=1e-12)
        assert fitted[1] == pytest.approx(slope, rel=1e-6, abs=1e-15)
        assert fitted[2] == pytest.approx(norm**2, rel=1e-6, abs=1e-9)
