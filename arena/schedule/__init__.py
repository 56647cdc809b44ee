"""Tournament schedulers: round robin, Swiss and gauntlet.

``make_scheduler(format, bots, seats, ...)`` returns a :class:`Scheduler`; ask it for
``total_rounds()`` and, before each round, ``plan_round(index, standings, history)``.
Plans are deterministic functions of the arguments and the seed, so a resumed tournament
re-plans identically. Scoring is the caller's business.
"""

from __future__ import annotations

from arena.schedule.common import check_bots, check_rounds, check_seats, check_seed
from arena.schedule.gauntlet import GauntletScheduler
from arena.schedule.round_robin import RoundRobinScheduler
from arena.schedule.swiss import SwissScheduler, default_swiss_rounds
from arena.schedule.types import FORMATS, RoundPlan, Scheduler, Standing, Table

__all__ = [
    "FORMATS",
    "GauntletScheduler",
    "RoundPlan",
    "RoundRobinScheduler",
    "Scheduler",
    "Standing",
    "SwissScheduler",
    "Table",
    "default_swiss_rounds",
    "make_scheduler",
]


def make_scheduler(
    format: str,
    bots: list[str],
    seats: int,
    *,
    rounds: int | None = None,
    challengers: list[str] | None = None,
    seed: int = 0,
    prefer_byes: bool = False,
) -> Scheduler:
    """A scheduler for ``format`` ("round-robin", "swiss" or "gauntlet").

    ``seats`` is the table size K (2..18); ``rounds`` overrides the format's default
    number of rounds; ``challengers`` (gauntlet only) are the bots that play the rest of
    the field; ``prefer_byes`` (round robin and Swiss) plays full tables only and gives
    the leftover bots byes instead of seating them at smaller tables.
    Raises ValueError for requests that cannot be scheduled.
    """
    if not isinstance(format, str):
        raise ValueError(f"format must be a string, got {format!r}")
    fmt = format.strip().lower().replace("_", "-")
    if fmt == "roundrobin":
        fmt = "round-robin"
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {format!r}: use one of {', '.join(FORMATS)}")
    names = check_bots(bots)
    k = check_seats(seats)
    n_rounds = check_rounds(rounds)
    check_seed(seed)
    if fmt == "gauntlet":
        if prefer_byes:
            raise ValueError("prefer_byes applies to round-robin and swiss, not gauntlet")
        if not challengers:
            raise ValueError("a gauntlet needs at least one challenger")
        if isinstance(challengers, str):
            raise ValueError("challengers must be a list of bot names")
        chosen = list(challengers)
        known = set(names)
        unknown = [c for c in chosen if c not in known]
        if unknown:
            raise ValueError(f"challengers not among the bots: {', '.join(map(str, unknown))}")
        if len(set(chosen)) != len(chosen):
            raise ValueError("a challenger is listed twice")
        if len(chosen) == len(names):
            raise ValueError("a gauntlet needs at least one bot that is not a challenger")
        return GauntletScheduler(names, k, chosen, rounds=n_rounds, seed=seed)
    if challengers:
        raise ValueError(f"challengers only apply to a gauntlet, not to {fmt}")
    if fmt == "swiss":
        return SwissScheduler(names, k, rounds=n_rounds, seed=seed, prefer_byes=prefer_byes)
    return RoundRobinScheduler(names, k, rounds=n_rounds, seed=seed, prefer_byes=prefer_byes)
