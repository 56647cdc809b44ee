"""Round robin: double round robin for K = 2, every K-subset, or even pair meetings."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from math import comb

import pytest
from schedule_helpers import check_plan, max_seat_spread, meetings, names

from arena.schedule import make_scheduler
from arena.schedule.round_robin import SUBSET_LIMIT, subset_round_bound


def all_plans(sched):
    return [sched.plan_round(i, [], []) for i in range(sched.total_rounds())]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 10, 11, 16, 21])
def test_k2_double_round_robin_has_every_ordered_pair_exactly_once(n) -> None:
    bots = names(n)
    sched = make_scheduler("round-robin", bots, 2, seed=n)
    plans = all_plans(sched)
    # as few rounds as possible with each bot at most once per round
    assert len(plans) == (2 * (n - 1) if n % 2 == 0 else 2 * n)
    ordered = Counter(t.seats for p in plans for t in p.tables)
    assert set(ordered) == {(a, b) for a in bots for b in bots if a != b}
    assert set(ordered.values()) == {1}
    for p in plans:
        check_plan(p, bots, 2)
        assert len(p.byes) == n % 2
    # each bot starts exactly as often as it sits second
    assert max_seat_spread(plans, 2) == 0


def test_k2_first_leg_is_a_single_round_robin_with_balanced_seats() -> None:
    bots = names(10)
    plans = all_plans(make_scheduler("round-robin", bots, 2))
    first = plans[:9]
    assert set(meetings(first).values()) == {1}
    assert len(meetings(first)) == comb(10, 2)
    assert max_seat_spread(first, 2) <= 1


@pytest.mark.parametrize(
    ("n", "k"), [(5, 3), (6, 3), (7, 3), (9, 3), (6, 4), (8, 4), (9, 4), (11, 4)]
)
def test_full_subset_mode_covers_every_subset_exactly_once(n, k) -> None:
    bots = names(n)
    sched = make_scheduler("round-robin", bots, k, seed=3)
    assert sched.mode == "subsets"
    plans = all_plans(sched)
    subsets = Counter(frozenset(t.seats) for p in plans for t in p.tables)
    assert len(subsets) == comb(n, k)
    assert set(subsets.values()) == {1}
    assert all(len(t.seats) == k for p in plans for t in p.tables)
    for p in plans:
        check_plan(p, bots, k)
    # the packing needs few rounds beyond the lower bound
    bound = subset_round_bound(n, k)
    assert bound <= len(plans) <= bound + max(2, bound // 20)
    # every table has K seats: each bot uses every seat position within one of the others
    assert max_seat_spread(plans, k, positions=k) <= 1


def test_full_subset_mode_is_used_up_to_the_table_limit() -> None:
    assert make_scheduler("round-robin", names(16), 4).mode == "subsets"  # 1,820 tables
    assert comb(17, 4) > SUBSET_LIMIT
    assert make_scheduler("round-robin", names(17), 4).mode == "even"


def test_full_subset_mode_with_a_large_schedule_stays_near_the_bound() -> None:
    sched = make_scheduler("round-robin", names(16), 4, seed=1)
    plans = all_plans(sched)
    assert len({frozenset(t.seats) for p in plans for t in p.tables}) == comb(16, 4)
    assert len(plans) <= subset_round_bound(16, 4) * 1.03
    assert max_seat_spread(plans, 4, positions=4) <= 1


@pytest.mark.parametrize(
    ("n", "k", "spread", "factor"),
    [
        (24, 3, 1, 1.5),
        (40, 3, 1, 1.5),
        (40, 4, 1, 1.6),
        (52, 4, 1, 1.6),
        (28, 4, 2, 1.8),
        (30, 5, 2, 2.0),
        (55, 5, 2, 2.0),
        (36, 6, 3, 2.5),
    ],
)
def test_even_mode_covers_every_pair_with_a_small_spread(n, k, spread, factor) -> None:
    """Bounds measured for the greedy design: spread 1 for K = 3, mostly 1 for K = 4."""
    bots = names(n)
    sched = make_scheduler("round-robin", bots, k, seed=1)
    assert sched.mode == "even"
    plans = all_plans(sched)
    meet = meetings(plans)
    counts = [meet.get(frozenset(p), 0) for p in combinations(bots, 2)]
    assert min(counts) >= 1, "the default length lets every pair meet"
    assert max(counts) - min(counts) <= spread
    # the default stays within a factor of the lower bound ceil((N-1)/(K-1))
    assert len(plans) <= factor * -(-(n - 1) // (k - 1))
    for p in plans:
        check_plan(p, bots, k)
    # seat positions that every table has are balanced within one for every bot
    assert max_seat_spread(plans, k) <= 1


@pytest.mark.parametrize(("n", "k", "rounds"), [(28, 4, 3), (30, 3, 6), (50, 5, 5), (100, 4, 12)])
def test_even_mode_with_fewer_rounds_never_repeats_a_pair(n, k, rounds) -> None:
    """While the field is large enough, a short even schedule is a set of fresh meetings."""
    sched = make_scheduler("round-robin", names(n), k, rounds=rounds, seed=2)
    plans = all_plans(sched)
    assert len(plans) == rounds
    assert max(meetings(plans).values()) == 1


def test_even_mode_with_full_tables_balances_every_seat_position() -> None:
    plans = all_plans(make_scheduler("round-robin", names(32), 4, seed=5))
    assert all(len(t.seats) == 4 for p in plans for t in p.tables)
    assert max_seat_spread(plans, 4, positions=4) <= 1


def test_even_mode_prefer_byes_plays_full_tables_and_rotates_byes() -> None:
    bots = names(30)
    plans = all_plans(make_scheduler("round-robin", bots, 4, prefer_byes=True, seed=1))
    byes = Counter(b for p in plans for b in p.byes)
    for p in plans:
        check_plan(p, bots, 4)
        assert all(len(t.seats) == 4 for t in p.tables)
        assert len(p.byes) == 2 and "sit out" in p.note
    assert max(byes.values()) - min(byes.get(b, 0) for b in bots) <= 1


def test_even_mode_smaller_tables_rotate_among_bots() -> None:
    bots = names(30)  # 30 = 4*6 + 3*2: two tables of 3 each round
    plans = all_plans(make_scheduler("round-robin", bots, 4, seed=4))
    small = Counter(b for p in plans for t in p.tables if len(t.seats) == 3 for b in t.seats)
    assert all("2 tables of 3 because 30 is not divisible by 4" in p.note for p in plans)
    assert max(small.values()) - min(small.get(b, 0) for b in bots) <= 2


def test_subset_mode_with_n_not_divisible_by_k_states_the_byes() -> None:
    bots = names(7)
    plans = all_plans(make_scheduler("round-robin", bots, 3))
    assert any(p.byes for p in plans)
    for p in plans:
        check_plan(p, bots, 3)
        if p.byes:
            assert "out because" in p.note


@pytest.mark.parametrize(("n", "k"), [(3, 4), (4, 4), (2, 18)])
def test_field_no_larger_than_a_table_plays_one_table(n, k) -> None:
    bots = names(n)
    sched = make_scheduler("round-robin", bots, k, rounds=n)
    plans = all_plans(sched)
    for p in plans:
        check_plan(p, bots, k)
        assert len(p.tables) == 1 and not p.byes
    # over n rounds each bot starts once and sits at every position once
    assert max_seat_spread(plans, k, positions=n) == 0


def test_rounds_override_cuts_or_repeats_the_schedule() -> None:
    bots = names(6)
    full = all_plans(make_scheduler("round-robin", bots, 2))
    short = all_plans(make_scheduler("round-robin", bots, 2, rounds=4))
    assert [frozenset(frozenset(t.seats) for t in p.tables) for p in short] == [
        frozenset(frozenset(t.seats) for t in p.tables) for p in full[:4]
    ]
    assert max_seat_spread(short, 2) <= 1
    long = all_plans(make_scheduler("round-robin", bots, 2, rounds=25))
    assert len(long) == 25
    assert "pass 3" in long[-1].note
    assert max_seat_spread(long, 2) <= 1
