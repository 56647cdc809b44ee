"""How often an event of a given length names the strongest bot its winner.

A short event can crown the wrong bot by luck. After an event, :func:`winner_odds` takes
the ratings fitted on its games as if they were the bots' true strengths and plays the
same event again many times in simulation: the same format, bots, table size, rounds and
games per table, each round planned by the event's own scheduler (``arena.schedule``)
from the simulated standings so far, each game's finishing order drawn from the
Plackett–Luce model the ratings are fitted with (``arena.ratings.synthetic``), and the
standings computed by the event's own rules (``arena.standings``: placement points, bye
credits, tie-breaks, the last one the rating fit of the simulated games). The share of
runs whose first place is the strongest bot (the best fitted rating) is the estimate; its
standard error is at most ``0.5 / sqrt(runs)``. In a gauntlet the strongest and the
winner are those of the challengers (the field is there to measure them).

Two simplifications, both small: the simulation pairs Swiss rounds by points alone (equal
points in a seeded random order, where the event also looks at the running fit), and a
bot with no rating (absent, it never played) loses every game.

When the estimate is under :data:`arena.limits.SURE_WINNER` the event counts as short,
and the same simulation is run with 2, 4 and 8 times the games per table, to say which
``--games`` would name the strongest bot at least that often (or how often the longest
tried does).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from arena import limits

LONGER = (2, 4, 8)  # multiples of the games per table tried for a short event


@dataclass(frozen=True)
class Length:
    """One simulated length: games per table and the share of runs won by the best bot."""

    games: int
    rate: float
    runs: int

    def as_dict(self) -> dict[str, float | int]:
        return {"games": self.games, "rate": round(self.rate, 4), "runs": self.runs}


@dataclass(frozen=True)
class WinnerOdds:
    """The estimate for an event as it was played (``this``) and, when that is short, a
    longer one (``longer``: the first of ``LONGER`` that reaches SURE_WINNER, else the
    longest that could be simulated)."""

    best: str  # the bot with the best fitted rating: the "right" winner
    this: Length
    longer: Length | None = None

    @property
    def short(self) -> bool:
        return self.this.rate < limits.SURE_WINNER

    def as_dict(self) -> dict[str, object]:
        return {
            "best": self.best,
            **self.this.as_dict(),
            "short": self.short,
            "longer": None if self.longer is None else self.longer.as_dict(),
        }


def runs_for(event_games: int) -> int:
    """Simulated runs for an event of ``event_games`` games: WINNER_ODDS_RUNS, fewer when
    that would simulate more than WINNER_ODDS_GAMES games in all; 0 (too long to bother:
    such an event is not short) under WINNER_ODDS_MIN_RUNS."""
    runs = min(limits.WINNER_ODDS_RUNS, limits.WINNER_ODDS_GAMES // max(1, event_games))
    return runs if runs >= limits.WINNER_ODDS_MIN_RUNS else 0


def simulate(
    format: str,
    bots: Sequence[str],
    seats: int,
    rounds: int,
    games: int,
    ratings: Mapping[str, float],
    *,
    challengers: Sequence[str] = (),
    runs: int,
    seed: int = 0,
) -> tuple[str, float]:
    """(the best-rated bot, the share of ``runs`` simulated events it wins); see the module
    docstring. ``ratings`` are Elo-scale strengths of the rated bots."""
    from arena.ratings import GameResult, fit_ratings
    from arena.ratings.synthetic import sample_orders
    from arena.schedule import RoundPlan, Standing, make_scheduler
    from arena.standings import GameRow, bye_credits, compute_standings

    if runs < 1 or not ratings:
        raise ValueError("need at least one run and one rated bot")
    names = list(bots)
    best = strongest(format, names, ratings, challengers)
    contenders = set(challengers) if format == "gauntlet" else set(names)
    top = max(ratings.values())
    # Plackett–Luce strengths 10^(rating/400); a bot with no rating all but never wins
    elo = np.array([ratings.get(b, top - 4000.0) for b in names], dtype=float)
    strength = np.exp((elo - top) * (math.log(10.0) / 400.0))
    index = {b: i for i, b in enumerate(names)}
    rng = np.random.default_rng(seed)
    wins = 0
    for _ in range(runs):
        sched = make_scheduler(
            format,
            names,
            seats,
            rounds=rounds,
            challengers=list(challengers) or None,
            seed=int(rng.integers(0, 2**62)),
        )
        history: list[RoundPlan] = []
        rows: list[GameRow] = []
        points = dict.fromkeys(names, 0.0)
        played = dict.fromkeys(names, 0)
        for r in range(rounds):
            plan = sched.plan_round(r, [Standing(b, points[b], played[b]) for b in names], history)
            history.append(plan)
            new: list[GameRow] = []
            for table in plan.tables:
                k = len(table.seats)
                seated = strength[[index[b] for b in table.seats]]
                orders = sample_orders(seated, np.tile(np.arange(k), (games, 1)), rng)
                seating = list(table.seats)
                for ranks in (np.argsort(orders, axis=1) + 1).tolist():  # seat -> place
                    new.append(GameRow(seating, ranks))
            rows += new
            if format != "swiss":
                continue  # the other formats plan their rounds without the standings
            # the standings so far, as the event's Swiss pairing sees them (points add up)
            credits = bye_credits([plan.byes], games, format=format, challengers=challengers)
            for row in compute_standings(names, new, table_size=seats, byes=credits):
                points[row.bot] += row.points
                played[row.bot] += row.games
        credits = bye_credits(
            [p.byes for p in history], games, format=format, challengers=challengers
        )
        final = [
            r
            for r in compute_standings(names, rows, table_size=seats, byes=credits)
            if r.bot in contenders
        ]
        if len(final) > 1 and (final[0].points, final[0].opponents) == (
            final[1].points,
            final[1].opponents,
        ):  # the last tie-break decides the winner: the rating fit of the run's games
            fitted = fit_ratings(
                GameResult(tuple(g.seating), tuple(g.ranks)) for g in rows if len(g.ranks) > 1
            ).ratings
            final = [
                r
                for r in compute_standings(names, rows, table_size=seats, byes=credits, elo=fitted)
                if r.bot in contenders
            ]
        wins += final[0].bot == best
    return best, wins / runs


def winner_odds(
    format: str,
    bots: Sequence[str],
    seats: int,
    rounds: int,
    games: int,
    ratings: Mapping[str, float],
    *,
    challengers: Sequence[str] = (),
    seed: int = 0,
) -> WinnerOdds | None:
    """The estimate for an event (see the module docstring); None when fewer than two
    bots are rated or the event is too long to simulate (it is not short then)."""
    pool = challengers if format == "gauntlet" else bots
    if len([b for b in bots if b in ratings]) < 2 or rounds < 1 or games < 1:
        return None
    if not any(b in ratings for b in pool):
        return None
    per_run = _event_games(len(bots), seats, rounds, games)

    def at(n: int) -> Length | None:
        runs = runs_for(per_run * n)
        if not runs:
            return None
        _, rate = simulate(
            format, bots, seats, rounds, games * n, ratings,
            challengers=challengers, runs=runs, seed=seed,
        )  # fmt: skip
        return Length(games * n, rate, runs)

    this = at(1)
    if this is None:
        return None
    odds = WinnerOdds(strongest(format, bots, ratings, challengers), this)
    if not odds.short:
        return odds
    longer = None
    for n in LONGER:
        if games * n > limits.MAX_MATCH_GAMES:
            break
        found = at(n)
        if found is None:
            break
        longer = found
        if found.rate >= limits.SURE_WINNER:
            break
    return WinnerOdds(odds.best, this, longer)


def strongest(
    format: str, bots: Sequence[str], ratings: Mapping[str, float], challengers: Sequence[str]
) -> str:
    """The bot the event should name its winner: the best rated (in a gauntlet, of the
    challengers: the field is there to measure them)."""
    pool = [b for b in (challengers if format == "gauntlet" else bots) if b in ratings]
    return min(pool, key=lambda b: (-ratings[b], b))  # as the leaderboard orders them


def _event_games(bots: int, seats: int, rounds: int, games: int) -> int:
    """An upper bound of the games of an event: every bot seated every round."""
    return max(1, math.ceil(bots / seats)) * rounds * games
