"""Value types of the ratings package: a game's result and the two rating views.

``GameResult`` is the only input: the players at one table and the rank each achieved
(1 = best, ties share a rank). ``EloResult`` is the incremental view (with a history for
charts); ``Fit`` is the order-independent maximum-likelihood view with uncertainty.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr

__all__ = ["EloResult", "Fit", "GameResult"]


@dataclass(frozen=True)
class GameResult:
    """The outcome of one game: who sat at the table and the rank each one finished.

    ``ranks[i]`` is the rank of ``players[i]``; a lower rank is better and equal ranks are
    ties (competition ranking such as ``(1, 2, 2, 4)`` is the usual form, but only the
    order matters; ranks must be integers). Names must be unique within a game. A
    one-player game is accepted but carries no comparative information: it only counts
    towards the games played. Lists are accepted and stored as tuples.
    """

    players: tuple[str, ...]
    ranks: tuple[int, ...]

    def __post_init__(self) -> None:
        players = tuple(self.players)
        ranks = tuple(operator.index(r) for r in self.ranks)
        if not players:
            raise ValueError("a game needs at least one player")
        if len(players) != len(ranks):
            raise ValueError(f"players and ranks differ in length ({len(players)} != {len(ranks)})")
        if len(set(players)) != len(players):
            raise ValueError(f"duplicate player names in one game: {players!r}")
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "ranks", ranks)


@dataclass(frozen=True)
class EloResult:
    """Incremental Elo after processing every game in order.

    Attributes:
        ratings: final rating of every player seen.
        games: number of games each player took part in.
        history: ``(game index, player, rating after that game)`` for every seat of every
            game, in input order; the game index is the position in the input (0-based).
    """

    ratings: dict[str, float]
    games: dict[str, int]
    history: list[tuple[int, str, float]]


def _normal_los(diff: NDArray[np.float64], var: NDArray[np.float64]) -> NDArray[np.float64]:
    """P(X > 0) for X ~ N(diff, var); a degenerate variance gives 1, 0 or 0.5."""
    diff = np.asarray(diff, dtype=float)
    var = np.asarray(var, dtype=float)
    positive = var > 0.0
    z = np.divide(diff, np.sqrt(np.where(positive, var, 1.0)))
    degenerate = np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5))
    return np.where(positive, ndtr(z), degenerate)


@dataclass(frozen=True, eq=False)
class Fit:
    """Maximum-likelihood (MAP) ratings on the Elo scale, as produced by ``fit_ratings``.

    Attributes:
        players: every player with at least one game, best rating first (ties by name).
        ratings: rating of each player; the mean over ``players`` equals ``anchor``.
        ci_low, ci_high: bounds of the 95 % interval (rating ± 1.96 standard errors).
            Standard errors are relative to the centring constraint: they describe the
            uncertainty of a player's rating *relative to the field mean*, i.e. they come
            from ``cov`` below.
        games: number of games each player took part in.
        score: mean pairwise score over all opponents met (win 1, tie 0.5, loss 0);
            ``nan`` for a player whose games were all one-player games.
        cov: covariance matrix of the ratings in Elo² units, rows/columns aligned with
            ``players``. It is the inverse of the observed information (negative Hessian of
            the log posterior) at the optimum, projected onto the centring constraint
            (``C Σ C`` with ``C = I − 11ᵀ/n``), so every row sums to zero. Differences
            between players are unaffected by the projection.
        los_next: likelihood of superiority of each player over the next one in
            ``players``; ``None`` for the last.
        anchor: the mean rating.
        prior_strength: the prior used (virtual draws per player, see ``fit_ratings``).
        iterations: Newton iterations used.
    """

    players: list[str]
    ratings: dict[str, float]
    ci_low: dict[str, float]
    ci_high: dict[str, float]
    games: dict[str, int]
    score: dict[str, float]
    cov: NDArray[np.float64]
    los_next: dict[str, float | None]
    anchor: float = 1500.0
    prior_strength: float = 0.0
    iterations: int = 0
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {p: i for i, p in enumerate(self.players)})

    @classmethod
    def empty(cls, *, anchor: float = 1500.0, prior_strength: float = 0.0) -> Fit:
        """The fit of no games: no players, a 0×0 covariance."""
        return cls(
            players=[],
            ratings={},
            ci_low={},
            ci_high={},
            games={},
            score={},
            cov=np.zeros((0, 0)),
            los_next={},
            anchor=anchor,
            prior_strength=prior_strength,
        )

    def stderr(self, player: str) -> float:
        """Standard error (Elo points) of ``player``'s rating relative to the field mean."""
        i = self._index[player]
        return math.sqrt(max(float(self.cov[i, i]), 0.0))

    def los(self, a: str, b: str) -> float:
        """Likelihood of superiority: P(true rating of ``a`` > true rating of ``b``).

        Uses the normal approximation of the posterior: the rating difference is normal
        with mean ``ratings[a] − ratings[b]`` and variance
        ``cov[a,a] + cov[b,b] − 2·cov[a,b]``. ``los(a, a)`` is 0.5 by convention, and
        ``los(a, b) + los(b, a) == 1``. Raises ``KeyError`` for an unknown player.
        """
        i, j = self._index[a], self._index[b]
        if i == j:
            return 0.5
        if i > j:  # evaluate one orientation only, as los_matrix does
            return 1.0 - self.los(b, a)
        cov = self.cov
        var = cov[i, i] + cov[j, j] - 2.0 * cov[i, j]
        diff = self.ratings[a] - self.ratings[b]
        return float(_normal_los(np.array(diff), np.array(var)))

    def los_matrix(self) -> NDArray[np.float64]:
        """Matrix ``M[i, j] = los(players[i], players[j])`` (diagonal 0.5)."""
        n = len(self.players)
        if n == 0:
            return np.zeros((0, 0))
        r = np.array([self.ratings[p] for p in self.players])
        d = np.diag(self.cov)
        var = d[:, None] + d[None, :] - 2.0 * self.cov
        m = _normal_los(r[:, None] - r[None, :], var)
        # Compute one triangle and mirror it so that M + Mᵀ == 1 holds exactly.
        upper = np.triu(m, 1)
        m = upper + (1.0 - upper.T) * np.tril(np.ones((n, n)), -1)
        np.fill_diagonal(m, 0.5)
        return m

    def table(self) -> list[dict[str, object]]:
        """Leaderboard rows (best first) with rating, interval, games, score and LOS."""
        return [
            {
                "player": p,
                "rating": self.ratings[p],
                "ci_low": self.ci_low[p],
                "ci_high": self.ci_high[p],
                "games": self.games[p],
                "score": self.score[p],
                "los_next": self.los_next[p],
            }
            for p in self.players
        ]
