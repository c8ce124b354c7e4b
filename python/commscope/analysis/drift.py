"""Which of many series (a host's or a link's value in each of many sweeps) changed level,
with the false discoveries across them controlled.

Every series is tested against the others of its sweeps: in each sweep (a column), the
values are scored against that sweep's population, then each series' newest stretch is
compared with what came before it.

1. Scores. A sweep's values (logs of slowdowns: 0 is the sweep's median) are centred on
   their median and scaled by their MAD (x 1.4826, a normal sample's standard deviation),
   and clipped at +-CLIP: a pair that met contention one night counts as CLIP, never as
   the 20 sigma it measured. On a grid of GRID_STEP, so the null below is exact.
2. A change test per series. For each place k where its newest level could start (at least
   MIN_LEVEL sweeps on either side), the difference between the mean score after k and the
   mean score before it, worse (slower) being larger: one-sided, since a series that got
   better is no alarm. Under the null (the series is one of its sweeps' population: in each
   sweep its score is a draw from that sweep's scores, whatever their shape), that
   difference's distribution is the convolution of the sweeps' own score distributions,
   computed exactly on the grid (prefix and suffix convolutions, direct, so the far tails
   keep their digits). Its tail at the series' difference (at the grid point below it),
   the smallest over the places times their number (Bonferroni), is the series' p-value.
3. Benjamini-Hochberg over the series at level Q: the series kept are those whose change
   is a discovery with the false discovery rate at most Q; under a fabric with no change
   at all, the chance of keeping any series is at most Q.

The null holds however heavy the tails are (contention, a partner that was slow one
night): a level of two contended nights among thousands of hosts is as likely as the
sweeps' own scores make it, not as a normal distribution would (with one, 6 of 10 simulated
months of 10,000 healthy hosts named someone).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from commscope.analysis.changepoints import MIN_LEVEL_RUNS
from commscope.analysis.stats import ALPHA
from commscope.analysis.sweep import MAD_SCALE

#: Scores are clipped here, in MADs: beyond it a value is simply "far", however far.
CLIP = 4.0
#: The scores' grid, in MADs.
GRID_STEP = CLIP / 32
#: The fewest sweeps on either side of a change the test considers: as history's levels.
MIN_LEVEL = MIN_LEVEL_RUNS
#: The false discovery rate across series.
Q = ALPHA
#: Sweeps with fewer series than this share one scale (the MAD of all their values).
MIN_POPULATION = 12
#: Points of the tail tables, over differences 0 .. 2 CLIP.
_TAIL_POINTS = 513


@dataclass(frozen=True)
class DriftTest:
    """Per series: its change test's p-value (1 where it has too few sweeps) and whether
    Benjamini-Hochberg keeps it."""

    p: np.ndarray
    kept: np.ndarray


def scores(values: np.ndarray) -> np.ndarray:
    """Grid units (integers, NaN where a series has no value) of the clipped, scaled values
    of a series x sweep matrix of logs."""
    centre = np.nanmedian(values, axis=0)
    spread = np.abs(values - centre)
    counts = np.sum(~np.isnan(values), axis=0)
    scale = MAD_SCALE * np.nanmedian(spread, axis=0)
    few = counts < MIN_POPULATION
    if few.any():
        scale[few] = MAD_SCALE * np.nanmedian(spread[:, few]) if np.any(~np.isnan(spread[:, few])) else np.nan
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, np.nan)
    clipped = np.clip((values - centre) / scale, -CLIP, CLIP)
    return np.round(clipped / GRID_STEP)


def _distribution(column: np.ndarray, width: int) -> np.ndarray:
    """A sweep's scores (grid units) as probabilities over -width .. width."""
    found = column[~np.isnan(column)].astype(int) + width
    return np.bincount(found, minlength=2 * width + 1) / len(found)


def _upper_tail(before: np.ndarray, after: np.ndarray, n_before: int, n_after: int, width: int):
    """P(D >= d) on a grid of d (grid units, 0 .. 2 width): D the mean of the after-sum
    minus the mean of the before-sum, whose distributions `after` and `before` are over
    -n*width .. n*width."""
    d = np.linspace(0, 2 * width, _TAIL_POINTS)
    at_least = np.cumsum(after[::-1])[::-1]  # P(S_after >= i), i from -n_after*width
    values = np.arange(len(before)) - n_before * width  # of the before-sum
    # S_after / n_after - S_before / n_before >= d  <=>  S_after >= n_after (d + S_before / n_before)
    edge = np.ceil(n_after * (d[:, None] + values[None, :] / n_before) - 1e-9).astype(int) + n_after * width
    chance = np.where(edge >= len(after), 0.0, at_least[np.clip(edge, 0, len(after) - 1)])
    return d, chance @ before


def _pattern_p(grid: np.ndarray, columns: list[np.ndarray], width: int) -> np.ndarray:
    """The p-values of series (rows of `grid`, no NaN) over the same sweeps, whose score
    distributions are `columns`."""
    n = len(columns)
    places = list(range(MIN_LEVEL, n - MIN_LEVEL + 1))
    if not places:
        return np.ones(len(grid))
    prefix, suffix = [np.ones(1)], [np.ones(1)]
    for column in columns:
        prefix.append(np.convolve(prefix[-1], column))
    for column in reversed(columns):
        suffix.append(np.convolve(suffix[-1], column))
    sums = np.cumsum(grid, axis=1)
    best = np.ones(len(grid))
    for k in places:
        n_after = n - k
        d, tail = _upper_tail(prefix[k], suffix[n_after], k, n_after, width)
        difference = (sums[:, -1] - sums[:, k - 1]) / n_after - sums[:, k - 1] / k
        # the grid point at or below the difference: its tail is never smaller than the exact one
        at = np.clip(np.searchsorted(d, difference + 1e-9, side="right") - 1, 0, len(d) - 1)
        best = np.minimum(best, np.where(difference > 0, tail[at], 1.0))
    return np.minimum(1.0, best * len(places))


def change_p(grid: np.ndarray) -> np.ndarray:
    """Each series' p-value (rows of a series x sweep matrix of scores()); a series is
    tested over the sweeps it has a value in, against those sweeps' scores."""
    width = int(round(CLIP / GRID_STEP))
    present = ~np.isnan(grid)
    columns = [_distribution(grid[:, t], width) if present[:, t].any() else None for t in range(grid.shape[1])]
    p = np.ones(len(grid))
    patterns, inverse = np.unique(present, axis=0, return_inverse=True)
    for number, pattern in enumerate(patterns):
        rows = np.nonzero(inverse.reshape(-1) == number)[0]
        sweeps = np.nonzero(pattern)[0]
        if len(sweeps) < 2 * MIN_LEVEL:
            continue
        p[rows] = _pattern_p(grid[np.ix_(rows, sweeps)], [columns[t] for t in sweeps], width)
    return p


def benjamini_hochberg(p: np.ndarray, q: float = Q) -> np.ndarray:
    """Which p-values are discoveries at false discovery rate `q`."""
    n = len(p)
    if not n:
        return np.zeros(0, dtype=bool)
    order = np.sort(p)
    below = np.nonzero(order <= q * np.arange(1, n + 1) / n)[0]
    return p <= order[below[-1]] if len(below) else np.zeros(n, dtype=bool)


def drift_test(values: np.ndarray, q: float = Q) -> DriftTest:
    """The change test of every series of a series x sweep matrix of logs (NaN where a
    series has no value), with Benjamini-Hochberg at `q` across them."""
    p = change_p(scores(values))
    return DriftTest(p, benjamini_hochberg(p, q))
