"""Pairing invariants on many random fields, for every format, with results fed back.

Every round: each bot plays exactly once or has a stated bye; table sizes are within
[2, K] and the note explains every table smaller than K. Over the event: seat positions
balanced per bot (round robin and gauntlet: within one over the positions every table
has; Swiss, planned round by round: within two).
"""

from __future__ import annotations

import random

import pytest
from schedule_helpers import check_plan, max_seat_spread, names, play_event

from arena.schedule import make_scheduler


def random_field(case: int, max_n: int) -> tuple[int, int, random.Random]:
    rng = random.Random(1000 + case)
    k = rng.randint(2, 8)
    n = rng.choice([rng.randint(2, 20), rng.randint(2, max_n)])
    return n, k, rng


@pytest.mark.parametrize("case", range(50))
def test_swiss_invariants_on_random_fields(case) -> None:
    n, k, rng = random_field(case, 200)
    bots = names(n)
    rounds = rng.randint(1, 6)
    sched = make_scheduler("swiss", bots, k, rounds=rounds, seed=case, prefer_byes=case % 7 == 0)
    plans, _ = play_event(sched, bots, seed=case)
    assert len(plans) == rounds
    for p in plans:
        check_plan(p, bots, k)
    assert max_seat_spread(plans, k) <= 2


@pytest.mark.parametrize("case", range(40))
def test_round_robin_invariants_on_random_fields(case) -> None:
    n, k, rng = random_field(case, 200)
    bots = names(n)
    rounds = rng.choice([None, rng.randint(1, 12)])
    if n > 60 and k > 2:  # keep the suite fast: big even schedules get a fixed length
        rounds = rng.randint(1, 8)
    sched = make_scheduler(
        "round-robin", bots, k, rounds=rounds, seed=case, prefer_byes=case % 5 == 0
    )
    plans, _ = play_event(sched, bots, seed=case)
    if rounds is not None:
        assert len(plans) == rounds
    for p in plans:
        check_plan(p, bots, k)
    assert max_seat_spread(plans, k) <= 1


@pytest.mark.parametrize("case", range(40))
def test_gauntlet_invariants_on_random_fields(case) -> None:
    n, k, rng = random_field(case, 120)
    n = max(n, 2)
    bots = names(n)
    challengers = rng.sample(bots, rng.randint(1, max(1, min(n - 1, 6))))
    rounds = rng.choice([None, rng.randint(1, 10)])
    sched = make_scheduler("gauntlet", bots, k, challengers=challengers, rounds=rounds, seed=case)
    plans, _ = play_event(sched, bots, seed=case)
    for p in plans:
        check_plan(p, bots, k)
        together = [t for t in p.tables if sum(b in challengers for b in t.seats) > 1]
        if together:
            assert "challengers share tables" in p.note
    assert max_seat_spread(plans, k) <= 1
