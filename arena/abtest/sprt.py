"""The generalised sequential probability ratio test (GSPRT) on unit scores.

A *unit* is the smallest independent piece of a test: one game (independent deals), or
the ``m`` games of one deal (duplicates: for two seats, the deal played twice with the
seats swapped, ``m = 2``). A unit's score is NEW's mean score over its games (win 1,
draw 1/2, loss 0), so it takes the ``2m + 1`` values ``0, 1/(2m), ..., 1``: three for a
single game (the *trinomial* model), five for a pair (the *pentanomial* model of fishtest).
The test sees only how often each value occurred, ``n_0 .. n_2m``: not a win/draw/loss
count, so the correlation between the games of a deal is part of the model.

**Hypotheses.** H0: ``elo = elo0`` against H1: ``elo = elo1``. On the logistic scale the
Elo fixes the expected per-game score ``s = 1 / (1 + 10^(-elo/400))``, which is the mean
unit score; on the normalised scale it fixes the t-value ``(mean - 1/2) / sigma_unit =
sqrt(m) * nelo / (800 / ln 10)`` (see :mod:`arena.abtest.elo`). Neither fixes the whole
distribution, so both are composite.

**The statistic** (as in fishtest, after M. Van den Bergh's note on the GSPRT for
pentanomial frequencies): replace each composite hypothesis by its member that is most
likely given the data — the maximum-likelihood distribution ``p^(j)`` under the
constraint of Hj (:mod:`arena.abtest.mle`) — and take the log-likelihood ratio of those two:

    LLR = sum_i n_i log(p^(1)_i / p^(0)_i).

For large samples this behaves like the LLR of a simple SPRT whose increments are
``log(p1*(X) / p0*(X))``, where ``p0*``, ``p1*`` are the projections of the true
distribution onto the two hypotheses (:mod:`arena.abtest.theory` uses this to predict error
rates and lengths). A category never seen gets a count of 1e-3 (fishtest's
regularisation) so that the support stays the full set of values and the constraints
stay feasible while the sample is small; a test with no units has LLR 0.

**Stopping.** Wald's bounds: continue while ``log(beta / (1 - alpha)) < LLR <
log((1 - beta) / alpha)``; crossing the upper bound accepts H1 (NEW is better by about
elo1), the lower one accepts H0. Ignoring the overshoot these give error rates alpha and
beta; the overshoot makes them slightly smaller.

**Parsing.** :func:`parse_sprt` reads the command-line form
``elo0=0 elo1=10 alpha=0.05 beta=0.05 [model=logistic|normalized]``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from arena.abtest.elo import NELO_PER_T, score_from_elo
from arena.abtest.mle import mle_mean, mle_tvalue

__all__ = [
    "REGULARISATION",
    "SprtSpec",
    "SprtSpecError",
    "Verdict",
    "llr",
    "parse_sprt",
    "unit_values",
]

REGULARISATION = 1e-3
"""Count given to a score value never observed (keeps every hypothesis feasible)."""

MAX_ABS_ELO = 1000.0
MODELS = ("logistic", "normalized")


class SprtSpecError(ValueError):
    """A malformed or inconsistent SPRT specification (a user mistake)."""


class Verdict(StrEnum):
    ACCEPT_H0 = "H0"
    ACCEPT_H1 = "H1"
    CONTINUE = "continue"

    @property
    def text(self) -> str:
        return {"H0": "H0 accepted", "H1": "H1 accepted", "continue": "continue"}[self.value]


@dataclass(frozen=True)
class SprtSpec:
    """The hypotheses and error rates of one test.

    ``elo0 < elo1`` on the scale of ``model`` ("logistic" Elo or "normalized" Elo);
    ``alpha`` is the probability of accepting H1 when H0 holds, ``beta`` of accepting H0 when
    H1 holds, both in (0, 0.5).
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                raise SprtSpecError(f"{name} must be a finite number, got {v!r}")
            object.__setattr__(self, name, float(v))
        if self.model not in MODELS:
            raise SprtSpecError(f"unknown model {self.model!r} (choose from {', '.join(MODELS)})")
        for name in ("elo0", "elo1"):
            if abs(getattr(self, name)) > MAX_ABS_ELO:
                raise SprtSpecError(f"{name} must lie within ±{MAX_ABS_ELO:g}")
        if not self.elo1 > self.elo0:
            raise SprtSpecError(
                f"elo1 must be greater than elo0 (got {self.elo0:g}, {self.elo1:g})"
            )
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if not 0.0 < v < 0.5:
                raise SprtSpecError(f"{name} must lie strictly between 0 and 0.5, got {v:g}")

    @property
    def lower(self) -> float:
        """Wald's lower bound, log(beta / (1 - alpha)): at or below it H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound, log((1 - beta) / alpha): at or above it H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def verdict(self, value: float) -> Verdict:
        if value >= self.upper:
            return Verdict.ACCEPT_H1
        if value <= self.lower:
            return Verdict.ACCEPT_H0
        return Verdict.CONTINUE

    def as_dict(self) -> dict[str, Any]:
        return {
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "model": self.model,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SprtSpec:
        return cls(**{k: data[k] for k in ("elo0", "elo1", "alpha", "beta", "model") if k in data})

    def __str__(self) -> str:
        unit = "" if self.model == "logistic" else " (normalized)"
        return (
            f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}{unit}"
        )


def parse_sprt(text: str | Iterable[str]) -> SprtSpec:
    """Parse ``elo0=0 elo1=10 alpha=0.05 beta=0.05 model=logistic``.

    Tokens are separated by spaces or commas (a list of tokens is accepted too, as a
    command line delivers them); every key is optional (defaults: elo0=0, elo1=10,
    alpha=0.05, beta=0.05, model=logistic; ``normalised`` is accepted as a spelling of
    ``normalized``). Raises :class:`SprtSpecError` with a one-line message.
    """
    if isinstance(text, str):
        text = [text]
    tokens = [t for part in text for t in part.replace(",", " ").split()]
    values: dict[str, Any] = {}
    for token in tokens:
        key, sep, raw = token.partition("=")
        key = key.strip().lower()
        if not sep or not key or not raw:
            raise SprtSpecError(f"bad SPRT setting {token!r}: expected KEY=VALUE, e.g. elo1=10")
        if key not in ("elo0", "elo1", "alpha", "beta", "model"):
            raise SprtSpecError(
                f"unknown SPRT setting {key!r} (known: elo0, elo1, alpha, beta, model)"
            )
        if key in values:
            raise SprtSpecError(f"SPRT setting {key!r} given twice")
        if key == "model":
            model = raw.strip().lower()
            values[key] = "normalized" if model == "normalised" else model
            continue
        try:
            number = float(raw)
        except ValueError:
            raise SprtSpecError(f"SPRT setting {key}={raw!r} is not a number") from None
        values[key] = number
    return SprtSpec(**values)


def unit_values(games_per_unit: int) -> NDArray[np.float64]:
    """The possible unit scores ``0, 1/(2m), ..., 1`` of a unit of ``m`` games."""
    if games_per_unit < 1:
        raise ValueError("a unit has at least one game")
    result: NDArray[np.float64] = np.arange(2 * games_per_unit + 1) / (2.0 * games_per_unit)
    return result


def llr(counts: ArrayLike, spec: SprtSpec) -> NDArray[np.float64]:
    """The GSPRT log-likelihood ratio of H1 against H0 for unit-score counts.

    ``counts[..., i]`` is how many units scored ``i / (2m)``; the length of the last axis
    (``2m + 1``) tells the number of games per unit. Any leading shape is a batch.
    """
    n = np.asarray(counts, dtype=float)
    k = n.shape[-1]
    if k < 3 or k % 2 == 0:
        raise ValueError(f"unit-score counts need 2m + 1 >= 3 entries, got {k}")
    m = (k - 1) // 2
    a = unit_values(m)
    total = n.sum(axis=-1)
    reg = np.where(n > 0, n, REGULARISATION)
    q = reg / reg.sum(axis=-1, keepdims=True)
    if spec.model == "logistic":
        s0, s1 = score_from_elo(spec.elo0), score_from_elo(spec.elo1)
        p0, p1 = mle_mean(q, a, s0), mle_mean(q, a, s1)
    else:
        t0, t1 = (math.sqrt(m) * e / NELO_PER_T for e in (spec.elo0, spec.elo1))
        p0, p1 = mle_tvalue(q, a, 0.5, t0), mle_tvalue(q, a, 0.5, t1)
    value: NDArray[np.float64] = (reg * (np.log(p1) - np.log(p0))).sum(axis=-1)
    return np.where(total > 0, value, 0.0)
