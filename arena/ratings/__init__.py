"""Elo leaderboards for multiplayer tables.

Each game's ranking counts as pairwise results. Two views, both recomputable from the
stored games:

* ``incremental_elo`` — classical Elo processed game by game (order-dependent, a fixed
  K-factor): a reference, not what the leaderboard shows;
* ``fit_ratings`` — an order-independent maximum-likelihood (MAP) Plackett–Luce fit on the
  Elo scale, as BayesElo and Ordo do for chess, with 95 % intervals and a
  likelihood-of-superiority matrix; ``refits`` re-runs it after each group of games
  (a rating history on the fit's own scale).
"""

from arena.ratings.elo import incremental_elo
from arena.ratings.fit import ELO_PER_NATURAL_UNIT, fit_ratings, refits
from arena.ratings.types import EloResult, Fit, GameResult

__all__ = [
    "ELO_PER_NATURAL_UNIT",
    "EloResult",
    "Fit",
    "GameResult",
    "fit_ratings",
    "incremental_elo",
    "refits",
]
