"""Unit outcomes of an A/B test, the estimates drawn from them, and the variance ratio.

A unit is the ``m`` games NEW and BASE play on one deal (``m = 1`` for independent games,
``m = 2`` for a deal played twice with the seats swapped). Each game is scored from NEW's
side against BASE: ``W`` (NEW finished above BASE: 1), ``D`` (level: 1/2), ``L`` (0). At two
seats that is simply the game's result; at a larger table it is the head-to-head order
of NEW and BASE in the final ranking, whose probability the Plackett–Luce model of the
leaderboard makes exactly logistic in their Elo difference.

:class:`Tally` keeps how often each sequence of results occurred (``"WL": 40`` — NEW won
the first game of the deal and lost the second). That is all a test needs to be stored
and resumed: the unit-score counts of the SPRT (the pentanomial counts for pairs), the
estimates, and the variance ratio of the design are all functions of it.

**Estimates** (:meth:`Tally.estimate`): the mean score ``s`` per game is the mean unit
score ``U``; its standard error is ``sd(U) / sqrt(N)`` over ``N`` units — computed from the
units, so the correlation inside a deal is accounted for. The 95 % interval of the Elo is
the logistic image of ``s ± 1.96 se`` (clipped to [0, 1], hence possibly infinite). LOS
(likelihood of superiority) is ``Phi((s - 1/2) / se)``. The normalised Elo is
``(s - 1/2) / (sqrt(m) sd(U)) * 800 / ln 10`` with the interval ±1.96 ``800 / ln 10`` /
sqrt(games) (the standard error of a t-value near 0). The estimates are those of a
fixed-length sample; after a sequential stop they are biased away from the hypothesis
rejected, as for every stopped sequential test.

**Variance ratio** (:func:`variance_ratio`): how much the shared deal reduces the
variance of a unit's total score against the same games played on fresh deals (same seat
layouts, independent deals). Fresh deals make a unit's games independent with unchanged
marginal distributions, so the reference variance is the sum of the per-position
variances, and the ratio can be estimated from the duplicate units alone:

    R = Var(sum_k g_k) / sum_k Var(g_k) = 1 + 2 sum_{k<l} Cov(g_k, g_l) / sum_k Var(g_k),

with a delta-method standard error (influence function of a ratio of variances). The
number of games a test needs for a given precision scales with R.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtr

from arena.abtest.elo import NELO_PER_T, elo_from_score

__all__ = ["Estimate", "Tally", "variance_ratio"]

Z95 = 1.959963984540054
RESULT_SCORE = {"W": 1.0, "D": 0.5, "L": 0.0}
SCORE_RESULT = {1.0: "W", 0.5: "D", 0.0: "L"}


def variance_ratio(
    scores: ArrayLike, weights: ArrayLike | None = None
) -> tuple[float, float] | None:
    """Estimated ``Var(unit total) / sum of per-game variances`` and its standard error.

    ``scores``: an (N, m) array, row = one unit, column = the game's position in the unit
    (its seat layout), value = NEW's score in that game; ``weights``: optional counts of
    each row. None when it cannot be estimated (m < 2, fewer than two units, or no
    variance in any game).
    """
    g = np.asarray(scores, dtype=float)
    if g.ndim != 2:
        raise ValueError("scores must be a 2-d array: one row per unit, one column per game")
    w = np.ones(len(g)) if weights is None else np.asarray(weights, dtype=float)
    n = float(w.sum())
    if g.shape[1] < 2 or n < 2:
        return None
    mu = (w[:, None] * g).sum(axis=0) / n
    dev2 = (g - mu) ** 2
    v = (w[:, None] * dev2).sum(axis=0) / n
    total = g.sum(axis=1)
    mu_s = float((w * total).sum() / n)
    dev2_s = (total - mu_s) ** 2
    v_s = float((w * dev2_s).sum() / n)
    denom = float(v.sum())
    if denom <= 0.0:
        return None
    ratio = v_s / denom
    influence = ((dev2_s - v_s) - ratio * (dev2 - v).sum(axis=1)) / denom
    se = math.sqrt(float((w * influence**2).sum())) / n
    return ratio, se


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class Estimate:
    """What a tally says about NEW against BASE (see the module docstring)."""

    units: int
    games: int
    games_per_unit: int
    counts: tuple[int, ...]
    score: float
    score_se: float
    elo: float
    elo_low: float
    elo_high: float
    nelo: float
    nelo_low: float
    nelo_high: float
    los: float
    variance_ratio: float | None
    variance_ratio_se: float | None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: infinite or undefined figures become None."""
        out: dict[str, Any] = {}
        for k, v in self.__dict__.items():
            if isinstance(v, float):
                out[k] = _finite(v)
            elif isinstance(v, tuple):
                out[k] = list(v)
            else:
                out[k] = v
        return out


def _result_string(unit: str | Sequence[Any], m: int) -> str:
    if isinstance(unit, str):
        text = unit.upper()
    else:
        parts = []
        for r in unit:
            if isinstance(r, str):
                parts.append(r.upper())
            elif isinstance(r, int | float) and not isinstance(r, bool) and r in SCORE_RESULT:
                parts.append(SCORE_RESULT[float(r)])
            else:
                raise ValueError(f"a game result is W, D, L or a score 1, 0.5, 0; got {r!r}")
        text = "".join(parts)
    if len(text) != m or any(c not in RESULT_SCORE for c in text):
        raise ValueError(f"a unit is {m} game result(s) from W, D, L; got {unit!r}")
    return text


@dataclass
class Tally:
    """Counts of unit outcomes (sequences of NEW's results, one letter per game)."""

    games_per_unit: int
    outcomes: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.games_per_unit, bool) or not isinstance(self.games_per_unit, int):
            raise ValueError("games_per_unit must be an integer")
        if not 1 <= self.games_per_unit <= 16:
            raise ValueError("games_per_unit must be between 1 and 16")
        clean: dict[str, int] = {}
        for key, count in self.outcomes.items():
            k = _result_string(key, self.games_per_unit)
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ValueError(f"the count of {key!r} must be a non-negative integer")
            if count:
                clean[k] = clean.get(k, 0) + count
        self.outcomes = clean

    # ------------------------------------------------------------------ input
    def add(self, unit: str | Sequence[Any], count: int = 1) -> str:
        """Record one unit: ``"WL"``, ``["W", "L"]`` or ``[1, 0]``; returns its key."""
        key = _result_string(unit, self.games_per_unit)
        self.outcomes[key] = self.outcomes.get(key, 0) + count
        return key

    def extend(self, units: Iterable[str | Sequence[Any]]) -> None:
        for u in units:
            self.add(u)

    # ------------------------------------------------------------------ derived
    @property
    def units(self) -> int:
        return sum(self.outcomes.values())

    @property
    def games(self) -> int:
        return self.units * self.games_per_unit

    @property
    def counts(self) -> tuple[int, ...]:
        """Units by NEW's half-points: index i = unit score i / (2m) (pentanomial at m = 2)."""
        out = [0] * (2 * self.games_per_unit + 1)
        for key, c in self.outcomes.items():
            out[sum(int(2 * RESULT_SCORE[ch]) for ch in key)] += c
        return tuple(out)

    def game_counts(self) -> dict[str, int]:
        """NEW's wins, draws and losses over all games (ignoring the deal structure)."""
        out = {"W": 0, "D": 0, "L": 0}
        for key, c in self.outcomes.items():
            for ch in key:
                out[ch] += c
        return out

    def _rows(self) -> tuple[np.ndarray, np.ndarray]:
        keys = sorted(self.outcomes)
        rows = np.array([[RESULT_SCORE[ch] for ch in k] for k in keys], dtype=float)
        weights = np.array([self.outcomes[k] for k in keys], dtype=float)
        return rows.reshape(len(keys), self.games_per_unit), weights

    def variance_ratio(self) -> tuple[float, float] | None:
        """The design's variance ratio against fresh deals, with its standard error."""
        if self.games_per_unit < 2 or self.units < 2:
            return None
        rows, weights = self._rows()
        return variance_ratio(rows, weights)

    def estimate(self) -> Estimate:
        m = self.games_per_unit
        counts = self.counts
        n = sum(counts)
        values = np.arange(2 * m + 1) / (2.0 * m)
        if n:
            c = np.asarray(counts, dtype=float)
            score = float((c * values).sum() / n)
            var_unit = float((c * (values - score) ** 2).sum() / n)
        else:
            score, var_unit = 0.5, 0.0
        se = math.sqrt(var_unit / n) if n else math.inf
        if se > 0 and math.isfinite(se):
            los = float(ndtr((score - 0.5) / se))
        else:
            los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
        lo = min(max(score - Z95 * se, 0.0), 1.0)
        hi = min(max(score + Z95 * se, 0.0), 1.0)
        sigma_game = math.sqrt(m * var_unit)
        games = n * m
        if sigma_game > 0:
            nelo = (score - 0.5) / sigma_game * NELO_PER_T
            half = Z95 * NELO_PER_T / math.sqrt(games)
        else:
            nelo = 0.0 if score == 0.5 else math.copysign(math.inf, score - 0.5)
            half = math.inf
        vr = self.variance_ratio()
        return Estimate(
            units=n,
            games=games,
            games_per_unit=m,
            counts=counts,
            score=score,
            score_se=se,
            elo=elo_from_score(score),
            elo_low=elo_from_score(lo),
            elo_high=elo_from_score(hi),
            nelo=nelo,
            nelo_low=nelo - half,
            nelo_high=nelo + half,
            los=los,
            variance_ratio=vr[0] if vr else None,
            variance_ratio_se=vr[1] if vr else None,
        )

    # ------------------------------------------------------------------ storage
    def as_dict(self) -> dict[str, Any]:
        return {
            "games_per_unit": self.games_per_unit,
            "outcomes": dict(sorted(self.outcomes.items())),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tally:
        return cls(int(data["games_per_unit"]), dict(data.get("outcomes", {})))
