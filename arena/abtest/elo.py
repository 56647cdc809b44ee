"""Elo scales of an A/B test: logistic Elo and normalised Elo.

*Logistic Elo* maps an expected score ``s`` per game (win 1, draw 1/2, loss 0) to
``elo = -400 log10(1/s - 1)``; it is the scale of the leaderboard (a Plackett–Luce fit in
which the probability that one player finishes above another is exactly this logistic
function of their rating difference).

*Normalised Elo* (fishtest's) measures a difference in units of the noise of the
design: ``nelo = (s - 1/2) / sigma_game * 800 / ln 10``, where ``sigma_game`` is the
standard deviation of one game's score *as the design delivers it* — for a unit of ``m``
games on one deal with unit score (the mean of its games) of standard deviation
``sigma_unit``, ``sigma_game = sqrt(m) sigma_unit``. The constant makes a normalised Elo
equal the logistic Elo for a draw-free game between near-equal players played
independently (``sigma_game = 1/2``, slope of the logistic ``ln 10 / 1600``). A design
that removes luck lowers ``sigma_game`` and so raises the normalised Elo of the same
difference: it is the scale on which the cost of a test is fixed (the expected length of
an SPRT with normalised bounds does not depend on the draw rate or the design).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["NELO_PER_T", "elo_from_score", "score_from_elo"]

NELO_PER_T = 800.0 / math.log(10.0)
"""Normalised Elo per unit of per-game t-value ((s - 1/2) / sigma_game)."""


def score_from_elo(elo: ArrayLike) -> NDArray[np.float64]:
    """Expected score per game of a player ``elo`` points stronger."""
    e = np.asarray(elo, dtype=float)
    result: NDArray[np.float64] = 1.0 / (1.0 + 10.0 ** (-e / 400.0))
    return result


def elo_from_score(score: float) -> float:
    """Logistic Elo difference of an expected score; ±inf at 1 and 0."""
    if not 0.0 <= score <= 1.0 or math.isnan(score):
        raise ValueError(f"a score must lie in [0, 1], got {score!r}")
    if score == 1.0:
        return math.inf
    if score == 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: no -0.0 at a score of 1/2
