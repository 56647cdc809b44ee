"""Ratings from stored games: the one place they are computed (recomputable at any time).

:func:`ratings` fits the completed games of one board — a variant, in Brutal mode or not —
or of one tournament. The leaderboard (``arena leaderboard``), the report's boards and bot
pages, and a tournament's standings and Swiss pairings all take their ratings from it, so
they cannot disagree. :func:`history` is the same fit re-run after each tournament round,
for the bot pages' charts.

A seat whose bot never played its game — it failed to start or to connect before it made
any decision (``arena.faults.Fault.absent``) — is left out of that game's ranking: the game
does not count for that bot's rating at all (an absent bot that never played has none),
and the other seats' places among themselves still count (:func:`rated`). Standings
count the same game as a forfeit (a last place) instead.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.names import labelled_version
from arena.store import games, tournaments
from arena.store.db import Db

if TYPE_CHECKING:
    from arena.ratings import Fit, GameResult


def rated(game: games.Result) -> GameResult | None:
    """A stored game as the ratings see it: without its absent seats; None when fewer
    than two seats are left (nobody met anybody)."""
    from arena.ratings import GameResult

    if not game.absent:
        return GameResult(tuple(game.seating), tuple(game.ranks))
    kept = [i for i in range(len(game.seating)) if i not in game.absent]
    if len(kept) < 2:
        return None
    return GameResult(tuple(game.seating[i] for i in kept), tuple(game.ranks[i] for i in kept))


@dataclass(frozen=True)
class Board:
    """The fitted ratings of one board: best first, ``fit.players``."""

    variant: str | None  # None: games of any variant (only with a tournament filter)
    brutal: bool | None
    fit: Fit

    @property
    def ratings(self) -> dict[str, float]:
        return self.fit.ratings

    def rank_of(self, bot: str) -> int | None:
        """The bot's place on the board (1 = best rating); None without a rated game."""
        try:
            return self.fit.players.index(bot) + 1
        except ValueError:
            return None

    def rows(self, all_versions: bool = True) -> list[dict[str, Any]]:
        """One row per bot, best first: rank, bot, elo, ci_low, ci_high, games, score
        (None for a bot with only one-seat games), los_next, variant, brutal.

        Every registered version is a player of its own (``ev@v2``, arena.names). With
        ``all_versions`` false only the newest rated version of each registered bot is
        shown (every other player too); ranks and ``los_next`` are then those among the
        rows shown, the ratings those of the one fit over every version's games."""
        fit = self.fit
        shown = fit.players if all_versions else newest_versions(fit.players)
        out = []
        for i, bot in enumerate(shown):
            score = fit.score[bot]
            out.append(
                {
                    "rank": i + 1,
                    "bot": bot,
                    "elo": fit.ratings[bot],
                    "ci_low": fit.ci_low[bot],
                    "ci_high": fit.ci_high[bot],
                    "games": fit.games[bot],
                    "score": None if math.isnan(score) else score,
                    "los_next": fit.los(bot, shown[i + 1]) if i + 1 < len(shown) else None,
                    "variant": self.variant,
                    "brutal": self.brutal,
                }
            )
        return out


def newest_versions(players: Sequence[str]) -> list[str]:
    """``players`` (in their order) less the registered versions that a newer version of
    the same bot among them supersedes (``ev@v1`` goes when ``ev@v2`` is there); a repeat
    entry's row (``ev@v2#2``) stays with its version."""
    newest: dict[str, int] = {}
    for p in players:
        v = labelled_version(p)
        if v is not None:
            newest[v[0]] = max(newest.get(v[0], 0), v[1])
    out = []
    for p in players:
        v = labelled_version(p)
        if v is None or newest[v[0]] == v[1]:
            out.append(p)
    return out


def ratings(
    db: Db,
    *,
    variant: str | None = None,
    brutal: bool | None = None,
    tournament: int | None = None,
) -> Board:
    """The maximum-likelihood fit of the stored completed games that match the filters
    (``None``: any): a board is a variant with ``brutal`` true or false; ``tournament``
    narrows it to one event's games."""
    from arena.ratings import fit_ratings

    stored = games.results(db, variant=variant, brutal=brutal, tournament=tournament)
    return Board(variant, brutal, fit_ratings(g for g in map(rated, stored) if g is not None))


def boards(db: Db, *, variant: str | None = None, brutal: bool | None = None) -> list[Board]:
    """One board per variant and Brutal mode of which completed games are stored (those
    matching the filters), sorted by variant, the plain game first."""
    return [
        ratings(db, variant=v, brutal=b)
        for v, b in games.kinds(db)
        if (variant is None or v == variant) and (brutal is None or b == brutal)
    ]


def leaderboard_rows(
    db: Db,
    *,
    variant: str | None = None,
    brutal: bool | None = None,
    tournament: int | None = None,
    all_versions: bool = True,
) -> list[dict[str, Any]]:
    """The rows ``arena leaderboard --json`` prints: every board's rows (see
    :meth:`Board.rows`) one board after the other, figures rounded. With ``tournament``:
    that event's board alone, every version that played in it. ``all_versions`` false:
    the newest rated version of each registered bot only (the command's default)."""
    if tournament is not None:
        found = tournaments.get(db, tournament)
        if found is None:
            return []
        t = found[0]
        if (variant is not None and variant != t.variant) or brutal not in (None, t.brutal):
            return []
        chosen = [ratings(db, variant=t.variant, brutal=t.brutal, tournament=tournament)]
    else:
        chosen = boards(db, variant=variant, brutal=brutal)
    out = []
    for board in chosen:
        for row in board.rows(all_versions or tournament is not None):
            for key in ("elo", "ci_low", "ci_high"):
                row[key] = round(row[key], 1)
            for key in ("score", "los_next"):
                if row[key] is not None:
                    row[key] = round(row[key], 4)
            out.append(row)
    return out


def winner_los(standings: Sequence[Any], board: Board) -> tuple[str, str, float] | None:
    """(leader, runner-up, likelihood that the leader is the stronger of the two) for
    standings rows (``.bot``, best first), from the board's fit; None unless both are
    rated."""
    if len(standings) < 2:
        return None
    first, second = standings[0].bot, standings[1].bot
    if first not in board.ratings or second not in board.ratings:
        return None
    return first, second, board.fit.los(first, second)


@dataclass
class History:
    """A board's ratings after each tournament round that added games to it, in the
    order the rounds ended (their last game stored)."""

    rounds: list[int]  # round ids (the last of each group of ``every``)
    every: int = 1  # rounds per point (see history's max_points)
    # bot -> its rating after each round, from the first round it played in
    ratings: dict[str, list[float]] = field(default_factory=dict)


def history(db: Db, *, variant: str, brutal: bool, max_points: int | None = None) -> History:
    """The board's fit (:func:`ratings`) re-run after each round: the rating each bot had
    on the leaderboard when that round was over. The last point of every bot is its
    rating on the board now. ``max_points``: re-run it after every k-th round only (and
    after the last), so that at most this many fits are made: a ladder of 100,000 games
    has 1,000 rounds, and each fit is over every game before it."""
    from arena.ratings import refits

    by_round: dict[int, list[Any]] = defaultdict(list)
    last: dict[int, int] = {}
    for r in games.results(db, variant=variant, brutal=brutal):
        g = rated(r)
        if g is not None:
            by_round[r.round_id].append(g)
            last[r.round_id] = max(last.get(r.round_id, 0), r.game_id)
    order = sorted(by_round, key=lambda rid: (last[rid], rid))
    groups = [[rid] for rid in order]
    if max_points is not None and len(order) > max_points:
        k = -(-len(order) // max_points)
        groups = [order[i : i + k] for i in range(0, len(order), k)]
    out = History(rounds=[g[-1] for g in groups], every=len(groups[0]) if groups else 1)
    for after in refits([x for rid in g for x in by_round[rid]] for g in groups):
        for bot, rating in after.items():
            out.ratings.setdefault(bot, []).append(rating)
    return out
