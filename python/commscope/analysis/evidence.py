"""How much a sweep's pairs say that a part of the fabric is slow: a sequential likelihood
ratio test per part (host or uplink), with the family-wise error split over the parts.

A pair's value, on the log scale and signed so that slower is lower, is its healthy
pairs' median plus measurement noise (normal, sigma estimated from the healthy pairs'
spread: the scaled MAD of their logs, pooled with PRIOR_SIGMA while they are few) or, with
probability pi (the share of healthy pairs
far below, also estimated from the sweep), transient contention that slows it by any
factor up to e^-3. A part slow by delta moves every pair through it down by delta.

For each alternative delta on a grid of slowdowns (1 % ... 99.75 %), a pair's log likelihood
ratio is log f_delta(r + delta) - log f(r), f the mixture above and f_delta the same with
its normal widened by the spread of delta's cell of the grid (the alternative stands for
every slowdown of its cell, so a quiet sweep still recognises a part slowed between two
grid points); a part's evidence is the sum over its pairs. Its likelihood ratio averaged
over the grid (a prior fixed in advance: half on the slowdown asked for, half spread over
the grid) is a nonnegative martingale while the part is healthy, so by Ville's inequality
it exceeds 1/a with
probability at most a, however many rounds are looked at and whenever the sweep stops:
a part is named when that average reaches parts / alpha (Bonferroni), which bounds the
chance of naming any healthy part in a sweep by alpha. Symmetrically, a part slow by delta
sees its likelihood ratio against delta fall to beta with probability at most beta: a part
is cleared at a slowdown when its ratio is at most beta there and at every larger one on
the grid, and the sweep's detection limit is the largest slowdown at which it cleared
every part it did not name ("a host 12 % slower or more would have been named with 95 %
probability").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The alternatives the evidence is weighed against: slowdowns whose log shifts grow by
#: GRID_RATIO from the first to the last, so that neighbours lie within about one noise
#: sigma of each other (a part 54 % slow is not missed between 50 % and 60 %).
GRID_SHIFTS = (0.01, 6.0)  # 1 % ... 99.75 %: a 100 Gbit/s link run at 1 Gbit/s, or a throttled one
GRID_RATIO = 1.05
#: Contention slows a pair by any factor down to e^-span, all equally likely on the log
#: scale; the span is what the healthy pairs' contended ones show, within these bounds.
CONTENTION_SPAN = (0.5, 3.0)
#: Below the contention seen, the contention density halves every TAIL x its span.
TAIL = 0.25
#: The noise never counts as smaller than this (a perfectly quiet simulation would
#: otherwise make every small difference certain).
MIN_SIGMA = 0.005
#: A sweep's first healthy pairs are few, and their spread alone can say a noise far below
#: what pairs show (three pairs of a quiet round within 1 % of each other): every later
#: pair would then look slow, and no host be cleared. So the spread seen is pooled with
#: this sigma, weighted as this many pairs: a few pairs cannot make the noise vanish, and
#: the hundreds of a large sweep are not moved by it.
PRIOR_SIGMA = 0.05
PRIOR_PAIRS = 4
#: Contention is counted from this many sigmas below (and above) the median on.
CONTENDED_Z = 2.0
#: The contention share is estimated within these bounds.
CONTENTION_BOUNDS = (0.001, 0.25)
_MAD_SCALE = 1.4826


def grid(target: float) -> np.ndarray:
    """The slowdowns weighed (fractions of speed lost, ascending), the target among them."""
    low, high = GRID_SHIFTS
    shifts = low * GRID_RATIO ** np.arange(int(np.log(high / low) / np.log(GRID_RATIO)) + 1)
    slowdowns = np.round(-np.expm1(-shifts), 6)
    return np.unique(np.append(slowdowns, round(target, 6)))


def log_shift(slowdown):
    """A slowdown (0.15: 15 % slower) as the shift it gives a pair's log value."""
    return -np.log1p(-np.asarray(slowdown, dtype=np.float64))


@dataclass(frozen=True)
class Noise:
    """What the healthy pairs show: their median (log), the noise's sigma, the share of
    contended pairs."""

    median: float
    sigma: float
    contention: float
    count: int
    span: float = CONTENTION_SPAN[1]  # how far down contention reached (log scale)

    @classmethod
    def of(cls, logs: np.ndarray) -> Noise:
        if logs.size == 0:
            return cls(0.0, MIN_SIGMA, CONTENTION_BOUNDS[1], 0)
        median = float(np.median(logs))
        residuals = logs - median
        seen = float(np.median(np.abs(residuals))) * _MAD_SCALE
        pooled = (logs.size * seen**2 + PRIOR_PAIRS * PRIOR_SIGMA**2) / (logs.size + PRIOR_PAIRS)
        sigma = max(float(np.sqrt(pooled)), MIN_SIGMA)
        # noise is symmetric and contention only slows: the lower tail's excess over the
        # upper one is the contended share, mild contention (a pair 20 % slower) included
        cut = CONTENDED_Z * sigma
        low, high = residuals < -cut, residuals > cut
        share = float(np.clip((low.sum() - high.sum()) / residuals.size, *CONTENTION_BOUNDS))
        span = float(np.clip(-residuals[low].min(), *CONTENTION_SPAN)) if low.any() else CONTENTION_SPAN[1]
        return cls(median, sigma, share, int(logs.size), span)


def _log_density(r: np.ndarray, noise: Noise, sigma=None) -> np.ndarray:
    """log f(r): normal noise (of `sigma`, default the noise's), or contention: uniform on
    [-span, 0), and below -span a tail that halves every TAIL x span (a pair slower than any
    contention seen is unlikely, not impossible: a hard edge would make one such pair
    certain proof)."""
    sigma = noise.sigma if sigma is None else sigma
    z = r / sigma
    normal = np.log1p(-noise.contention) - 0.5 * z * z - np.log(sigma * np.sqrt(2 * np.pi))
    scale = TAIL * noise.span / np.log(2)
    level = np.log(noise.contention / (noise.span + scale))
    contended = np.where(r >= -noise.span, level, level + (r + noise.span) / scale)
    return np.logaddexp(normal, np.where(r < 0, contended, -np.inf))


def pair_evidence(residuals: np.ndarray, noise: Noise, slowdowns: np.ndarray) -> np.ndarray:
    """Each pair's log likelihood ratio (a row per pair, a column per slowdown): its part
    slow by that much against healthy. `residuals` are log values minus the healthy median."""
    r = np.asarray(residuals, dtype=np.float64)[:, None]
    shifts = log_shift(slowdowns)[None, :]
    # each alternative stands for the slowdowns of its cell of the grid (GRID_RATIO wide):
    # its noise widened by that cell's spread, or a quiet sweep (sigma far below a cell)
    # would find a part slowed between two grid points unlike every alternative
    cell = shifts * (GRID_RATIO - 1)
    widened = np.sqrt(noise.sigma**2 + cell * cell / 12)
    ratio = _log_density(r + shifts, noise, widened) - _log_density(r, noise)
    # a value far above anything healthy (a slowdown cannot explain it) is a healthy pair's
    return np.nan_to_num(ratio, nan=0.0, neginf=-50.0, posinf=50.0)


def named_threshold(parts: int, alpha: float) -> float:
    """The log of the averaged likelihood ratio that names a part: log(parts / alpha)."""
    return float(np.log(max(parts, 1) / alpha))


def weights(slowdowns: np.ndarray, target: int) -> np.ndarray:
    """The prior over the alternatives, fixed before anything is measured: half on the
    slowdown asked to be detected, half spread evenly over the grid (a part slowed far more
    is still named, a little later)."""
    found = np.full(len(slowdowns), 0.5 / len(slowdowns))
    found[target] += 0.5
    return found


def averaged(evidence: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Each part's log likelihood ratio averaged over the alternatives with the prior's weights."""
    top = evidence.max(axis=1, keepdims=True)
    return (top + np.log(np.exp(evidence - top) @ prior[:, None]))[:, 0]


def clear_from(evidence: np.ndarray, beta: float) -> np.ndarray:
    """Per part, the index of the smallest slowdown from which on every larger one its
    ratio is at most beta (len(grid) where even the largest is not)."""
    below = evidence <= np.log(beta)
    # the suffix of the grid where every slowdown is ruled out
    suffix = np.flip(np.logical_and.accumulate(np.flip(below, axis=1), axis=1), axis=1)
    first = np.argmax(suffix, axis=1)
    return np.where(suffix.any(axis=1), first, evidence.shape[1])
