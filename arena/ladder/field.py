"""The ladder's field as the matchmaker sees it, kept current game by game (pure).

:class:`Field` holds, for every bot that has played or may play, its games, the last
table it sat at and how often it sat at each seat, and the rating belief: the last full
Plackett–Luce fit (``refit``) with every later game folded in online
(:class:`arena.ratings.online.OnlineRatings`). The ladder runner and the matchmaking
benchmark drive the same class, so the benchmark measures what the ladder does.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from arena import limits
from arena.ladder.matchmaker import Rule, Standing, next_table, random_table
from arena.ratings.online import OnlineRatings
from arena.ratings.types import Fit, GameResult

__all__ = ["Field", "is_provisional", "refit_period"]

_Z95 = 1.959963984540054


def is_provisional(games: int, stderr: float) -> bool:
    """Provisional: too few games, or an interval still wide (arena.limits)."""
    return (
        games < limits.LADDER_PROVISIONAL_GAMES
        or _Z95 * stderr > limits.LADDER_PROVISIONAL_HALF_WIDTH
    )


def refit_period(total_games: int) -> int:
    """New games after which the full fit runs again, with ``total_games`` stored."""
    return max(limits.LADDER_REFIT_MIN_GAMES, int(limits.LADDER_REFIT_FRACTION * total_games))


@dataclass
class Field:
    seats: int
    rule: Rule = field(default_factory=Rule)
    online: OnlineRatings = field(default_factory=OnlineRatings)
    games: dict[str, int] = field(default_factory=dict)
    last_table: dict[str, int] = field(default_factory=dict)
    seat_counts: dict[str, list[int]] = field(default_factory=dict)
    tables: int = 0  # tables chosen so far (the next one's number)
    total_games: int = 0
    since_refit: int = 0

    def standing(self, name: str) -> Standing:
        games = self.games.get(name, 0)
        stderr = self.online.stderr(name)
        return Standing(
            name=name,
            rating=self.online.rating(name),
            stderr=stderr,
            games=games,
            last_table=self.last_table.get(name, -1),
            provisional=is_provisional(games, stderr),
            seat_counts=tuple(self.seat_counts.get(name, ())),
        )

    def choose(
        self,
        active: Sequence[str],
        rng: random.Random,
        *,
        busy: Collection[str] = (),
        adaptive: bool = True,
    ) -> tuple[str, ...]:
        """The next table among ``active`` (the matchmaker, or uniformly at random)."""
        if adaptive:
            standings = [self.standing(name) for name in active]
            seating = next_table(standings, self.seats, self.tables, rng, busy=busy, rule=self.rule)
        else:
            seating = random_table(active, self.seats, rng)
        self.seated(seating)
        return seating

    def seated(self, seating: Sequence[str]) -> None:
        """Count a table as chosen (also one planned before a restart)."""
        for name in seating:
            self.last_table[name] = self.tables
        self.tables += 1

    def record(self, game: GameResult, *, completed: bool = True, online: bool = True) -> None:
        """A played game: its players in seat order. ``completed``: it counts for ratings
        (a void game only counts as played); ``online``: fold it into the online ratings
        now (a field rebuilt from stored games is refitted instead)."""
        for seat, name in enumerate(game.players):
            self.games[name] = self.games.get(name, 0) + 1
            counts = self.seat_counts.setdefault(name, [0] * self.seats)
            if seat < len(counts):
                counts[seat] += 1
        if completed:
            self.total_games += 1
            if online:
                self.online.update(game)
                self.since_refit += 1

    def refit_due(self) -> bool:
        return self.since_refit >= refit_period(self.total_games)

    def refit(self, fit: Fit) -> None:
        """Replace the online belief by a full fit of every game so far."""
        self.online = OnlineRatings.from_fit(fit)
        self.since_refit = 0
