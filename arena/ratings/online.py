"""Ratings between two full fits: one Newton step of each new game's Plackett–Luce
likelihood on a diagonal Gaussian belief (assumed-density filtering, as Glicko does for
pairs).

A ladder refits every stored game with :func:`arena.ratings.fit_ratings` now and then; in
between, :class:`OnlineRatings` starts from the last fit (its ratings and the diagonal of
its covariance) and folds in each game as it is played. For game ``g`` with player ``i``
at strength ``θ_i`` (natural units) the log-likelihood's gradient and curvature are those
of the fit (Efron's treatment of ties included)::

    g_i = 1 − Σ_t π_i^t          h_i = Σ_t π_i^t (1 − π_i^t)

where ``π^t`` is the share of seat ``i`` in the ``t``-th denominator. The belief
``N(θ_i, σ_i²)`` becomes ``σ_i'² = 1 / (1/σ_i² + h_i)`` and ``θ_i' = θ_i + σ_i'² g_i``.
A player never seen starts at the field mean with the prior's variance (the fit's
default prior: two virtual draws, one natural unit², about ±340 Elo at 95 %).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from arena.ratings.fit import ELO_PER_NATURAL_UNIT
from arena.ratings.types import Fit, GameResult

__all__ = ["PRIOR_STDERR", "OnlineRatings"]

PRIOR_VARIANCE = 1.0  # natural units², the fit's prior of two virtual draws at θ = 0
PRIOR_STDERR = ELO_PER_NATURAL_UNIT * math.sqrt(PRIOR_VARIANCE)  # Elo


def _stage_shares(strengths: list[float], ranks: tuple[int, ...]) -> list[list[float]]:
    """``shares[t][q]``: seat ``q``'s share of the ``t``-th Efron denominator."""
    k = len(ranks)
    order = sorted(range(k), key=lambda q: ranks[q])
    position = {q: pos for pos, q in enumerate(order)}
    start = [0] * k  # first position of each position's tie group
    size = [1] * k
    pos = 0
    while pos < k:
        end = pos
        while end + 1 < k and ranks[order[end + 1]] == ranks[order[pos]]:
            end += 1
        for p in range(pos, end + 1):
            start[p], size[p] = pos, end - pos + 1
        pos = end + 1
    shares = []
    for t in range(k):
        group = start[t]
        within = 1.0 - (t - group) / size[t]
        weights = []
        for q in range(k):
            sq = start[position[q]]
            w = 1.0 if sq > group else within if sq == group else 0.0
            weights.append(w * strengths[q])
        total = sum(weights)
        shares.append([w / total for w in weights])
    return shares


@dataclass
class OnlineRatings:
    """Each player's rating belief: a mean (Elo) and a variance (Elo²)."""

    anchor: float = 1500.0
    ratings: dict[str, float] = field(default_factory=dict)
    variances: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_fit(cls, fit: Fit) -> OnlineRatings:
        """The belief a full fit gives: its ratings and its covariance's diagonal."""
        return cls(
            anchor=fit.anchor,
            ratings=dict(fit.ratings),
            variances={p: fit.stderr(p) ** 2 for p in fit.players},
        )

    def rating(self, player: str) -> float:
        return self.ratings.get(player, self.anchor)

    def stderr(self, player: str) -> float:
        return math.sqrt(self.variances.get(player, PRIOR_STDERR**2))

    def update(self, game: GameResult) -> None:
        """Fold one game into the belief of its players (a one-player game changes
        nothing)."""
        players = game.players
        if len(players) < 2:
            return
        scale = ELO_PER_NATURAL_UNIT
        theta = [(self.rating(p) - self.anchor) / scale for p in players]
        top = max(theta)
        strengths = [math.exp(t - top) for t in theta]
        shares = _stage_shares(strengths, game.ranks)
        for q, p in enumerate(players):
            gradient = 1.0 - sum(s[q] for s in shares)
            curvature = sum(s[q] * (1.0 - s[q]) for s in shares)
            variance = (self.stderr(p) / scale) ** 2
            posterior = 1.0 / (1.0 / variance + curvature)
            self.ratings[p] = self.anchor + scale * (theta[q] + posterior * gradient)
            self.variances[p] = posterior * scale * scale
