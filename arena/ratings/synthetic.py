"""Synthetic Plackett–Luce games with known strengths, for tests and benchmarks."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from arena.ratings.types import GameResult

__all__ = ["sample_games", "sample_orders"]


def sample_orders(
    strengths: ArrayLike, tables: ArrayLike, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Finishing orders of ``tables`` (``(n, K)`` player indices) under Plackett–Luce.

    Sequential sampling: first place is drawn among the table with probability
    proportional to ``strengths``, second among those left, and so on. Returns the player
    indices of each table sorted best first.
    """
    tables = np.asarray(tables, dtype=np.int64)
    n, k = tables.shape
    left = np.asarray(strengths, dtype=float)[tables].copy()
    rows = np.arange(n)
    out = np.empty_like(tables)
    for place in range(k):
        cumulative = np.cumsum(left, axis=1)
        u = rng.random(n) * cumulative[:, -1]
        pick = (cumulative <= u[:, None]).sum(axis=1)
        pick = np.minimum(pick, k - 1)
        # guard against rounding landing on an already removed seat
        removed = left[rows, pick] == 0.0
        if removed.any():
            pick[removed] = np.argmax(left[removed] > 0.0, axis=1)
        out[:, place] = tables[rows, pick]
        left[rows, pick] = 0.0
    return out


def sample_games(
    ratings: ArrayLike,
    n_games: int,
    seats: int,
    rng: np.random.Generator,
    *,
    names: Sequence[str] | None = None,
) -> list[GameResult]:
    """``n_games`` tables of ``seats`` distinct players drawn uniformly, ranked by PL.

    ``ratings`` are on the Elo scale (strength ``10 ** (rating / 400)``); results carry no
    ties (ranks 1..seats). Players are named ``names[i]`` or ``"p{i}"``.
    """
    r = np.asarray(ratings, dtype=float).ravel()
    n_players = len(r)
    if not 2 <= seats <= n_players:
        raise ValueError("need 2 <= seats <= number of players")
    labels = list(names) if names is not None else [f"p{i}" for i in range(n_players)]
    strengths = np.exp((r - r.max()) * (math.log(10.0) / 400.0))
    tables = rng.integers(0, n_players, size=(n_games, seats))
    while True:  # redraw tables that seat a player twice
        s = np.sort(tables, axis=1)
        bad = (s[:, 1:] == s[:, :-1]).any(axis=1)
        if not bad.any():
            break
        tables[bad] = rng.integers(0, n_players, size=(int(bad.sum()), seats))
    orders = sample_orders(strengths, tables, rng)
    ranks = tuple(range(1, seats + 1))
    return [GameResult(tuple(labels[i] for i in row), ranks) for row in orders.tolist()]
