"""Adaptive matchmaking for a ladder: the next table from the current ratings (pure).

The rule (docs/ladder.md states it for users):

1. **Who may sit.** Every active bot not at a table right now; if fewer than ``seats``
   are free, every active bot (a bot plays several tables at once).
2. **No bot waits forever.** A bot's wait is the number of tables chosen since it last
   sat. Bots whose wait reached ``max_wait`` (``Rule.max_wait_rotations`` rotations of
   the field, ``⌈rotations · n / seats⌉`` tables) take the first seats, the longest
   waiting first.
3. **Successive halving, continuously.** Table number ``t`` looks at a *level*: level 0
   (the whole field) for every other table, level 1 (the top half by rating) for every
   fourth, level 2 (the top quarter) for every eighth, and so on (the number of trailing
   zero bits of ``t + 1``), down to the smallest level that still leaves
   ``Rule.top_size(seats)`` bots. Half of all tables therefore keep the whole field
   playing (the floor), and the bots near the top play the most.
4. **Where a table teaches the most.** Within the level, the first free seat goes to a
   bot drawn with weight ``σ²`` (its rating variance: a wide interval weighs more), times
   ``Rule.provisional_boost`` while it is provisional. Each further seat goes to a bot
   drawn with weight ``(floor + c) · σ / σ̄``, where ``c`` is the mean over the bots
   already seated of ``4 · p · (1 − p)``, ``p`` the likelihood of superiority between the
   two (1 when their order is a coin flip, 0 when it is certain), and ``σ̄`` the mean
   ``σ`` of the level.
5. **Seat balance.** The chosen bots take the seating that puts each where it has sat
   least often so far (ties broken at random).

Every draw comes from the caller's ``random.Random``, so a seeded ladder chooses the same
tables from the same state.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr

__all__ = ["Rule", "Standing", "level_of", "next_table", "random_table"]


@dataclass(slots=True)
class Standing:
    """An active bot as the matchmaker sees it."""

    name: str
    rating: float  # Elo
    stderr: float  # standard error of the rating, Elo
    games: int = 0
    last_table: int = -1  # number of the last table it sat at; -1: never
    provisional: bool = False
    seat_counts: tuple[int, ...] = ()  # games it played at each seat (0 = first to act)


@dataclass(frozen=True)
class Rule:
    """The matchmaker's constants (see the module docstring)."""

    max_wait_rotations: float = 3.0
    provisional_boost: float = 3.0
    pair_floor: float = 0.05
    halving: bool = True  # False: every table looks at the whole field
    top_extra: int = 1  # the smallest level has seats + top_extra bots
    anchor_power: float = 2.0  # the first seat's weight is stderr ** anchor_power (a variance)

    def top_size(self, seats: int) -> int:
        return seats + self.top_extra

    def max_wait(self, field: int, seats: int) -> int:
        return max(1, math.ceil(self.max_wait_rotations * field / seats))


def level_of(table: int, field: int, seats: int, rule: Rule = Rule()) -> int:
    """The level table number ``table`` looks at: 0 is the whole field, level ``L`` its
    top ``⌈field / 2^L⌉`` (never fewer than ``rule.top_size(seats)``)."""
    if not rule.halving:
        return 0
    level = ((table + 1) & -(table + 1)).bit_length() - 1  # trailing zero bits
    deepest = 0
    while math.ceil(field / 2 ** (deepest + 1)) >= rule.top_size(seats):
        deepest += 1
    return min(level, deepest)


def _closeness(a: Standing, rating: NDArray[np.float64], sd: NDArray[np.float64]) -> Any:
    """``4 · p · (1 − p)`` for ``p`` the LOS of ``a`` over each bot of the arrays."""
    var = a.stderr**2 + sd**2
    z = (a.rating - rating) / np.sqrt(np.where(var > 0.0, var, 1.0))
    p = np.where(var > 0.0, ndtr(z), np.where(a.rating > rating, 1.0, 0.0))
    return 4.0 * p * (1.0 - p)


def _draw_index(
    rng: random.Random, weights: NDArray[np.float64], available: NDArray[np.bool_]
) -> int:
    """An available index drawn with probability proportional to ``weights`` (uniformly
    if their sum is nothing)."""
    weights = np.where(available, weights, 0.0)
    cumulative = np.cumsum(weights)
    total = float(cumulative[-1])
    if not total > 0.0:
        return int(rng.choice(np.flatnonzero(available).tolist()))
    return min(
        int(np.searchsorted(cumulative, rng.random() * total, side="right")), len(weights) - 1
    )


def _seating(chosen: list[Standing], rng: random.Random) -> tuple[str, ...]:
    """The order of ``chosen`` that puts each bot where it sat least (rule 5)."""
    k = len(chosen)

    def used(s: Standing, seat: int) -> int:
        return s.seat_counts[seat] if seat < len(s.seat_counts) else 0

    rng.shuffle(chosen)
    if k <= 6:
        best = min(
            itertools.permutations(range(k)),
            key=lambda perm: sum(used(chosen[i], seat) for seat, i in enumerate(perm)),
        )
        return tuple(chosen[i].name for i in best)
    seats: list[Standing | None] = [None] * k
    for s in sorted(chosen, key=lambda s: -max(s.seat_counts or (0,))):
        free = [q for q in range(k) if seats[q] is None]
        seats[min(free, key=lambda q: used(s, q))] = s
    return tuple(s.name for s in seats if s is not None)


def next_table(
    field: Sequence[Standing],
    seats: int,
    table: int,
    rng: random.Random,
    *,
    busy: Collection[str] = (),
    rule: Rule = Rule(),
) -> tuple[str, ...]:
    """The seating of table number ``table`` (0, 1, ...) among ``field``: bot names in
    seat order. ``busy`` bots sit only if too few others are free."""
    if len(field) < seats or seats < 1:
        raise ValueError(f"a table of {seats} needs at least {seats} active bots")
    free = [s for s in field if s.name not in busy]
    if len(free) < seats:
        free = list(field)
    n = len(field)
    limit = rule.max_wait(n, seats)

    def wait(s: Standing) -> int:
        return table - s.last_table - 1 if s.last_table >= 0 else table + 1

    overdue = sorted((s for s in free if wait(s) >= limit), key=lambda s: (-wait(s), s.name))
    chosen = overdue[:seats]

    level = level_of(table, len(free), seats, rule)
    pool = sorted(free, key=lambda s: (-s.rating, s.name))
    if chosen:
        level = 0  # an overdue bot's table is drawn from the whole field
    pool = pool[: max(seats, math.ceil(len(pool) / 2**level))]
    taken = {s.name for s in chosen}
    left = [s for s in pool if s.name not in taken]
    if len(left) < seats - len(chosen):  # overdue bots outside the pool leave it short
        left += [s for s in free if s.name not in taken and s not in left]

    if not chosen:
        first = np.array(
            [
                s.stderr**rule.anchor_power * (rule.provisional_boost if s.provisional else 1.0)
                for s in left
            ]
        )
        chosen.append(left.pop(_draw_index(rng, first, np.ones(len(left), dtype=bool))))
    rating = np.array([s.rating for s in left])
    sd = np.array([s.stderr for s in left])
    closeness = np.zeros(len(left))
    spread = sd / (float(sd.mean()) or 1.0) if len(left) else sd
    available = np.ones(len(left), dtype=bool)
    for c in chosen:
        closeness += _closeness(c, rating, sd)
    while len(chosen) < seats:
        weights = (rule.pair_floor + closeness / len(chosen)) * spread
        pick = _draw_index(rng, weights, available)
        available[pick] = False
        chosen.append(left[pick])
        closeness += _closeness(left[pick], rating, sd)
    return _seating(chosen, rng)


def random_table(field: Sequence[str], seats: int, rng: random.Random) -> tuple[str, ...]:
    """The baseline: ``seats`` distinct bots of ``field`` drawn uniformly, in a random
    order."""
    return tuple(rng.sample(list(field), seats))
