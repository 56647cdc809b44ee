"""Gauntlet: challengers meet every field bot evenly, apart from each other, seats balanced."""

from __future__ import annotations

from collections import Counter

import pytest
from schedule_helpers import check_plan, max_seat_spread, meetings, names

from arena.schedule import make_scheduler


def all_plans(sched):
    return [sched.plan_round(i, [], []) for i in range(sched.total_rounds())]


def coverage(plans, challengers, field):
    meet = meetings(plans)
    return {(c, f): meet.get(frozenset((c, f)), 0) for c in challengers for f in field}


@pytest.mark.parametrize(
    ("n", "k", "c"),
    [
        (9, 4, 1),
        (10, 4, 1),
        (10, 4, 2),
        (13, 4, 3),
        (20, 6, 2),
        (40, 8, 5),
        (4, 2, 1),
        (11, 2, 3),
        (30, 3, 4),
        (100, 4, 8),
        (50, 18, 2),
        (12, 18, 2),
    ],
)
def test_every_challenger_meets_every_field_bot_exactly_once(n, k, c) -> None:
    bots = names(n)
    challengers, field = bots[:c], bots[c:]
    sched = make_scheduler("gauntlet", bots, k, challengers=challengers, seed=n)
    plans = all_plans(sched)
    assert set(coverage(plans, challengers, field).values()) == {1}
    meet = meetings(plans)
    assert all(meet.get(frozenset((a, b)), 0) == 0 for a in challengers for b in challengers)
    for p in plans:
        check_plan(p, bots, k)
        seated = [b for t in p.tables for b in t.seats if b in challengers]
        assert sorted(seated) == sorted(challengers), "every challenger plays every round"
        for t in p.tables:
            assert sum(b in challengers for b in t.seats) == 1
    # the default length is the fewest rounds that let a challenger meet the whole field
    assert len(plans) == max(-(-(n - c) // (k - 1)), c)


@pytest.mark.parametrize(("n", "k", "c"), [(10, 4, 1), (14, 4, 2), (23, 5, 3), (45, 6, 5)])
def test_seats_are_balanced_and_full_tables_used_when_the_field_divides(n, k, c) -> None:
    bots = names(n)
    plans = all_plans(make_scheduler("gauntlet", bots, k, challengers=bots[:c]))
    assert all(len(t.seats) == k for p in plans for t in p.tables)
    assert max_seat_spread(plans, k, positions=k) <= 1


@pytest.mark.parametrize(("n", "k", "c"), [(10, 4, 3), (23, 5, 2), (30, 7, 4)])
def test_seats_balanced_over_common_positions_with_mixed_table_sizes(n, k, c) -> None:
    bots = names(n)
    plans = all_plans(make_scheduler("gauntlet", bots, k, challengers=bots[:c]))
    assert max_seat_spread(plans, k) <= 1


def test_longer_gauntlet_keeps_meetings_within_one() -> None:
    bots = names(14)
    challengers, field = bots[:2], bots[2:]
    sched = make_scheduler("gauntlet", bots, 4, challengers=challengers, rounds=7)
    plans = all_plans(sched)  # 4 blocks: 7 rounds visit three blocks twice
    counts = coverage(plans, challengers, field).values()
    assert min(counts) >= 1 and max(counts) - min(counts) <= 1
    assert max_seat_spread(plans, 4) <= 1


def test_field_bots_play_equally_often_over_a_full_cycle() -> None:
    bots = names(22)
    plans = all_plans(make_scheduler("gauntlet", bots, 4, challengers=bots[:3]))
    played = Counter(b for p in plans for t in p.tables for b in t.seats)
    assert {played[b] for b in bots[3:]} == {3}
    for p in plans:
        if p.byes:
            assert "without a table" in p.note


def test_more_challengers_than_the_field_allows_share_tables_and_say_so() -> None:
    bots = names(8)
    challengers, field = bots[:5], bots[5:]
    sched = make_scheduler("gauntlet", bots, 4, challengers=challengers)
    plans = all_plans(sched)
    assert set(coverage(plans, challengers, field).values()) == {1}
    for p in plans:
        check_plan(p, bots, 4)
        assert "challengers share tables" in p.note
        for t in p.tables:
            assert sum(b in field for b in t.seats) == 1


def test_far_more_challengers_take_turns() -> None:
    bots = names(30)
    challengers, field = bots[:26], bots[26:]
    plans = all_plans(make_scheduler("gauntlet", bots, 5, challengers=challengers))
    assert set(coverage(plans, challengers, field).values()) == {1}
    for p in plans:
        check_plan(p, bots, 5)
        assert p.byes and "without a table" in p.note


def test_challengers_may_be_given_in_any_order_of_the_field() -> None:
    bots = names(9)
    sched = make_scheduler("gauntlet", bots, 3, challengers=["bot008", "bot004"])
    plans = all_plans(sched)
    field = [b for b in bots if b not in ("bot008", "bot004")]
    assert set(coverage(plans, ["bot008", "bot004"], field).values()) == {1}
