"""Swiss: grouping by standing, repeat avoidance, byes, seats, quality."""

from __future__ import annotations

import random
import statistics
from collections import Counter

import pytest
from schedule_helpers import (
    all_groupings,
    check_plan,
    max_seat_spread,
    meetings,
    names,
    play_event,
)

from arena.schedule import RoundPlan, Standing, Table, make_scheduler
from arena.schedule.common import split_sizes
from arena.schedule.swiss import default_swiss_rounds


@pytest.mark.parametrize(
    ("n", "k"),
    [
        (8, 2),
        (16, 2),
        (40, 2),
        (101, 2),
        (26, 3),
        (45, 3),
        (40, 4),
        (63, 4),
        (64, 5),
        (90, 6),
        (120, 7),
        (150, 8),
        (200, 8),
    ],
)
def test_no_repeat_meeting_while_the_field_is_large_enough(n, k) -> None:
    """With N >= 2.2 K (K - 1) (any N for K = 2) the default number of rounds never needs a
    repeat, and the pairing finds such schedules."""
    bots = names(n)
    sched = make_scheduler("swiss", bots, k, seed=n)
    plans, _ = play_event(sched, bots, seed=n)
    assert len(plans) == default_swiss_rounds(n, k)
    assert max(meetings(plans).values()) == 1
    assert all("meet again" not in p.note for p in plans)


@pytest.mark.parametrize("n", [20, 50])
def test_k2_runs_repeat_free_for_half_the_field(n) -> None:
    bots = names(n)
    sched = make_scheduler("swiss", bots, 2, rounds=n // 2, seed=3)
    plans, _ = play_event(sched, bots, seed=3)
    assert max(meetings(plans).values()) == 1


def _random_history(bots, k, rounds, rng) -> list[RoundPlan]:
    history = []
    for _ in range(rounds):
        order = list(bots)
        rng.shuffle(order)
        sizes, _ = split_sizes(len(bots), k)
        tables, at = [], 0
        for s in sizes:
            tables.append(Table(tuple(order[at : at + s])))
            at += s
        history.append(RoundPlan(tables=tables))
    return history


@pytest.mark.parametrize("case", range(80))
def test_small_fields_match_an_exhaustive_search_for_repeats(case) -> None:
    """Whenever some grouping avoids every pair of the previous round, the plan does; and
    whenever one avoids every earlier pair, the plan has no repeat at all."""
    rng = random.Random(case)
    k = rng.choice([2, 3, 3, 4, 4, 5])
    n = rng.randint(k + 1, {2: 12, 3: 12, 4: 12, 5: 11}[k])
    bots = names(n)
    history = _random_history(bots, k, rng.randint(1, 3), rng)
    standings = [Standing(b, rng.randint(0, 6), 3, 1500 + rng.random()) for b in bots]
    sched = make_scheduler("swiss", bots, k, rounds=len(history) + 1, seed=case)
    plan = sched.plan_round(len(history), standings, history)
    check_plan(plan, bots, k)

    last = {frozenset(p) for t in history[-1].tables for p in _pairs(t.seats)}
    ever = {frozenset(p) for h in history for t in h.tables for p in _pairs(t.seats)}
    sizes = sorted((len(t.seats) for t in plan.tables), reverse=True)
    assert sizes == split_sizes(n, k)[0]
    planned = {frozenset(p) for t in plan.tables for p in _pairs(t.seats)}
    can_avoid_last = can_avoid_all = False
    for grouping in all_groupings(sorted(plan.seated()), sizes):
        pairs = {frozenset(p) for t in grouping for p in _pairs(t)}
        if not pairs & last:
            can_avoid_last = True
            if not pairs & ever:
                can_avoid_all = True
                break
    if can_avoid_last:
        assert not planned & last, "a repeat from the previous round was avoidable"
    if can_avoid_all:
        assert not planned & ever, "a repeat was avoidable"
    if planned & last:
        assert "previous round meet again (unavoidable)" in plan.note


def _pairs(seats):
    return [(a, b) for i, a in enumerate(seats) for b in seats[i + 1 :]]


def test_previous_round_repeat_costs_more_than_an_older_one() -> None:
    """4 bots at 2 seats: round 3 must repeat a pair; it repeats round 1's, not round 2's."""
    bots = ["a", "b", "c", "d"]
    history = [
        RoundPlan(tables=[Table(("a", "b")), Table(("c", "d"))]),
        RoundPlan(tables=[Table(("a", "c")), Table(("b", "d"))]),
        RoundPlan(tables=[Table(("a", "d")), Table(("b", "c"))]),
    ]
    sched = make_scheduler("swiss", bots, 2, rounds=4)
    plan = sched.plan_round(3, [Standing(b, 0, 3) for b in bots], history)
    pairs = {frozenset(t.seats) for t in plan.tables}
    assert pairs == {frozenset("ab"), frozenset("cd")}  # the oldest meetings
    assert "earlier rounds meet again" in plan.note


def test_round_one_groups_by_rating_then_seeded_random() -> None:
    bots = names(12)
    ratings = {b: 1000 + 10 * i for i, b in enumerate(bots)}
    standings = [Standing(b, 0, 0, ratings[b]) for b in bots]
    plan = make_scheduler("swiss", bots, 4).plan_round(0, standings, [])
    groups = [sorted(ratings[b] for b in t.seats) for t in plan.tables]
    assert sorted(groups) == [
        [1000, 1010, 1020, 1030],
        [1040, 1050, 1060, 1070],
        [1080, 1090, 1100, 1110],
    ]
    # equal ratings: the seed decides, deterministically
    flat = [Standing(b, 0, 0) for b in bots]
    a = make_scheduler("swiss", bots, 4, seed=1).plan_round(0, flat, [])
    b = make_scheduler("swiss", bots, 4, seed=1).plan_round(0, flat, [])
    c = make_scheduler("swiss", bots, 4, seed=2).plan_round(0, flat, [])
    assert a == b
    assert {frozenset(t.seats) for t in a.tables} != {frozenset(t.seats) for t in c.tables}


def test_points_come_before_rating() -> None:
    bots = names(8)
    standings = [Standing(b, points=i % 2, games=1, rating=1500 + i) for i, b in enumerate(bots)]
    plan = make_scheduler("swiss", bots, 4).plan_round(0, standings, [])
    by_points = [{s.points for s in standings if s.bot in t.seats} for t in plan.tables]
    assert sorted(map(sorted, by_points)) == [[0], [1]]


@pytest.mark.parametrize(("n", "k"), [(200, 4), (300, 3), (240, 6), (1000, 4)])
def test_tables_group_bots_with_close_points(n, k) -> None:
    bots = names(n)
    sched = make_scheduler("swiss", bots, k, seed=11)
    rng = random.Random(11)
    plans, points = play_event(sched, bots, seed=11, rounds=3)
    standings = [Standing(b, points[b], 3 * (k - 1)) for b in bots]
    plan = sched.plan_round(3, standings, plans)

    def mean_spread(groups):
        return statistics.mean(
            max(points[b] for b in g) - min(points[b] for b in g) for g in groups
        )

    swiss = mean_spread([t.seats for t in plan.tables])
    shuffled = list(bots)
    rng.shuffle(shuffled)
    random_groups = [shuffled[i : i + k] for i in range(0, n - k + 1, k)]
    assert swiss < 0.25 * mean_spread(random_groups)


def test_odd_field_at_two_seats_gives_one_bye_to_the_lowest_with_fewest_byes() -> None:
    bots = names(7)
    sched = make_scheduler("swiss", bots, 2, rounds=6)
    history: list[RoundPlan] = []
    points = dict.fromkeys(bots, 0.0)
    for r in range(6):
        standings = [Standing(b, points[b], r, 1500 - i) for i, b in enumerate(bots)]
        plan = sched.plan_round(r, standings, history)
        check_plan(plan, bots, 2)
        assert len(plan.byes) == 1 and "bye for" in plan.note
        previous = Counter(b for h in history for b in h.byes)
        fewest = min(previous.get(b, 0) for b in bots)
        eligible = [b for b in bots if previous.get(b, 0) == fewest]
        lowest = min(eligible, key=lambda b: (points[b], 1500 - bots.index(b)))
        assert plan.byes == [lowest]
        for t in plan.tables:
            points[t.seats[0]] += 1  # seat 0 always wins
        history.append(plan)
    assert len({b for h in history for b in h.byes}) == 6  # six different bots sat out


def test_uneven_field_prefers_smaller_tables_to_byes() -> None:
    bots = names(10)
    plan = make_scheduler("swiss", bots, 4).plan_round(0, [], [])
    assert sorted(len(t.seats) for t in plan.tables) == [3, 3, 4]
    assert not plan.byes
    assert "2 tables of 3 because 10 is not divisible by 4" in plan.note


def test_prefer_byes_plays_full_tables_and_rotates_the_byes() -> None:
    bots = names(10)
    sched = make_scheduler("swiss", bots, 4, prefer_byes=True, rounds=5)
    plans, _ = play_event(sched, bots, seed=1)
    for p in plans:
        check_plan(p, bots, 4)
        assert all(len(t.seats) == 4 for t in p.tables)
        assert len(p.byes) == 2
    byes = Counter(b for p in plans for b in p.byes)
    assert max(byes.values()) == 1  # 10 byes over 5 rounds: everyone once


def test_field_that_fits_one_table_plays_together_every_round() -> None:
    bots = names(5)
    sched = make_scheduler("swiss", bots, 6, rounds=5)
    plans, _ = play_event(sched, bots)
    assert all(len(p.tables) == 1 for p in plans)
    assert "1 table of 5" in plans[0].note and "meets again" in plans[1].note
    assert max_seat_spread(plans, 6, positions=5) == 0  # rotates through the seats


@pytest.mark.parametrize(("n", "k"), [(30, 2), (64, 4), (90, 3), (120, 6)])
def test_seat_positions_stay_balanced(n, k) -> None:
    """Swiss is planned one round at a time from results, so within one cannot be
    promised; each bot's seat counts stay within two, and within one for 80% of the bots."""
    bots = names(n)
    plans, _ = play_event(make_scheduler("swiss", bots, k, rounds=8, seed=5), bots, seed=5)
    assert max_seat_spread(plans, k) <= 2
    counts = Counter()
    for p in plans:
        for t in p.tables:
            for pos, b in enumerate(t.seats):
                counts[b, pos] += 1
    within_one = sum(
        1
        for b in bots
        if max(counts[b, p] for p in range(k)) - min(counts[b, p] for p in range(k)) <= 1
    )
    assert within_one >= 0.8 * n


def test_seat_zero_goes_to_whoever_had_it_least() -> None:
    bots = ["a", "b"]
    history = [RoundPlan(tables=[Table(("a", "b"))]), RoundPlan(tables=[Table(("a", "b"))])]
    plan = make_scheduler("swiss", bots, 2, rounds=3).plan_round(2, [], history)
    assert plan.tables[0].seats == ("b", "a")


def test_thousand_bot_round_is_fast() -> None:
    import time

    bots = names(1000)
    sched = make_scheduler("swiss", bots, 4, rounds=4, seed=9)
    start = time.perf_counter()
    plans, _ = play_event(sched, bots, seed=9)
    assert (time.perf_counter() - start) / len(plans) < 1.0
    assert max(meetings(plans).values()) == 1
