"""Built-in policies: legal, deterministic, and sensible in the situations that matter."""

from __future__ import annotations

import pytest

from engine import RULESETS, Game
from engine.policies import (
    EVPolicy,
    PolicyError,
    ThresholdPolicy,
    hit_gain,
    make_policy,
    parse_policy,
)

ASK_ALL = {v: RULESETS[v].with_options(auto_single=False) for v in RULESETS}


@pytest.mark.parametrize("variant", ["base", "vengeance"])
@pytest.mark.parametrize("spec", ["random", "threshold:20", "ev"])
def test_policies_always_answer_legally(variant: str, spec: str) -> None:
    for seed in range(40):
        g = Game(ASK_ALL[variant], 1 + seed % 6, seed)
        pols = [make_policy(spec, seed * 10 + i) for i in range(g.n)]
        while not g.over:
            d = g.decision
            choice = pols[d.seat](g, d)
            assert 0 <= choice < len(d.options)
            g.step(choice)


def test_random_policy_is_reproducible_from_its_seed() -> None:
    def play(seed: int) -> list[int]:
        g = Game(RULESETS["base"], 3, 5)
        pols = [make_policy("random", seed + i) for i in range(3)]
        while not g.over:
            g.step(pols[g.decision.seat](g, g.decision))
        return g.choices

    assert play(1) == play(1)
    assert play(1) != play(2)


def test_threshold_stays_exactly_at_n() -> None:
    # seat 1 is dealt 9, seat 0 (dealer) 2; then seat 1 draws 12 (sum 21), then 3 (sum 24)
    g = Game(RULESETS["base"], 2, 1, stack=["9", "2", "12", "5", "3"])
    pol = ThresholdPolicy(21)
    assert g.decision.seat == 1 and pol(g, g.decision) == 0  # 9 < 21: hit
    g.step(0)
    assert g.decision.seat == 0 and pol(g, g.decision) == 0  # 2 < 21: hit
    g.step(0)
    assert g.players[1].sum == 21
    assert g.decision.seat == 1 and g.decision.options[pol(g, g.decision)] == "STAY"


def test_ev_hits_a_small_line_and_stays_on_a_big_one() -> None:
    g = Game(RULESETS["base"], 2, 1, stack=["3", "2"])
    assert hit_gain(g, g.players[1]) > 0
    assert g.decision.options[EVPolicy()(g, g.decision)] == "HIT"
    g = Game(RULESETS["base"], 2, 1, stack=["12", "2", "11", "1", "10", "4", "9", "5"])
    for _ in range(6):
        g.step(0)
    p = g.players[1]
    assert p.sum == 42 and g.decision.seat == 1
    assert hit_gain(g, p) < 0
    assert g.decision.options[EVPolicy()(g, g.decision)] == "STAY"


def test_ev_freeze_goes_to_the_opponent_who_wants_cards() -> None:
    """Seat 2 holds 12+11+10 and would rather stop; seat 1 holds 1+2+4 and wants cards.
    Seat 0 draws a Freeze: freezing seat 1 hurts it, freezing seat 2 would help it."""
    deal = ["1", "12", "6"]
    turn1 = ["2", "11", "3"]
    turn2 = ["4", "10", "FREEZE"]
    g = Game(ASK_ALL["base"], 3, 3, stack=deal + turn1 + turn2)
    for _ in range(6):  # two turns of three seats; the last draw is the Freeze
        assert g.decision.kind == "HIT_OR_STAY"
        g.step(0)
    d = g.decision
    assert d.kind == "CHOOSE_TARGET" and d.card == "FREEZE" and d.seat == 0
    assert hit_gain(g, g.players[2]) < 0 < hit_gain(g, g.players[1])
    assert d.options[EVPolicy()(g, d)] == 1


def test_threshold_gives_the_spare_second_chance_to_the_weakest() -> None:
    g = Game(ASK_ALL["base"], 3, 3, stack=["SECOND_CHANCE", "5", "4", "SECOND_CHANCE"])
    g.players[2].total = 150
    g.players[0].total = 20
    g.step(0)  # seat 1 hits and draws its second Second Chance
    d = g.decision
    assert d.kind == "GIVE_SECOND_CHANCE" and d.seat == 1
    assert d.options[ThresholdPolicy(20)(g, d)] == 0


def test_policies_give_minus_modifiers_to_the_leader_not_themselves() -> None:
    g = Game(ASK_ALL["vengeance"], 3, 8, stack=["5", "9", "6", "-6"])
    g.players[2].total = 180
    g.step(0)  # seat 1 hits: the -6
    d = g.decision
    assert d.kind == "GIVE_MODIFIER" and d.seat == 1
    for pol in (ThresholdPolicy(26), EVPolicy()):
        assert d.options[pol(g, d)] == 2


def test_policies_do_not_steal_a_card_that_busts_them() -> None:
    g = Game(ASK_ALL["vengeance"], 3, 8, stack=["5", "12", "6", "STEAL"])
    # seat 1 has 5; seat 2 has 12, seat 0 has 6; seat 1 draws Steal
    g.players[2].total = 100
    g.step(0)
    d = g.decision
    assert d.kind == "STEAL" and d.seat == 1
    for pol in (ThresholdPolicy(26), EVPolicy()):
        victim, label = d.options[pol(g, d)]
        assert (victim, label) == (2, "12")  # the most valuable card, from the stronger rival


@pytest.mark.parametrize(
    ("spec", "normal"),
    [("random", "random"), ("EV", "ev"), (" threshold:23 ", "threshold:23")],
)
def test_policy_specs_are_normalised(spec: str, normal: str) -> None:
    assert parse_policy(spec) == normal


@pytest.mark.parametrize("spec", ["", "greedy", "threshold", "threshold:x", "threshold:-1"])
def test_bad_policy_specs_are_rejected(spec: str) -> None:
    with pytest.raises(PolicyError):
        parse_policy(spec)
