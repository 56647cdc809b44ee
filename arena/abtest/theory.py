"""Operating characteristics of the GSPRT: error rates, expected length, games needed.

**Model.** For a large sample the GSPRT's LLR after ``n`` units is close to the sum of
``n`` independent increments ``z(X) = log(p1*(X) / p0*(X))``, where ``X`` is a unit's score
under the true distribution ``p`` and ``p0*``, ``p1*`` are the projections of ``p`` onto H0
and H1 — the distributions the constrained maximum-likelihood step converges to as the
empirical frequencies approach ``p`` (:mod:`arena.abtest.mle`). So the test is, to that
order, a random walk with drift ``mu = E z`` and spread ``sigma = sd z`` between Wald's
bounds ``A = log(beta / (1 - alpha)) < 0 < B = log((1 - beta) / alpha)``.

**Approximation used** (a corrected diffusion approximation). Replace the walk by a
Brownian motion with the same drift and variance per unit. For it ``exp(-gamma W_t)``
with ``gamma = 2 mu / sigma^2`` is a martingale, and optional stopping gives the
probability of ending at the upper bound and, by Wald's identity ``E W_T = mu E T``, the
expected length:

    P(H1) = (1 - e^{-gamma A}) / (e^{-gamma B} - e^{-gamma A}),
    E[N]  = (P(H1) B + (1 - P(H1)) A) / mu          (mu -> 0:  E[N] = -A B / sigma^2).

A real walk overshoots the bound it crosses; Siegmund's correction moves both bounds
outwards by ``rho sigma`` with ``rho = -zeta(1/2) / sqrt(2 pi) ~ 0.583`` (the mean
overshoot of a walk with small normal increments) before applying the formulas.
Setting ``overshoot=False`` gives Wald's classical approximation (no overshoot, and,
at ``mu = E_1 z > 0`` with ``gamma = 1``, exactly ``P(H1) = 1 - beta``).

**Games needed** (:func:`games_needed`) uses the same formulas with the normal model of
a unit score — the GSPRT's quadratic approximation: with unit-score variance
``v`` and per-game scores ``s0``, ``s1`` of the hypotheses, the increment is
``(s1 - s0) (X - (s0 + s1)/2) / v``, so ``mu = (s1 - s0)(s - (s0 + s1)/2) / v`` at a true
score ``s`` and ``sigma = (s1 - s0) / sqrt(v)``. The cost of a test is proportional to ``v``:
a design that multiplies the variance of a unit by ``R`` multiplies the games needed by
``R``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtri

from arena.abtest.elo import NELO_PER_T, score_from_elo
from arena.abtest.mle import mle_mean, mle_tvalue
from arena.abtest.sprt import SprtSpec, unit_values

__all__ = ["OVERSHOOT_RHO", "GamesNeeded", "OperatingPoint", "games_needed", "operating_point"]

OVERSHOOT_RHO = 0.5825971579390106
"""-zeta(1/2) / sqrt(2 pi): mean overshoot per unit of increment spread (Siegmund)."""


@dataclass(frozen=True)
class OperatingPoint:
    """Predicted behaviour of one SPRT at one true distribution."""

    prob_h1: float
    """probability that the test accepts H1"""
    expected_units: float
    """expected number of units (games, or pairs) until a verdict"""
    drift: float
    """mean LLR increment per unit"""
    spread: float
    """standard deviation of the LLR increment per unit"""


def _walk(mu: float, sigma: float, spec: SprtSpec, overshoot: bool) -> tuple[float, float]:
    shift = OVERSHOOT_RHO * sigma if overshoot else 0.0
    a, b = spec.lower - shift, spec.upper + shift
    gamma = 2.0 * mu / (sigma * sigma)
    if abs(gamma * (b - a)) < 1e-9:
        p1 = -a / (b - a)
        return p1, -a * b / (sigma * sigma)
    # written with expm1 for accuracy: P = (1 - e^{-ga}) / (e^{-gb} - e^{-ga}); the
    # exponents are capped (P is then within 1e-300 of 0 or 1 anyway)
    ea = -math.expm1(min(-gamma * a, 700.0))
    eb = -math.expm1(min(-gamma * b, 700.0))
    p1 = ea / (ea - eb)
    return p1, (p1 * b + (1.0 - p1) * a) / mu


def operating_point(pdf: ArrayLike, spec: SprtSpec, *, overshoot: bool = True) -> OperatingPoint:
    """Error rate and expected length of the GSPRT ``spec`` when unit scores follow ``pdf``.

    ``pdf`` gives the probabilities of the unit scores ``0, 1/(2m), ..., 1`` (length
    ``2m + 1``).
    """
    p = np.asarray(pdf, dtype=float)
    if p.ndim != 1 or len(p) < 3 or len(p) % 2 == 0:
        raise ValueError("pdf needs 2m + 1 >= 3 probabilities")
    if np.any(p < 0) or not math.isclose(float(p.sum()), 1.0, rel_tol=1e-9):
        raise ValueError("pdf must be a probability distribution")
    m = (len(p) - 1) // 2
    a = unit_values(m)
    q = np.maximum(p, 1e-15)
    q = q / q.sum()
    if spec.model == "logistic":
        p0 = mle_mean(q, a, score_from_elo(spec.elo0))
        p1 = mle_mean(q, a, score_from_elo(spec.elo1))
    else:
        t0, t1 = (math.sqrt(m) * e / NELO_PER_T for e in (spec.elo0, spec.elo1))
        p0, p1 = mle_tvalue(q, a, 0.5, t0), mle_tvalue(q, a, 0.5, t1)
    z = np.log(p1) - np.log(p0)
    mu = float((q * z).sum())
    sigma = math.sqrt(float((q * (z - mu) ** 2).sum()))
    prob, units = _walk(mu, sigma, spec, overshoot)
    return OperatingPoint(prob, units, mu, sigma)


@dataclass(frozen=True)
class GamesNeeded:
    """Games an SPRT and a fixed-length test need, for one design."""

    sprt_at_elo1: float
    """expected games of the SPRT when the true difference is elo1"""
    sprt_at_elo0: float
    """expected games of the SPRT when the true difference is elo0"""
    sprt_worst: float
    """expected games at the true difference where the SPRT is slowest (midway)"""
    fixed: float
    """games of a fixed-length one-sided test with the same alpha and power 1 - beta"""


def games_needed(
    spec: SprtSpec,
    game_variance: float,
    ratio: float = 1.0,
    *,
    games_per_unit: int = 2,
    overshoot: bool = True,
) -> GamesNeeded:
    """Games a logistic-Elo test ``spec`` needs when one game's score has variance
    ``game_variance`` and units of ``games_per_unit`` games have the variance ratio
    ``ratio`` (a duplicate design's; 1 for independent games).

    A unit's score then has variance ``v = ratio * game_variance / m``; the expected number
    of units is proportional to ``v`` and a unit has ``m`` games, so the games needed depend
    on the design only through ``ratio`` (apart from the small overshoot correction).
    """
    if spec.model != "logistic":
        raise ValueError("games_needed is stated for logistic Elo bounds")
    if not game_variance > 0 or not ratio > 0:
        raise ValueError("variances must be positive")
    m = games_per_unit
    v = game_variance * ratio / m
    s0, s1 = float(score_from_elo(spec.elo0)), float(score_from_elo(spec.elo1))
    sigma = (s1 - s0) / math.sqrt(v)

    def at(score: float) -> float:
        mu = (s1 - s0) * (score - 0.5 * (s0 + s1)) / v
        return m * _walk(mu, sigma, spec, overshoot)[1]

    z = float(ndtri(1.0 - spec.alpha) + ndtri(1.0 - spec.beta))
    return GamesNeeded(
        sprt_at_elo1=at(s1),
        sprt_at_elo0=at(s0),
        sprt_worst=max(at(s) for s in np.linspace(s0, s1, 201)),
        fixed=m * (z * math.sqrt(v) / (s1 - s0)) ** 2,
    )
