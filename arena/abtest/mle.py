"""Constrained maximum likelihood for a discrete score distribution (vectorised).

The generalised SPRT compares two composite hypotheses about the distribution of a unit's
score (a game, or a pair of games on one deal). Under each hypothesis the distribution is
the one closest to the data that satisfies the hypothesis: the maximum-likelihood
distribution ``p`` on the observed support, given the empirical frequencies ``q``,
subject to one constraint. Two constraints are needed:

* the expected score is ``s`` (logistic Elo): ``sum p_i a_i = s``;
* the t-value is ``t`` (normalised Elo): ``(mu(p) - ref) / sigma(p) = t``.

**Mean constraint.** Maximise ``sum q_i log p_i`` subject to ``sum p_i = 1`` and
``sum p_i (a_i - s) = 0``. Setting the gradient of the Lagrangian to zero gives
``q_i / p_i = lam + x (a_i - s)``; multiplying by ``p_i`` and summing shows ``lam = 1``, so

    p_i = q_i / (1 + x d_i),   d_i = a_i - s,

where ``x`` is the root of the *secular equation* ``f(x) = sum q_i d_i / (1 + x d_i) = 0``
in the interval where every ``1 + x d_i`` is positive. ``f`` falls strictly from +inf to
-inf over that interval (``f'(x) = -sum q_i d_i^2 / (1 + x d_i)^2``), so the root is unique
whenever some ``d_i`` is positive and some negative, i.e. when ``s`` lies strictly inside
the range of the observed scores. It is found by Newton steps kept inside a shrinking
bracket (bisection whenever a step would leave it).

**t-value constraint.** ``g(p) = mu - ref - t sigma`` with ``mu = sum p_i a_i`` and
``sigma^2 = sum p_i a_i^2 - mu^2``. Its gradient is ``a_i - t (a_i^2 - 2 mu a_i) / (2 sigma)``;
adding a constant (absorbed by the multiplier of ``sum p_i = 1``) turns it into

    phi_i = a_i - ref - t sigma (1 + ((a_i - mu) / sigma)^2) / 2,

chosen so that ``sum p_i phi_i = g(p)``. The stationarity condition has the same form as
above, ``p_i = q_i / (1 + x phi_i)`` with ``sum q_i phi_i / (1 + x phi_i) = 0``, except that
``phi`` depends on ``mu`` and ``sigma`` of the solution itself: we iterate (freeze ``mu`` and
``sigma`` at the current ``p``, solve the secular equation, update ``p``) until ``p`` stops
moving. This is the fixed point fishtest's ``MLE_t_value`` computes.

Everything works on arrays with any leading (batch) shape; the last axis is the score
category. Infeasible constraints give NaN rows rather than exceptions, so that a batch
of simulated tests is never interrupted by one odd row.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["mle_mean", "mle_tvalue", "solve_secular"]

FloatArray = NDArray[np.float64]
EPS = float(np.finfo(float).eps)


def solve_secular(
    weights: ArrayLike,
    d: ArrayLike,
    *,
    x0: ArrayLike | None = None,
    tol: float = 1e-11,
    max_iter: int = 200,
) -> FloatArray:
    """The root ``x`` of ``sum_i w_i d_i / (1 + x d_i) = 0`` with every ``1 + x d_i > 0``.

    ``weights`` must be positive. Rows where ``d`` does not take both signs have no root
    and give NaN. Newton steps inside a bracket, with bisection whenever a step would
    leave the bracket or shrink it by less than half of what the step before did (so a
    root next to a pole of the function, as tiny regularised weights create, is still
    reached fast). ``x0``: a starting point per row (e.g. the root of a nearby problem);
    0 by default, and 0 wherever ``x0`` is not strictly inside the row's bracket.
    """
    w = np.asarray(weights, dtype=float)
    dd = np.asarray(d, dtype=float)
    w, dd = np.broadcast_arrays(w, dd)
    shape = w.shape[:-1]
    w = w.reshape(-1, w.shape[-1])
    dd = dd.reshape(-1, dd.shape[-1])
    dmax = dd.max(axis=-1)
    dmin = dd.min(axis=-1)
    feasible = (dmax > 0) & (dmin < 0)
    out = np.full(len(w), np.nan)
    rows = np.flatnonzero(feasible)  # the rows still iterating
    w, dd = w[rows], dd[rows]
    lo, hi = -1.0 / dmax[rows], -1.0 / dmin[rows]
    if x0 is None:
        x = np.zeros(len(rows))
    else:
        start = np.broadcast_to(np.asarray(x0, dtype=float), shape).reshape(-1)[rows]
        x = np.where((start > lo) & (start < hi), start, 0.0)
    last = hi - lo  # the size of the step before the previous one
    prev = hi - lo
    for _ in range(max_iter):
        if not len(rows):
            break
        den = 1.0 + x[:, None] * dd
        wd = w * dd / den
        f = wd.sum(axis=-1)
        fp = -(wd * dd / den).sum(axis=-1)
        # f decreases in x: a positive value puts the root to the right
        lo = np.where(f > 0, x, lo)
        hi = np.where(f < 0, x, hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = x - f / fp
        # a Newton step below the tolerance ends the row (even if rounding put it a hair
        # outside the bracket); the tolerance is relative to the distance to the nearest
        # pole, where the probabilities are most sensitive to x, and never below what
        # floating point can resolve
        pole = np.min(den / np.maximum(np.abs(dd), 1e-300), axis=-1)
        resolution = np.maximum(tol * pole, 8.0 * EPS * np.abs(x))
        converged = (f == 0) | (np.abs(newton - x) <= resolution)
        slow = np.abs(newton - x) > 0.5 * np.abs(last)
        bisect = slow | ~((newton > lo) & (newton < hi))
        step = np.where(bisect, 0.5 * (lo + hi), newton)
        step = np.where(converged, np.where(f == 0, x, newton), step)
        last, prev = prev, np.abs(step - x)
        x = step
        if converged.any():
            out[rows[converged]] = x[converged]
            keep = ~converged
            rows, w, dd, x, lo, hi = rows[keep], w[keep], dd[keep], x[keep], lo[keep], hi[keep]
            last, prev = last[keep], prev[keep]
    out[rows] = x  # rows out of iterations: the best estimate
    return out.reshape(shape)


def mle_mean(q: ArrayLike, values: ArrayLike, s: ArrayLike) -> FloatArray:
    """The distribution closest in likelihood to ``q`` whose mean score is ``s``.

    ``q``: probabilities (..., n), all positive; ``values``: the n scores; ``s``: the
    required mean, broadcast against ``q``'s leading shape.
    """
    qq = np.asarray(q, dtype=float)
    a = np.asarray(values, dtype=float)
    ss = np.asarray(s, dtype=float)[..., None]
    d = a - ss
    x = solve_secular(qq, d)
    p: FloatArray = qq / (1.0 + x[..., None] * d)
    return p


def mle_tvalue(
    q: ArrayLike,
    values: ArrayLike,
    ref: float,
    t: ArrayLike,
    *,
    tol: float = 1e-11,
    max_iter: int = 100,
) -> FloatArray:
    """The distribution closest in likelihood to ``q`` with ``(mean - ref) / sd = t``.

    The fixed-point iteration of the module docstring, row by row until a row's
    probabilities move by less than ``tol``.
    """
    qq = np.asarray(q, dtype=float)
    a = np.asarray(values, dtype=float)
    tt = np.asarray(t, dtype=float)
    shape = np.broadcast_shapes(qq.shape, (*tt.shape, 1))
    qq = np.broadcast_to(qq, shape).reshape(-1, shape[-1])
    tt = np.broadcast_to(tt[..., None], (*shape[:-1], 1)).reshape(-1, 1)
    # start from the uniform distribution, as fishtest does: its t-value linearisation
    # has both signs for any |t| < 0.9 or so, which a start at a lopsided sample lacks
    out = np.full_like(qq, 1.0 / qq.shape[-1])
    rows = np.arange(len(qq))
    p, qa, ta = out, qq, tt
    x = np.zeros(len(rows))
    for _ in range(max_iter):
        if not len(rows):
            break
        mu = (p * a).sum(axis=-1, keepdims=True)
        sigma = np.sqrt(np.maximum((p * (a - mu) ** 2).sum(axis=-1, keepdims=True), 1e-300))
        phi = a - ref - ta * sigma * (1.0 + ((a - mu) / sigma) ** 2) / 2.0
        x = solve_secular(qa, phi, x0=x)  # the previous root is a close start
        new = qa / (1.0 + x[:, None] * phi)
        moved = np.abs(new - p).max(axis=-1)
        out[rows] = new
        keep = moved > tol  # NaN rows (infeasible) stop too
        rows, p, qa, ta, x = rows[keep], new[keep], qa[keep], ta[keep], x[keep]
    result: FloatArray = out.reshape(shape)
    return result
