"""Policies see the same thing in-process and on a bot's side of the wire.

A bot only has an observation; engine.view.PublicGame rebuilds the public game from it.
Every built-in policy must choose identically on both, or results would depend on the
transport.
"""

from __future__ import annotations

import pytest

from engine import RULESETS, Game, observe
from engine.policies import make_policy
from engine.view import PublicGame

SPECS = ["ev", "threshold:22", "random"]


@pytest.mark.parametrize("variant", ["base", "vengeance"])
@pytest.mark.parametrize("brutal", [False, True])
def test_policies_choose_the_same_on_an_observation_as_on_the_game(
    variant: str, brutal: bool
) -> None:
    rules = RULESETS[variant].with_options(brutal=brutal)
    decisions = 0
    for seed in range(40):
        g = Game(rules, 1 + seed % 6, seed)
        here = [make_policy(SPECS[i % 3], seed + i) for i in range(g.n)]
        there = [make_policy(SPECS[i % 3], seed + i) for i in range(g.n)]
        while not g.over:
            d = g.decision
            a = here[d.seat](g, d)
            b = there[d.seat](PublicGame.from_observation(observe(g, d.seat)), d)
            assert a == b, (seed, d)
            g.step(a)
            decisions += 1
    assert decisions > 1000


def test_public_game_rebuilds_lines_totals_and_the_unseen_multiset() -> None:
    g = Game(RULESETS["base"], 3, 5, stack=["5", "x2", "SECOND_CHANCE", "7"])
    g.players[2].total = 42
    view = PublicGame.from_observation(observe(g, 0))
    assert [c.label for c in view.players[1].numbers] == ["5"]
    assert [c.label for c in view.players[2].modifiers] == ["x2"]
    assert len(view.players[0].extras) == 1
    assert view.players[2].total == 42
    assert sum(view.deck_count.values()) == len(g.deck) == len(view.deck)
