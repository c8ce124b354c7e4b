"""The change point candidates' segmentation against ruptures' PELT (KernelCPD, linear
kernel), which the harness no longer imports, and the ranks against scipy's."""

from __future__ import annotations

import numpy as np
import pytest

from commscope.analysis.changepoints import _RANK_VARIANCE, MIN_LEVEL_RUNS, ranks, segmentation


def _series(rng: np.random.Generator, kind: int) -> np.ndarray:
    n = int(rng.integers(4, 160))
    if kind == 0:  # nothing changed
        return rng.normal(size=n)
    if kind == 1:  # a few levels
        levels = rng.normal(size=int(rng.integers(2, 6))) * 3
        return np.repeat(levels, -(-n // len(levels)))[:n] + rng.normal(size=n) * 0.3
    if kind == 2:  # many ties
        return rng.integers(0, 4, size=n).astype(float)
    return np.where(np.arange(n) > n // 2, 2.0, 1.0) + rng.normal(size=n) * 0.1  # one clean step


def _cost(signal: np.ndarray, cuts: list[int], penalty: float) -> float:
    bounds = [0, *cuts, len(signal)]
    parts = [signal[start:end] for start, end in zip(bounds, bounds[1:])]
    return sum(float(((part - part.mean()) ** 2).sum()) for part in parts) + penalty * len(parts)


@pytest.mark.slow
@pytest.mark.parametrize("kind", range(4))
def test_the_segmentation_is_pelts(kind):
    """The same change points as ruptures on 300 series of each kind, or, where a perfect
    step in the ranks splits as well one run earlier as later, one as good."""
    ruptures = pytest.importorskip("ruptures")
    from scipy.stats import rankdata

    rng = np.random.default_rng(kind)
    differ = 0
    for _ in range(300):
        values = _series(rng, kind)
        n = len(values)
        assert np.array_equal(ranks(values), rankdata(values))
        signal, penalty = rankdata(values) / n, 2 * np.log(n) * _RANK_VARIANCE
        expected = ruptures.KernelCPD(kernel="linear", min_size=MIN_LEVEL_RUNS).fit(signal.reshape(-1, 1))
        expected = [int(cut) for cut in expected.predict(pen=penalty)[:-1]]
        found = segmentation(signal, penalty, MIN_LEVEL_RUNS)
        if found != expected:
            differ += 1
            assert _cost(signal, found, penalty) == pytest.approx(_cost(signal, expected, penalty), rel=1e-12)
            assert len(found) == len(expected)
        assert all(later - earlier >= MIN_LEVEL_RUNS for earlier, later in zip([0, *found], [*found, n]))
    assert differ <= 10


def test_a_step_is_found_where_it_is():
    values = [1.0, 1.1, 0.9, 1.0, 1.05, 3.0, 3.1, 2.9, 3.0, 3.05, 2.95]
    assert segmentation(ranks(values) / len(values), 2 * np.log(11) * _RANK_VARIANCE, MIN_LEVEL_RUNS) == [5]
    assert segmentation(np.ones(9), 0.1, MIN_LEVEL_RUNS) == []
