"""The public API: factory, validation errors, protocol, value types, copies."""

from __future__ import annotations

import pytest
from schedule_helpers import names

from arena.schedule import (
    GauntletScheduler,
    RoundPlan,
    RoundRobinScheduler,
    Scheduler,
    Standing,
    SwissScheduler,
    Table,
    default_swiss_rounds,
    make_scheduler,
)


@pytest.mark.parametrize(
    ("fmt", "cls"),
    [
        ("round-robin", RoundRobinScheduler),
        ("swiss", SwissScheduler),
        ("gauntlet", GauntletScheduler),
    ],
)
def test_make_scheduler_returns_the_format_and_satisfies_the_protocol(fmt, cls) -> None:
    extra = {"challengers": ["bot000"]} if fmt == "gauntlet" else {}
    sched = make_scheduler(fmt, names(6), 3, **extra)
    assert isinstance(sched, cls)
    assert isinstance(sched, Scheduler)
    assert sched.format == fmt
    assert sched.total_rounds() >= 1
    plan = sched.plan_round(0, [], [])
    assert isinstance(plan, RoundPlan)
    assert all(isinstance(t, Table) for t in plan.tables)


def test_format_spelling_variants_are_accepted() -> None:
    assert make_scheduler("Round_Robin", names(4), 2).format == "round-robin"
    assert make_scheduler(" SWISS ", names(4), 2).format == "swiss"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"format": "knockout", "bots": names(4), "seats": 2}, "unknown format"),
        ({"format": "swiss", "bots": ["solo"], "seats": 2}, "at least 2 bots"),
        ({"format": "swiss", "bots": [], "seats": 2}, "at least 2 bots"),
        ({"format": "swiss", "bots": names(4), "seats": 1}, "between 2 and 18"),
        ({"format": "swiss", "bots": names(4), "seats": 19}, "between 2 and 18"),
        ({"format": "swiss", "bots": names(4), "seats": 2.5}, "integer"),
        ({"format": "swiss", "bots": ["a", "b", "a"], "seats": 2}, "duplicate"),
        ({"format": "swiss", "bots": ["a", ""], "seats": 2}, "non-empty"),
        ({"format": "swiss", "bots": names(4), "seats": 2, "rounds": 0}, "at least 1"),
        ({"format": "gauntlet", "bots": names(4), "seats": 2}, "challenger"),
        ({"format": "gauntlet", "bots": names(4), "seats": 2, "challengers": []}, "challenger"),
        (
            {"format": "gauntlet", "bots": names(4), "seats": 2, "challengers": ["nobody"]},
            "not among the bots",
        ),
        (
            {"format": "gauntlet", "bots": names(2), "seats": 2, "challengers": names(2)},
            "not a challenger",
        ),
        (
            {"format": "gauntlet", "bots": names(3), "seats": 2, "challengers": ["bot000"] * 2},
            "twice",
        ),
        (
            {"format": "swiss", "bots": names(4), "seats": 2, "challengers": ["bot000"]},
            "only apply to a gauntlet",
        ),
    ],
)
def test_impossible_requests_raise_value_error(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        make_scheduler(**kwargs)


@pytest.mark.parametrize("fmt", ["round-robin", "swiss", "gauntlet"])
def test_round_index_outside_the_event_is_rejected(fmt) -> None:
    extra = {"challengers": ["bot000"]} if fmt == "gauntlet" else {}
    sched = make_scheduler(fmt, names(5), 2, rounds=2, **extra)
    with pytest.raises(ValueError, match="out of range"):
        sched.plan_round(2, [], [])
    with pytest.raises(ValueError, match="out of range"):
        sched.plan_round(-1, [], [])


def test_swiss_rejects_a_history_that_does_not_match_the_round() -> None:
    sched = make_scheduler("swiss", names(6), 2)
    first = sched.plan_round(0, [], [])
    with pytest.raises(ValueError, match="history"):
        sched.plan_round(1, [], [])
    with pytest.raises(ValueError, match="history"):
        sched.plan_round(0, [], [first])


def test_swiss_rejects_unknown_or_duplicate_bots_in_standings_and_history() -> None:
    sched = make_scheduler("swiss", names(4), 2)
    with pytest.raises(ValueError, match="unknown bot"):
        sched.plan_round(0, [Standing("stranger", 0, 0)], [])
    with pytest.raises(ValueError, match="twice"):
        sched.plan_round(0, [Standing("bot000", 0, 0), Standing("bot000", 1, 1)], [])
    alien = RoundPlan(tables=[Table(("bot000", "stranger"))])
    with pytest.raises(ValueError, match="unknown bot"):
        sched.plan_round(1, [], [alien])


def test_table_holds_a_tuple_and_refuses_a_bot_twice() -> None:
    assert Table(["a", "b"]).seats == ("a", "b")
    with pytest.raises(ValueError):
        Table(("a", "a"))


def test_changing_a_returned_plan_does_not_change_the_schedule() -> None:
    sched = make_scheduler("round-robin", names(6), 2)
    plan = sched.plan_round(0, [], [])
    plan.tables.clear()
    plan.byes.append("x")
    again = sched.plan_round(0, [], [])
    assert again.tables and "x" not in again.byes


@pytest.mark.parametrize(
    ("n", "k", "expected"),
    [
        (2, 2, 1),  # capped at N - 1
        (3, 2, 2),
        (8, 2, 5),  # ceil(log2 8) + 2
        (100, 2, 9),
        (1000, 4, 7),  # ceil(log4 1000) = 5, + 2
        (16, 4, 4),
        (12, 4, 4),  # at least 3, capped at ceil(11 / 3) = 4
        (5, 4, 2),  # capped at ceil(4 / 3) = 2
        (4, 4, 1),  # one table: ceil(3 / 3) = 1
        (3, 8, 1),
        (200, 8, 5),
    ],
)
def test_default_swiss_rounds_formula(n, k, expected) -> None:
    assert default_swiss_rounds(n, k) == expected
    assert make_scheduler("swiss", names(n), k).total_rounds() == expected


def test_rounds_argument_overrides_every_default() -> None:
    assert make_scheduler("swiss", names(10), 2, rounds=9).total_rounds() == 9
    assert make_scheduler("round-robin", names(4), 2, rounds=3).total_rounds() == 3
    gauntlet = make_scheduler("gauntlet", names(7), 3, challengers=["bot000"], rounds=5)
    assert gauntlet.total_rounds() == 5
