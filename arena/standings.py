"""Standings of an event from its games: placement points and tie-breaks.

Placement points per game: first = K−1 … last = 0 at a K-seat table, tied seats share the
points of the places they cover. A smaller table's points are scaled to the event's table
size so that every game is worth the same. A bye is worth an average game per game the
others played that round. Tie-breaks: opponent strength (the mean points-per-game of the
opponents met, averaged over one's games, Buchholz-style), then Elo.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


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
    status: str = "completed"


@dataclass
class StandingRow:
    bot: str
    points: float = 0.0
    games: int = 0
    wins: float = 0.0
    byes: int = 0
    opponents: float = 0.0  # tie-break 1
    elo: float | None = None  # tie-break 2
    rank: int = 0
    # opponent -> sum over one's games of 1 / (opponents in that game): what opponent
    # strength needs, in memory that does not grow with the number of games
    opponent_weights: dict[str, float] = field(default_factory=dict, repr=False)
    games_with_opponents: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "bot": self.bot,
            "points": round(self.points, 4),
            "tiebreaks": {
                "opponents": round(self.opponents, 4),
                "elo": None if self.elo is None else round(self.elo, 1),
            },
            "games": self.games,
            "wins": round(self.wins, 4),
            "byes": self.byes,
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

    ``byes`` lists (bot, games the others played in that round).
    """
    rows = {b: StandingRow(b) for b in bots}
    for g in games:
        if g.status != "completed":
            continue
        pts = placement_points(g.ranks, table_size)
        firsts = [s for s, r in enumerate(g.ranks) if r == 1]
        for seat, bot in enumerate(g.seating):
            row = rows.get(bot)
            if row is None:
                continue
            row.points += pts[seat]
            row.games += 1
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
    ppg = {b: (r.points / r.games if r.games else 0.0) for b, r in rows.items()}
    for r in rows.values():
        if r.games_with_opponents:
            # the mean over one's games of the opponents' mean points per game
            total = math.fsum(w * ppg.get(o, 0.0) for o, w in sorted(r.opponent_weights.items()))
            r.opponents = total / r.games_with_opponents
        if elo is not None:
            r.elo = elo.get(r.bot)
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
