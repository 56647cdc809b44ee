"""X10: observations carry everything public and never the order of the draw pile."""

from __future__ import annotations

import json
import random

import pytest

from engine import RULESETS, Game, observe


def _labels_in_draw_order(game: Game) -> list[str]:
    return [c.label for c in reversed(game.deck)]


@pytest.mark.parametrize("variant", ["base", "vengeance"])
@pytest.mark.parametrize("seed", range(12))
def test_x10_observation_does_not_depend_on_the_hidden_deck_order(variant: str, seed: int) -> None:
    """Two games with the same public history but a different undrawn order look the same."""
    rules = RULESETS[variant]
    rng = random.Random(seed)
    order = [c.label for c in rules.cards]
    rng.shuffle(order)
    # walk into round 1 by random choices, stopping before the round ends
    probe = Game(rules, 4, seed, deck=order)
    choices: list[int] = []
    target_steps = rng.randrange(1, 12)
    while len(choices) < target_steps:
        choice = rng.randrange(len(probe.decision.options))
        probe.step(choice)
        if probe.over or probe.round > 1:
            break
        choices.append(choice)
    a = Game.replay(rules, 4, seed, choices, deck=order)
    assert a.round == 1 and not a.over
    drawn = len(order) - len(a.deck)
    rest = order[drawn:]
    rng.shuffle(rest)
    b = Game.replay(rules, 4, seed, choices, deck=order[:drawn] + rest)
    assert _labels_in_draw_order(a) != _labels_in_draw_order(b) or len(set(rest)) == 1
    for seat in range(4):
        assert observe(a, seat) == observe(b, seat)


def test_x10_observation_contents_are_public_and_json_ready() -> None:
    g = Game(RULESETS["base"], 3, 11, stack=["5", "9", "+4", "7"])
    obs = observe(g, g.decision.seat)
    json.dumps(obs)  # plain data only
    assert obs["deck_size"] == len(g.deck)
    assert sum(obs["unseen"].values()) == len(g.deck)
    assert list(obs["unseen"]) == sorted(obs["unseen"])  # a multiset: sorted, no order
    assert "seed" not in obs and "deck" not in obs
    lines = {p["seat"]: p for p in obs["players"]}
    assert lines[1]["numbers"] == ["5"] and lines[2]["numbers"] == ["9"]
    assert lines[0]["modifiers"] == ["+4"]
    assert obs["decision"]["kind"] == "HIT_OR_STAY"


def test_x10_decision_is_shown_only_to_the_seat_that_decides() -> None:
    g = Game(RULESETS["base"], 3, 4)
    d = g.decision
    assert "decision" in observe(g, d.seat)
    for other in {0, 1, 2} - {d.seat}:
        assert "decision" not in observe(g, other)


def test_x10_the_seed_is_revealed_only_when_the_game_is_over() -> None:
    g = Game(RULESETS["base"], 2, 99)
    while not g.over:
        assert "seed" not in observe(g, 0)
        g.step(0)
    assert observe(g, 0)["seed"] == 99
    assert observe(g, 1)["winners"] == list(g.winners)
