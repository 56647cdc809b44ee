"""Standings of an event from its games: placement points and tie-breaks.

Placement points per game: first = K−1 … last = 0 at a K-seat table, tied seats share the
points of the places they cover. A smaller table's points are scaled to the event's table
size so that every game is worth the same. A bye is worth an average game per game the
others played that round (:func:`bye_credits`; in a gauntlet only a challenger's bye is
worth points: the field sits out by design). Tie-breaks: opponent strength (the mean
points-per-game of the opponents met, over the games they played — a bye is not a game
and its points do not count here —, averaged over one's games, Buchholz-style), then the
fitted rating. Each row also carries its rating's rank among the event's bots and the
number of games it forfeited: a forfeited seat ranks last and earns a last place's points
— also in a game whose bot never started (absent), which the ratings leave out instead
(``arena.leaderboard``).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.counts import split_count
from arena.status import GameStatus


def placement_points(ranks: Sequence[int], scale_to: int | None = None) -> list[float]:
    """Points per seat for one game's ranks (1 = first, ties share a rank)."""
    k = len(ranks)
    pts = []
    for r in ranks:
        tied = list(ranks).count(r)
        places = range(r - 1, r - 1 + tied)  # 0-based places covered by the tie
        pts.append(sum(k - 1 - p for p in places) / tied)
    if scale_to is not None and k > 1 and scale_to != k:
        factor = (scale_to - 1) / (k - 1)
        pts = [p * factor for p in pts]
    return pts


@dataclass
class GameRow:
    seating: list[str]
    ranks: list[int]
    status: str = GameStatus.COMPLETED
    forfeits: Collection[int] = ()  # the seats that forfeited (arena.faults.forfeited_seats)


@dataclass
class StandingRow:
    bot: str
    points: float = 0.0
    games: int = 0
    wins: float = 0.0
    byes: int = 0
    forfeits: int = 0  # games it forfeited (they count as last places)
    opponents: float = 0.0  # tie-break 1
    elo: float | None = None  # tie-break 2: the fitted rating of the event's games
    elo_rank: int | None = None  # the rating's rank among the event's bots (1 = best)
    rank: int = 0
    played_points: float = field(default=0.0, repr=False)  # points of games, byes left out
    # opponent -> sum over one's games of 1 / (opponents in that game): what opponent
    # strength needs, in memory that does not grow with the number of games
    opponent_weights: dict[str, float] = field(default_factory=dict, repr=False)
    games_with_opponents: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "bot": self.bot,
            "points": split_count(self.points),
            "tiebreaks": {
                "opponents": round(self.opponents, 4),
                "elo": None if self.elo is None else round(self.elo, 1),
            },
            "elo_rank": self.elo_rank,
            "games": self.games,
            "wins": split_count(self.wins),
            "byes": self.byes,
            "forfeits": self.forfeits,
        }


def compute_standings(
    bots: Iterable[str],
    games: Iterable[GameRow],
    *,
    table_size: int,
    byes: Iterable[tuple[str, int]] = (),
    elo: dict[str, float] | None = None,
) -> list[StandingRow]:
    """Standings sorted by points, then opponent strength, then Elo, then name.

    ``byes`` lists (bot, games the bye is worth: what the others played that round, or 0
    for a bye that earns nothing; see :func:`bye_credits`). ``elo``: the fitted rating of
    each bot that has one.
    """
    rows = {b: StandingRow(b) for b in bots}
    for g in games:
        if g.status != GameStatus.COMPLETED:
            continue
        pts = placement_points(g.ranks, table_size)
        firsts = [s for s, r in enumerate(g.ranks) if r == 1]
        for seat, bot in enumerate(g.seating):
            row = rows.get(bot)
            if row is None:
                continue
            row.points += pts[seat]
            row.played_points += pts[seat]
            row.games += 1
            if seat in g.forfeits:
                row.forfeits += 1
            if seat in firsts:
                row.wins += 1 / len(firsts)
            opponents = len(g.seating) - 1
            if opponents:
                row.games_with_opponents += 1
                w = row.opponent_weights
                for other in g.seating:
                    if other != bot:
                        w[other] = w.get(other, 0.0) + 1 / opponents
    average = (table_size - 1) / 2
    for bot, n in byes:
        if bot in rows:
            rows[bot].byes += 1
            rows[bot].points += average * n
    # opponents' strength from the games they played: a bye's points are not a result
    ppg = {b: (r.played_points / r.games if r.games else 0.0) for b, r in rows.items()}
    for r in rows.values():
        if r.games_with_opponents:
            # the mean over one's games of the opponents' mean points per game
            total = math.fsum(w * ppg.get(o, 0.0) for o, w in sorted(r.opponent_weights.items()))
            r.opponents = total / r.games_with_opponents
        if elo is not None:
            r.elo = elo.get(r.bot)
    rated = sorted((-r.elo, r.bot) for r in rows.values() if r.elo is not None)
    for i, (_, bot) in enumerate(rated):
        rows[bot].elo_rank = i + 1
    ordered = sorted(
        rows.values(),
        key=lambda r: (-r.points, -r.opponents, -(r.elo or 0.0), r.bot),
    )
    for i, r in enumerate(ordered):
        prev = ordered[i - 1] if i else None
        if prev is not None and (prev.points, prev.opponents, prev.elo) == (
            r.points,
            r.opponents,
            r.elo,
        ):
            r.rank = prev.rank
        else:
            r.rank = i + 1
    return ordered


def bye_credits(
    round_byes: Iterable[Sequence[str]],
    games_per_round: int,
    *,
    format: str,
    challengers: Iterable[str] = (),
) -> list[tuple[str, int]]:
    """(bot, games the bye is worth) for every bye of an event, for
    :func:`compute_standings`: an average game per game the others played that round.
    In a gauntlet the field bots sit out by design and earn nothing for it (0 games);
    a challenger's bye is worth the round's games like any other."""
    earns = set(challengers) if format == "gauntlet" else None
    return [
        (bot, games_per_round if earns is None or bot in earns else 0)
        for byes in round_byes
        for bot in byes
    ]
