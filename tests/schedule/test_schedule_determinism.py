"""Determinism: same inputs and seed, same plans; a resumed event re-plans identically."""

from __future__ import annotations

import pytest
from schedule_helpers import names, play_event

from arena.schedule import make_scheduler

CONFIGS = [
    ("swiss", 37, 4, {}),
    ("swiss", 9, 2, {}),
    ("swiss", 120, 6, {}),
    ("round-robin", 8, 2, {}),
    ("round-robin", 9, 3, {}),
    ("round-robin", 30, 4, {}),
    ("gauntlet", 17, 4, {"challengers": ["bot003", "bot010"]}),
]


@pytest.mark.parametrize(("fmt", "n", "k", "extra"), CONFIGS)
def test_same_inputs_and_seed_give_the_same_event(fmt, n, k, extra) -> None:
    bots = names(n)
    first, _ = play_event(make_scheduler(fmt, bots, k, seed=42, **extra), bots, seed=7)
    second, _ = play_event(make_scheduler(fmt, bots, k, seed=42, **extra), bots, seed=7)
    assert first == second


@pytest.mark.parametrize(("fmt", "n", "k", "extra"), CONFIGS)
def test_a_resumed_event_replans_every_round_identically(fmt, n, k, extra) -> None:
    bots = names(n)
    sched = make_scheduler(fmt, bots, k, seed=5, **extra)
    plans, _ = play_event(sched, bots, seed=3)
    # a fresh scheduler (a restarted process) asked for a middle round with the same inputs
    from arena.schedule import Standing

    resumed = make_scheduler(fmt, bots, k, seed=5, **extra)
    middle = len(plans) // 2
    standings = [Standing(b, float(i % 3), middle, 1500.0) for i, b in enumerate(bots)]
    again = resumed.plan_round(middle, standings, plans[:middle])
    assert again == sched.plan_round(middle, standings, plans[:middle])
    assert again == resumed.plan_round(middle, list(reversed(standings)), plans[:middle])


@pytest.mark.parametrize(("fmt", "n", "k", "extra"), CONFIGS)
def test_a_different_seed_gives_a_different_event(fmt, n, k, extra) -> None:
    bots = names(n)
    a, _ = play_event(make_scheduler(fmt, bots, k, seed=1, **extra), bots, seed=7, strength=False)
    b, _ = play_event(make_scheduler(fmt, bots, k, seed=2, **extra), bots, seed=7, strength=False)
    assert a != b
