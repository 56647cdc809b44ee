"""Seat balancing primitives: the assignment solver and the event-wide repair."""

from __future__ import annotations

import random
from itertools import permutations

import pytest

from arena.schedule.seating import balance_event, hungarian, seat_counts_of, seat_table


@pytest.mark.parametrize("case", range(40))
def test_hungarian_finds_a_minimum_cost_assignment(case) -> None:
    rng = random.Random(case)
    n = rng.randint(1, 6)
    cost = [[rng.randint(0, 20) for _ in range(n)] for _ in range(n)]
    assign = hungarian(cost)
    assert sorted(assign) == list(range(n))
    best = min(sum(cost[i][p[i]] for i in range(n)) for p in permutations(range(n)))
    assert sum(cost[i][assign[i]] for i in range(n)) == best


def test_seat_table_gives_each_position_to_the_bot_that_used_it_least() -> None:
    counts = [[3, 0, 0], [0, 3, 0], [0, 0, 3]]
    assert seat_table([0, 1, 2], counts) in ([1, 2, 0], [2, 0, 1])
    counts = [[0, 1], [1, 0]]
    assert seat_table([0, 1], counts) == [0, 1]
    assert seat_table([1, 0], counts) == [0, 1]


@pytest.mark.parametrize("case", range(25))
def test_balance_event_reaches_within_one_for_equal_table_sizes(case) -> None:
    """For tables of one size, every bot ends within one at every position (de Werra)."""
    rng = random.Random(case)
    k = rng.randint(2, 7)
    tables_per_round = rng.randint(1, 6)
    n = k * tables_per_round + rng.randint(0, 3)
    rounds = []
    for _ in range(rng.randint(1, 15)):
        bots = rng.sample(range(n), k * tables_per_round)
        rounds.append([bots[i : i + k] for i in range(0, len(bots), k)])
    # start from the worst order (sorted) to make the repair work
    seated = balance_event([[sorted(t) for t in r] for r in rounds], n, k, greedy=False)
    for before, after in zip(rounds, seated, strict=True):
        assert [sorted(t) for t in before] == [sorted(t) for t in after]
    counts = seat_counts_of([t for r in seated for t in r], n, k)
    assert all(max(c) - min(c) <= 1 for c in counts)
