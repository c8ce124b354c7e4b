"""How much a sweep's pairs say that a part of the fabric is slow: a sequential likelihood
ratio test per part (host or uplink), with the family-wise error split over the parts.

A pair's value, on the log scale and signed so that slower is lower, is its healthy
pairs' median plus measurement noise or, with probability pi, a burst that slows it by any
factor up to e^-span (contention, a rank descheduled, a daemon waking). Both are estimated
from the sweep's own healthy pairs, heavy tails included:

- the noise is a Student-t: its scale from the scaled MAD of the healthy pairs' logs (pooled
  with PRIOR_SIGMA while they are few), its tail weight (degrees of freedom) fitted to the
  upper half of their spread (bursts only slow, so that half is noise alone) and never more
  than the pairs seen support: three pairs say little about the noise's tails, and the
  t of few degrees of freedom a normal of unknown spread becomes says so;
- the share of bursts is the lower tail's excess over the upper one, with a prior
  (PRIOR_BURSTS in PRIOR_BURST_PAIRS) that keeps it wide while pairs are few: the three
  pairs of a 6-host round that show none do not make a burst impossible;
- how far bursts reach (span) is what the healthy pairs' slowest shows, the widest
  CONTENTION_SPAN while they show too few.

A part slow by delta moves every pair through it down by delta.

For each alternative delta on a grid of slowdowns (1 % ... 99.75 %), a pair's log likelihood
ratio is log f_delta(r + delta) - log f(r), f the mixture above and f_delta the same with
its noise widened by the spread of delta's cell of the grid (the alternative stands for
every slowdown of its cell, so a quiet sweep still recognises a part slowed between two
grid points); a part's evidence is the sum over its pairs. Its likelihood ratio averaged
over the grid (a prior fixed in advance: half on the slowdown asked for, half spread over
the grid) is a nonnegative martingale while the part is healthy, so by Ville's inequality
it exceeds 1/a with probability at most a under the noise fitted, however many rounds are
looked at and whenever the sweep stops: a part is named when that average reaches parts /
alpha (Bonferroni), which bounds the chance of naming any healthy part in a sweep by alpha.
Symmetrically, a part slow by delta sees its likelihood ratio against delta fall to beta
with probability at most beta: a part is cleared at a slowdown when its ratio is at most
beta there and at every larger one on the grid, and the sweep's detection limit is the
largest slowdown at which it cleared every part it did not name ("a host 12 % slower or
more would have been named with 95 % probability").
"""

from __future__ import annotations

import math
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
PRIOR_SIGMA = 0.1
PRIOR_PAIRS = 2
#: The tail weights (Student-t degrees of freedom) the noise is fitted among; math.inf is
#: the normal. The pairs seen bound it too: n pairs estimate a spread no better than a t of
#: n + PRIOR_PAIRS - 1 degrees of freedom. The tails are fitted from TAIL_PAIRS values above
#: the median on (two or three say nothing of tails: one far value would make them Cauchy's).
DOF_GRID = (1.0, 2.0, 3.0, 4.0, 6.0, 10.0, 20.0, 50.0, math.inf)
TAIL_PAIRS = 10
#: Until then the tails are taken as heavy as a t of this many degrees of freedom shows
#: (what a loaded machine's pairs showed, performance/sweep/busy_cluster.py): a sweep of six
#: hosts may not assume the light tails of a quiet fabric it has not seen.
FEW_PAIRS_DOF = 4.0
#: From this many pairs on, the noise's width leaves out the bursts far below the median.
WIDTH_PAIRS = 30
#: More degrees of freedom than this are a normal's tails.
MAX_DOF = 100.0
#: Bursts are counted from the noise's 97.5 % quantile below (and above) the median on.
CONTENDED_QUANTILE = 0.975
#: The share of bursts has a prior worth this many pairs, this many of them bursts: while a
#: sweep has measured few pairs it may not rule bursts out (one in eleven pairs with none
#: seen); thousands of pairs are not moved by it.
PRIOR_BURSTS = 1.0
PRIOR_BURST_PAIRS = 10.0
#: The burst share is estimated within these bounds.
CONTENTION_BOUNDS = (0.001, 0.5)
#: Fewer bursts than this below the median say nothing of how far they reach: the widest span.
SPAN_PAIRS = 2
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


def _t_quantile(dof: float, q: float) -> float:
    from scipy.special import ndtri, stdtrit  # here: planning alone needs none of scipy

    return float(ndtri(q) if math.isinf(dof) else stdtrit(dof, q))


def _t_logpdf(z: np.ndarray, dof: float) -> np.ndarray:
    """log of the standard Student-t density (the normal for infinite dof) at z."""
    if math.isinf(dof):
        return -0.5 * z * z - 0.5 * math.log(2 * math.pi)
    head = math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2) - 0.5 * math.log(dof * math.pi)
    return head - (dof + 1) / 2 * np.log1p(z * z / dof)


@dataclass(frozen=True)
class Noise:
    """What the healthy pairs show: their median (log), the noise's spread (sigma: a
    normal's of the same MAD) and tail weight (dof: Student-t degrees of freedom, inf a
    normal), the share of pairs slowed by bursts and how far those reached (span)."""

    median: float
    sigma: float
    contention: float
    count: int
    span: float = CONTENTION_SPAN[1]  # how far down bursts reached (log scale)
    dof: float = math.inf

    @property
    def scale(self) -> float:
        """The t's scale: its MAD is the noise's (sigma's normal's)."""
        return self.sigma * _t_quantile(math.inf, 0.75) / _t_quantile(self.dof, 0.75)

    @classmethod
    def of(cls, logs: np.ndarray, spread: np.ndarray | None = None) -> Noise:
        """The noise of healthy pairs' `logs`; its spread and tails from `spread` (default
        `logs`): the pairs measured, not only those of parts cleared (whose spread is
        narrower, since pairs near the median clear them first)."""
        if logs.size == 0:
            return cls(0.0, PRIOR_SIGMA, CONTENTION_BOUNDS[1], 0, dof=1.0)
        median = float(np.median(logs))
        residuals = logs - median
        measured = (logs if spread is None else spread) - median
        # the spread both ways: a right-skewed noise (a loaded machine's pairs are now and then
        # five times as fast) is as wide as its upper half says only where it is symmetric;
        # from 30 pairs on, those more than three such widths below are left out (bursts)
        wide = float(np.median(np.abs(measured))) * _MAD_SCALE if measured.size else 0.0
        kept = measured[measured > -3 * wide] if wide > 0 and measured.size >= WIDTH_PAIRS else measured
        seen = float(np.median(np.abs(kept - np.median(kept)))) * _MAD_SCALE if kept.size > 1 else wide
        above = measured[measured > 0]
        pooled = (kept.size * seen**2 + PRIOR_PAIRS * PRIOR_SIGMA**2) / (kept.size + PRIOR_PAIRS)
        sigma = max(float(np.sqrt(pooled)), MIN_SIGMA)
        dof = min(_fitted_dof(above, sigma), 2 * above.size + PRIOR_PAIRS - 1.0)
        dof = math.inf if dof > MAX_DOF else dof  # as good as normal: said so
        noise = cls(median, sigma, 0.0, int(logs.size), dof=dof)
        # the noise is symmetric and bursts only slow: the lower tail's excess over the upper
        # one is the bursts' share, mild ones (a pair 20 % slower) included
        cut = noise.scale * _t_quantile(dof, CONTENDED_QUANTILE)
        low, high = residuals < -cut, residuals > cut
        excess = max(int(low.sum()) - int(high.sum()), 0)
        share = float(np.clip((excess + PRIOR_BURSTS) / (residuals.size + PRIOR_BURST_PAIRS), *CONTENTION_BOUNDS))
        reach = -residuals[low].min() if low.sum() >= SPAN_PAIRS else CONTENTION_SPAN[1]
        return cls(median, sigma, share, int(logs.size), float(np.clip(reach, *CONTENTION_SPAN)), dof)


def noise_beside(logs: np.ndarray, sweep: Noise, weight: float) -> Noise:
    """The noise of a few pairs measured apart (a confirmation round's controls, alone):
    their median, their spread pooled with the sweep's as if it were `weight` pairs of them
    (a few pairs may be quieter than the sweep, never far quieter on their own say), the
    sweep's tails where heavier, its bursts."""
    median = float(np.median(logs))
    seen = float(np.median(np.abs(logs - median))) * _MAD_SCALE if logs.size > 1 else 0.0
    pooled = (logs.size * seen**2 + weight * sweep.sigma**2) / (logs.size + weight)
    dof = min(sweep.dof, logs.size + weight - 1.0)
    return Noise(median, max(float(np.sqrt(pooled)), MIN_SIGMA), sweep.contention, int(logs.size), sweep.span, dof)


def _fitted_dof(above: np.ndarray, sigma: float) -> float:
    """The tail weight the residuals above the median fit best, each candidate t scaled to
    the noise's MAD."""
    if above.size < TAIL_PAIRS:
        return FEW_PAIRS_DOF
    best, found = -math.inf, math.inf
    for dof in DOF_GRID:
        scale = sigma * _t_quantile(math.inf, 0.75) / _t_quantile(dof, 0.75)
        fit = float(np.sum(_t_logpdf(above / scale, dof))) - above.size * math.log(scale)
        if fit > best + 1e-9:
            best, found = fit, dof
    return found


def _log_density(r: np.ndarray, noise: Noise, scale=None) -> np.ndarray:
    """log f(r): the noise (a Student-t of `scale`, default the noise's), or a burst: uniform
    on [-span, 0), and below -span a tail that halves every TAIL x span (a pair slower than
    any burst seen is unlikely, not impossible: a hard edge would make one such pair certain
    proof)."""
    scale = noise.scale if scale is None else scale
    symmetric = np.log1p(-noise.contention) + _t_logpdf(r / scale, noise.dof) - np.log(scale)
    tail = TAIL * noise.span / np.log(2)
    level = np.log(noise.contention / (noise.span + tail))
    burst = np.where(r >= -noise.span, level, level + (r + noise.span) / tail)
    return np.logaddexp(symmetric, np.where(r < 0, burst, -np.inf))


def slower_than(r: np.ndarray, noise: Noise) -> np.ndarray:
    """The chance that a healthy pair is at least as slow as residual r (log, slower lower)
    under the noise fitted: its t's lower tail, or a burst that far down."""
    from scipy.special import ndtr, stdtr

    r = np.asarray(r, dtype=np.float64)
    z = r / noise.scale
    symmetric = ndtr(z) if math.isinf(noise.dof) else stdtr(noise.dof, z)
    tail = TAIL * noise.span / np.log(2)
    # the burst's density: 1/(span + tail) on [-span, 0), halving every TAIL x span below
    burst = np.where(
        r < -noise.span,
        tail * np.exp(np.minimum(r + noise.span, 0.0) / tail),
        tail + np.clip(r + noise.span, 0.0, noise.span),
    ) / (noise.span + tail)
    return (1 - noise.contention) * symmetric + noise.contention * np.where(r < 0, burst, 1.0)


def pair_evidence(residuals: np.ndarray, noise: Noise, slowdowns: np.ndarray, widen=0.0) -> np.ndarray:
    """Each pair's log likelihood ratio (a row per pair, a column per slowdown): its part
    slow by that much against healthy. `residuals` are log values minus the healthy median;
    `widen` (per pair, or one for all) is a variance the noise's grows by where that median
    is itself uncertain (a confirmation round's, of a few pairs measured beside it)."""
    r = np.asarray(residuals, dtype=np.float64)[:, None]
    extra = np.broadcast_to(np.asarray(widen, dtype=np.float64), r.shape[:1])[:, None]
    shifts = log_shift(slowdowns)[None, :]
    # each alternative stands for the slowdowns of its cell of the grid (GRID_RATIO wide):
    # its noise widened by that cell's spread, or a quiet sweep (sigma far below a cell)
    # would find a part slowed between two grid points unlike every alternative
    cell = shifts * (GRID_RATIO - 1)
    base = np.sqrt(noise.scale**2 + extra)
    widened = np.sqrt(base**2 + cell * cell / 12)
    ratio = _log_density(r + shifts, noise, widened) - _log_density(r, noise, base)
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
