"""Shared helpers for the scheduler tests: play an event with random results, check plans."""

from __future__ import annotations

import random
from itertools import combinations

from arena.schedule import RoundPlan, Scheduler, Standing


def names(n: int) -> list[str]:
    return [f"bot{i:03d}" for i in range(n)]


def play_event(
    sched: Scheduler,
    bots: list[str],
    seed: int = 0,
    rounds: int | None = None,
    strength: bool = True,
) -> tuple[list[RoundPlan], dict[str, float]]:
    """Plan and 'play' every round: each table's finishing order is random (weighted by a
    hidden strength when ``strength``), placement points s-1 .. 0 are fed back."""
    rng = random.Random(seed)
    power = {b: rng.random() if strength else 0.0 for b in bots}
    points = dict.fromkeys(bots, 0.0)
    games = dict.fromkeys(bots, 0)
    history: list[RoundPlan] = []
    total = sched.total_rounds() if rounds is None else min(rounds, sched.total_rounds())
    for r in range(total):
        standings = [Standing(b, points[b], games[b], 1500.0 + 100 * power[b]) for b in bots]
        rng.shuffle(standings)
        plan = sched.plan_round(r, standings, list(history))
        for table in plan.tables:
            order = sorted(table.seats, key=lambda b: -(power[b] + rng.random()))
            for place, bot in enumerate(order):
                points[bot] += len(order) - 1 - place
                games[bot] += 1
        history.append(plan)
    return history, points


def check_plan(plan: RoundPlan, bots: list[str], seats: int) -> None:
    """Invariants of one round: everyone placed exactly once, sizes legal, notes explain."""
    seated = plan.seated()
    assert len(seated) == len(set(seated)), f"a bot plays twice in a round: {plan}"
    assert not set(seated) & set(plan.byes), f"a bot both plays and has a bye: {plan}"
    assert len(plan.byes) == len(set(plan.byes))
    assert sorted(seated + plan.byes) == sorted(bots), "every bot plays or has a stated bye"
    for table in plan.tables:
        assert 2 <= len(table.seats) <= seats, f"table size {len(table.seats)} with K={seats}"
        if len(table.seats) < seats:
            assert str(len(table.seats)) in plan.note and "because" in plan.note, plan.note
    if plan.byes:
        assert plan.note, "byes must be explained"


def meetings(plans: list[RoundPlan]) -> dict[frozenset[str], int]:
    out: dict[frozenset[str], int] = {}
    for plan in plans:
        for table in plan.tables:
            for a, b in combinations(table.seats, 2):
                key = frozenset((a, b))
                out[key] = out.get(key, 0) + 1
    return out


def seat_table_counts(plans: list[RoundPlan], seats: int) -> dict[str, list[int]]:
    counts: dict[str, list[int]] = {}
    for plan in plans:
        for table in plan.tables:
            for pos, bot in enumerate(table.seats):
                counts.setdefault(bot, [0] * seats)[pos] += 1
    return counts


def max_seat_spread(plans: list[RoundPlan], seats: int, positions: int | None = None) -> int:
    """Largest per-bot (max - min) seat-position count over positions < ``positions``
    (default: the positions every table of the event has)."""
    if positions is None:
        positions = min(len(t.seats) for p in plans for t in p.tables)
    counts = seat_table_counts(plans, seats)
    return max(max(c[:positions]) - min(c[:positions]) for c in counts.values())


def all_groupings(players: list[str], sizes: list[int]):
    """Every split of ``players`` into unlabelled tables of the given sizes (brute force)."""
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for size in sorted(set(sizes)):
        left = list(sizes)
        left.remove(size)
        for combo in combinations(rest, size - 1):
            remaining = [p for p in rest if p not in combo]
            for tail in all_groupings(remaining, left):
                yield [(head, *combo), *tail]
