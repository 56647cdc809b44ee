"""The ladder's matchmaking rule (arena.ladder.matchmaker), rule by rule, and the field
that feeds it (arena.ladder.field)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.ladder.field import Field
from arena.ladder.matchmaker import Rule, Standing, level_of, next_table
from arena.ratings import GameResult


def settled(name: str, rating: float, *, stderr: float = 30.0, last: int = 0) -> Standing:
    return Standing(name, rating, stderr, games=50, last_table=last)


def test_levels_follow_the_ruler_sequence_half_the_tables_see_the_whole_field() -> None:
    levels = Counter(level_of(t, 64, 2) for t in range(1024))
    assert levels[0] == 512  # every other table: the whole field (the floor)
    assert levels[1] == 256 and levels[2] == 128
    # the deepest level keeps at least seats + 1 bots: 64 / 2^4 = 4 >= 3, 64 / 2^5 = 2 < 3
    assert max(levels) == 4
    assert all(level_of(t, 64, 2, Rule(halving=False)) == 0 for t in range(64))


def test_a_top_level_table_is_drawn_from_the_top_of_the_field_only() -> None:
    field = [settled(f"b{i:02d}", 2000 - 10 * i, last=99) for i in range(32)]
    rng = random.Random(1)
    # table 7: level 3, the top 32 / 8 = 4 bots by rating
    for _ in range(50):
        seating = next_table(field, 2, 7, rng)
        assert set(seating) <= {"b00", "b01", "b02", "b03"}


def test_an_overdue_bot_takes_a_seat_whatever_its_rating_or_interval() -> None:
    field = [settled(f"b{i:02d}", 1500 + 20 * i, last=400) for i in range(12)]
    field[0] = settled("b00", 900, stderr=1.0, last=10)  # far below, settled, waiting long
    rule = Rule(max_wait_rotations=3.0)
    table = 10 + rule.max_wait(12, 4) + 1
    assert "b00" in next_table(field, 4, table, random.Random(2), rule=rule)
    # one table earlier it is not overdue, and a settled outlier is not wanted
    early = [
        next_table(field, 4, 10 + rule.max_wait(12, 4) - 1, random.Random(s)) for s in range(30)
    ]
    assert sum("b00" in t for t in early) <= 3


def test_wide_intervals_weigh_more_for_the_first_seat() -> None:
    field = [settled(f"b{i}", 1500, stderr=20.0, last=0) for i in range(7)]
    field.append(Standing("new", 1500, 170.0, games=0, last_table=-1, provisional=True))
    rng = random.Random(3)
    # level-0 tables (even numbers) with nobody overdue: table numbers below the wait limit
    seated = Counter(
        name for t in range(0, 8, 2) for _ in range(100) for name in next_table(field, 2, t, rng)
    )
    assert seated["new"] > 0.9 * 400  # the provisional, uncertain bot is at almost every table
    assert max(seated[f"b{i}"] for i in range(7)) < seated["new"] / 4


def test_opponents_are_drawn_where_the_order_is_a_coin_flip() -> None:
    anchor = Standing("anchor", 1500, 150.0, games=5, last_table=0, provisional=True)
    close = settled("close", 1510, stderr=40.0)
    far = [settled(f"far{i}", 2300 + i, stderr=40.0) for i in range(3)]
    rng = random.Random(4)
    picks = Counter()
    for _ in range(400):
        seating = next_table([anchor, close, *far], 2, 0, rng)
        picks.update(set(seating) - {"anchor"} if "anchor" in seating else ())
    # the near opponent is likelier than all three distant ones together
    assert picks["close"] > sum(picks[f"far{i}"] for i in range(3))


def test_busy_bots_sit_only_when_too_few_others_are_free() -> None:
    field = [settled(f"b{i}", 1500 + i, last=5) for i in range(6)]
    rng = random.Random(5)
    for t in range(6, 40):
        assert not {"b0", "b1"} & set(next_table(field, 4, t, rng, busy={"b0", "b1"}))
    # too few free: every bot may sit, and one that waited too long still does
    field[5] = settled("b5", 1505, last=1)
    everyone = {s.name for s in field}
    for t in range(12, 14):
        seating = next_table(field, 4, t, rng, busy=everyone - {"b0"})
        assert "b5" in seating and len(set(seating)) == 4


def test_each_bot_is_seated_where_it_sat_least() -> None:
    field = [
        Standing("a", 1500, 50.0, 30, 0, False, (10, 0, 10)),
        Standing("b", 1500, 50.0, 30, 0, False, (0, 10, 10)),
        Standing("c", 1500, 50.0, 30, 0, False, (10, 10, 0)),
    ]
    for seed in range(10):
        assert next_table(field, 3, 1, random.Random(seed)) == ("b", "a", "c")


def test_a_field_played_through_the_matchmaker_keeps_every_bot_playing_and_seats_even() -> None:
    names = [f"b{i:02d}" for i in range(24)]
    rng = random.Random(6)
    field = Field(4)
    waits: dict[str, int] = {}
    for _ in range(1200):
        seating = field.choose(names, rng)
        for name in names:
            waits[name] = 0 if name in seating else waits.get(name, 0) + 1
            assert waits[name] <= field.rule.max_wait(24, 4)
        # the stronger the bot's number, the better it finishes
        order = sorted(seating, key=lambda n: -int(n[1:]) + rng.random() * 8)
        field.record(GameResult(seating, tuple(order.index(p) + 1 for p in seating)))
    for name in names:
        counts = field.seat_counts[name]
        assert max(counts) - min(counts) <= 2, (name, counts)
    # the top of the field plays more than the bottom (successive halving)
    assert field.games["b23"] > 1.5 * field.games["b00"]


def test_fewer_bots_than_seats_is_refused() -> None:
    with pytest.raises(ValueError, match="needs at least 4"):
        next_table([settled("a", 1500), settled("b", 1500)], 4, 0, random.Random(0))
