"""Incremental Elo for multiplayer tables: each game's ranking counts as pairwise results.

For a table of ``K`` players every ordered pair ``(i, j)`` is one pairwise result for
``i``: 1 if ``i`` ranked better, 0.5 on a tie, 0 if worse. The expected score is the usual
Elo formula ``E_ij = 1 / (1 + 10 ** ((R_j − R_i) / 400))``. A player's change is

    ΔR_i = k / (K − 1) · Σ_{j ≠ i} (S_ij − E_ij)

so a table of any size moves a rating by at most ``k`` (the sum has ``K − 1`` terms each
in (−1, 1)), and a two-player game is exactly classical Elo with factor ``k``. All
changes of a game are computed from the pre-game ratings and then applied together,
which makes every game zero-sum.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from arena.ratings.types import EloResult, GameResult

__all__ = ["elo_steps", "incremental_elo"]


def _pairwise_points(ranks: tuple[int, ...]) -> list[float]:
    """Total pairwise score of each seat against the others (win 1, tie 0.5)."""
    points = []
    for r in ranks:
        better = 0
        tied = -1  # the seat itself
        for s in ranks:
            if r < s:
                better += 1
            elif r == s:
                tied += 1
        points.append(better + 0.5 * tied)
    return points


def elo_steps(
    games: Iterable[GameResult], *, k: float = 32.0, initial: float = 1500.0
) -> Iterator[list[tuple[str, float]]]:
    """Process ``games`` in order, yielding after each one ``(player, rating after the
    game)`` for every seat. Holds only the current ratings, however many games stream by;
    :func:`incremental_elo` is this, collected."""
    ratings: dict[str, float] = {}
    for game in games:
        players = game.players
        n = len(players)
        pre = [ratings.get(p, initial) for p in players]
        if n >= 2:
            scale = k / (n - 1)
            base = sum(pre) / n  # keeps the powers of ten small whatever the level
            q = [10.0 ** ((r - base) / 400.0) for r in pre]
            points = _pairwise_points(game.ranks)
            post = []
            for i in range(n):
                qi = q[i]
                expected = 0.0
                for j in range(n):
                    if j != i:
                        expected += qi / (qi + q[j])
                post.append(pre[i] + scale * (points[i] - expected))
        else:
            post = pre
        for p, r in zip(players, post, strict=True):
            ratings[p] = r
        yield list(zip(players, post, strict=True))


def incremental_elo(
    games: Iterable[GameResult], *, k: float = 32.0, initial: float = 1500.0
) -> EloResult:
    """Process ``games`` in order and return the final ratings and their history.

    Args:
        games: results in chronological order (the result depends on this order).
        k: the Elo K-factor; a game moves a rating by at most about ``k`` whatever the
            table size, since the per-pair factor is ``k / (K_table − 1)``.
        initial: rating of a player before their first game.

    Returns:
        An ``EloResult``. Every seat of every game appends ``(game index, player, rating
        after the game)`` to ``history``. One-player games change nothing but still count
        as a game played and appear in the history.
    """
    ratings: dict[str, float] = {}
    played: dict[str, int] = {}
    history: list[tuple[int, str, float]] = []
    for index, step in enumerate(elo_steps(games, k=k, initial=initial)):
        for p, r in step:
            ratings[p] = r
            played[p] = played.get(p, 0) + 1
            history.append((index, p, r))
    return EloResult(ratings=ratings, games=played, history=history)
