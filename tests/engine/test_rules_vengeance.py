"""Rules V1–V8 of docs/rules.md (Flip 7: With a Vengeance, and Brutal mode) on stacked decks.

Seat order: with 2 seats and dealer 0 the order is 1, 0; with 3 seats it is 1, 2, 0 (the
dealer acts last). ``stack`` puts labels on top of the deck, drawn first in order, so
``stack=["5", "6", ...]`` with 2 seats deals seat 1 a 5 and seat 0 a 6. Unless a test uses
an ``*_ASK`` ruleset, decisions with a single option are applied automatically (X9) and do
not appear in the scripts.
"""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import (
    ask,
    events_of,
    expect,
    hit,
    line,
    play,
    round_end,
    stay,
    target,
    uids_ok,
)

from engine import (
    ACTIVE,
    BUSTED,
    CHOOSE_TARGET,
    DISCARD,
    FLIP7_BONUS,
    GIVE_MODIFIER,
    HIT,
    HIT_OR_STAY,
    RULESETS,
    STAY,
    STAYED,
    STEAL,
    SWAP,
    Game,
    Player,
)
from engine.cards import ACTION, MODIFIER, NUMBER

VEN = RULESETS["vengeance"]
VEN_ASK = VEN.with_options(auto_single=False)
BRUTAL = VEN.with_options(brutal=True)
BRUTAL_ASK = VEN.with_options(brutal=True, auto_single=False)

ACTIONS = ("JUST_ONE_MORE", "FLIP_FOUR", "STEAL", "SWAP", "DISCARD")
MINUS = ("-2", "-4", "-6", "-8", "-10")


# ---------------------------------------------------------------- script steps
def give_mod(giver: int, to: int, card: str | None = None):
    """GIVE_MODIFIER: ``giver`` gives the modifier being resolved to seat ``to``."""
    return ask(GIVE_MODIFIER, giver, to, card)


def steal(thief: int, victim: int, label: str):
    return ask(STEAL, thief, (victim, label), "STEAL")


def discard(chooser: int, victim: int, label: str):
    return ask(DISCARD, chooser, (victim, label), "DISCARD")


def swap(chooser: int, a: int, la: str, b: int, lb: str):
    return ask(SWAP, chooser, ((a, la), (b, lb)), "SWAP")


def bonus(seat: int, victim: int = -1):
    """FLIP7_BONUS: -1 takes +15, a seat loses 15 from its total."""
    return ask(FLIP7_BONUS, seat, victim)


def after(g: Game, first: tuple) -> list[tuple]:
    """The events from ``first`` (inclusive) on."""
    return g.events[g.events.index(first) :]


def discard_labels(g: Game) -> list[str]:
    return [c.label for c in g.discard]


def _card(label: str):
    return next(c for c in VEN.cards if c.label == label)


def _player(numbers: list[str], mods: list[str], flip7: bool = False) -> Player:
    p = Player(0)
    for label in numbers:
        p.add_number(_card(label))
    p.modifiers.extend(_card(label) for label in mods)
    p.flip7 = flip7
    return p


# ---------------------------------------------------------------- V1 deck
def test_v1_deck_has_108_cards_of_the_official_composition():
    """V1: The Zero, n copies of 1..13 (one 7 is the Unlucky 7, one 13 the Lucky 13),
    two of each action, one of each modifier; nothing from the base game."""
    counts = Counter(c.label for c in VEN.cards)
    expected = {"0": 1, "U7": 1, "L13": 1}
    for n in range(1, 14):
        expected[str(n)] = n - (1 if n in (7, 13) else 0)
    expected.update({a: 2 for a in ACTIONS})
    expected.update({m: 1 for m in ("/2", *MINUS)})
    assert counts == expected
    assert VEN.deck_size == len(VEN.cards) == 108
    assert sorted(c.uid for c in VEN.cards) == list(range(108))
    kinds = Counter(c.kind for c in VEN.cards)
    assert kinds == {NUMBER: 92, ACTION: 10, MODIFIER: 6}
    assert _card("0").value == 0
    assert _card("U7").value == 7
    assert _card("L13").value == 13
    assert {c.value for c in VEN.cards if c.label in MINUS} == {2, 4, 6, 8, 10}


def test_v1_a_new_game_uses_the_whole_108_card_deck():
    """V1/X2: one deck; every card is somewhere from the start."""
    g = Game(VEN, 4, 3)
    assert uids_ok(g)
    assert len(g.all_cards()) == 108
    assert g.box == []


# ---------------------------------------------------------------- V2 stayed players
def test_v2_stayed_player_is_targetable_but_never_gets_another_turn():
    """V2: a stayed player can be hit by Just One More!; they stay stayed and are not
    offered a turn again."""
    g = Game(VEN, 2, 0, stack=["5", "6", "JUST_ONE_MORE", "4"], single_round=True)
    play(g, [stay(1), hit(0)])
    expect(g, CHOOSE_TARGET, 0, (1, 0))  # the stayed seat 1 is a legal target
    play(g, [target(0, 1, "JUST_ONE_MORE")])
    assert after(g, ("action", 0, "JUST_ONE_MORE", 1)) == [
        ("action", 0, "JUST_ONE_MORE", 1),
        ("draw", 1, "4"),
    ]
    assert g.players[1].status == STAYED
    assert line(g, 1) == ["5", "4"]
    # seat 1 is never asked again: the next decision is seat 0's
    expect(g, HIT_OR_STAY, 0, (HIT, STAY))
    play(g, [stay(0)])
    assert round_end(g)[2] == (6, 9)
    assert events_of(g, "stay") == [("stay", 1), ("stay", 0)]


def test_v2_busted_player_is_out_of_reach_of_every_decision():
    """V2/V7/X7: busted players appear in no option list (targets, modifiers, Steal,
    Swap, Discard); stayed players do."""
    g = Game(
        VEN_ASK,
        3,
        0,
        stack=["5", "4", "3", "5", "JUST_ONE_MORE", "-2", "STEAL", "SWAP", "DISCARD"],
        single_round=True,
    )
    play(g, [hit(1)])
    assert g.players[1].status == BUSTED
    play(g, [hit(2)])
    expect(g, CHOOSE_TARGET, 2, (2, 0))
    play(g, [target(2, 0)])
    expect(g, GIVE_MODIFIER, 0, (2, 0))  # the target resolves what it drew
    play(g, [give_mod(0, 0, "-2")])
    assert g.players[0].status == STAYED  # Just One More! made seat 0 stay
    expect(g, HIT_OR_STAY, 2, (HIT, STAY))
    play(g, [hit(2)])
    expect(g, STEAL, 2, ((0, "3"), (0, "-2")))
    play(g, [steal(2, 0, "-2")])
    play(g, [hit(2)])
    expect(g, SWAP, 2, (((2, "4"), (0, "3")), ((2, "-2"), (0, "3"))))
    play(g, [swap(2, 2, "-2", 0, "3")])
    assert line(g, 2) == ["4", "3"] and line(g, 0) == ["-2"]
    play(g, [hit(2)])
    expect(g, DISCARD, 2, ((2, "4"), (2, "3"), (0, "-2")))
    play(g, [discard(2, 0, "-2"), stay(2)])
    assert round_end(g)[2] == (0, 0, 7)
    assert line(g, 1) == []  # table cleared
    assert uids_ok(g)


# ---------------------------------------------------------------- V3 The Zero
def test_v3_the_zero_holder_cannot_choose_to_stay():
    """V3: STAY is absent while holding The Zero, even with other cards in the line."""
    g = Game(VEN_ASK, 2, 0, stack=["0", "5", "3"], single_round=True)
    expect(g, HIT_OR_STAY, 1, (HIT,))
    play(g, [hit(1)])
    assert line(g, 1) == ["0", "3"]
    expect(g, HIT_OR_STAY, 0, (HIT, STAY))
    play(g, [stay(0)])
    expect(g, HIT_OR_STAY, 1, (HIT,))


def test_v3_just_one_more_forces_the_zero_holder_to_stay():
    """V3/V7: Just One More! (here on oneself) makes even The Zero's holder stay; they
    then score 0 without Flip 7."""
    g = Game(VEN, 2, 0, stack=["0", "5", "JUST_ONE_MORE", "4"], single_round=True)
    # seat 1 holds The Zero: its HIT is automatic (single option) and draws the action
    play(g, [target(1, 1, "JUST_ONE_MORE")])
    assert after(g, ("action", 1, "JUST_ONE_MORE", 1)) == [
        ("action", 1, "JUST_ONE_MORE", 1),
        ("draw", 1, "4"),
        ("stay", 1),
    ]
    assert g.players[1].status == STAYED
    assert line(g, 1) == ["0", "4"]
    play(g, [stay(0)])
    assert round_end(g)[2] == (5, 0)  # 0 + 4 = 4, but The Zero makes it 0


def test_v3_the_zero_scores_0_without_flip7_whatever_else_is_held():
    """V3/V6: a stayed line 0, 12, 11 scores 0."""
    g = Game(VEN, 1, 0, stack=["0", "12", "11", "JUST_ONE_MORE", "10"], single_round=True)
    # one seat: HIT is forced; Just One More! targets the only seat and makes it stay
    assert g.over
    assert line(g, 0) == []  # cleared at the round's end
    assert events_of(g, "draw") == [
        ("draw", 0, "12"),
        ("draw", 0, "11"),
        ("draw", 0, "JUST_ONE_MORE"),
        ("draw", 0, "10"),
    ]
    assert round_end(g)[2] == (0,)


def test_v3_the_zero_counts_toward_flip7_and_then_scores():
    """V3/X8: The Zero is the 7th number; with Flip 7 the line scores normally + 15."""
    g = Game(VEN, 1, 0, stack=["0", "1", "2", "3", "4", "5", "6"], single_round=True)
    assert g.over  # every HIT was forced by The Zero
    assert ("flip7", 0) in g.events
    assert round_end(g)[2] == (21 + 15,)


def test_v3_restriction_moves_with_the_zero_through_steal_and_ends_on_discard():
    """V3/V7: stealing The Zero frees the victim and restricts the thief; discarding it
    (Discard on oneself) lifts the restriction."""
    g = Game(VEN_ASK, 2, 0, stack=["0", "5", "8", "STEAL", "DISCARD"], single_round=True)
    play(g, [ask(HIT_OR_STAY, 1, HIT, options=(HIT,)), hit(0)])
    expect(g, STEAL, 0, ((1, "0"), (1, "8")))  # Steal: only the other player's cards
    play(g, [steal(0, 1, "0")])
    assert line(g, 0) == ["5", "0"] and line(g, 1) == ["8"]
    assert ("steal", 0, 1, "0") in g.events
    expect(g, HIT_OR_STAY, 1, (HIT, STAY))  # the victim may stay again
    play(g, [stay(1)])
    expect(g, HIT_OR_STAY, 0, (HIT,))  # the thief may not
    play(g, [hit(0)])
    expect(g, DISCARD, 0, ((1, "8"), (0, "5"), (0, "0")))
    play(g, [discard(0, 0, "0")])
    assert ("discarded", 0, 0, "0") in g.events
    assert "0" in discard_labels(g)
    expect(g, HIT_OR_STAY, 0, (HIT, STAY))
    play(g, [stay(0)])
    assert round_end(g)[2] == (5, 8)


def test_v3_restriction_ends_when_the_zero_is_swapped_away():
    """V3/V7: after a Swap the new holder of The Zero is restricted, the old one is not."""
    g = Game(VEN_ASK, 3, 0, stack=["0", "4", "SWAP"], single_round=True)
    expect(g, SWAP, 0, (((1, "0"), (2, "4")),))  # Swap between two other players
    play(g, [swap(0, 1, "0", 2, "4")])
    assert line(g, 1) == ["4"] and line(g, 2) == ["0"]
    expect(g, HIT_OR_STAY, 1, (HIT, STAY))
    play(g, [stay(1)])
    expect(g, HIT_OR_STAY, 2, (HIT,))


# ---------------------------------------------------------------- V4 Unlucky 7
def test_v4_unlucky7_while_holding_a_7_wipes_numbers_and_modifiers_then_a_7_busts():
    """V4: receiving the Unlucky 7 while holding a 7 does not bust; every other number
    and modifier is discarded. A later 7 busts."""
    g = Game(VEN, 2, 0, stack=["7", "1", "-2", "5", "U7", "7"], single_round=True)
    play(g, [hit(1), give_mod(1, 1, "-2"), stay(0), hit(1), hit(1)])
    p = g.players[1]
    assert p.status == ACTIVE
    assert line(g, 1) == ["U7"]
    assert p.sum == 7 and p.modifiers == []
    assert ("unlucky7", 1, ("7", "5", "-2")) in g.events
    assert not events_of(g, "bust")
    assert Counter(discard_labels(g)) >= Counter(["7", "5", "-2"])
    assert uids_ok(g)
    play(g, [hit(1)])
    assert p.status == BUSTED
    assert ("bust", 1, "7") in g.events
    assert round_end(g)[2] == (1, 0)


def test_v4_unlucky7_on_an_empty_line_is_just_a_7():
    g = Game(VEN, 1, 0, stack=["U7", "-4"], single_round=True)
    play(g, [hit(0), stay(0)])
    assert ("unlucky7", 0, ()) in g.events
    assert round_end(g)[2] == (3,)


def test_v4_stolen_unlucky7_wipes_the_thiefs_line():
    """V4/V7: Steal is an arrival: the Unlucky 7 wipes the thief's line."""
    g = Game(VEN, 2, 0, stack=["U7", "9", "-4", "STEAL"], single_round=True)
    play(g, [stay(1), hit(0), give_mod(0, 0, "-4"), hit(0)])  # single Steal option: auto
    assert after(g, ("steal", 0, 1, "U7"))[:2] == [
        ("steal", 0, 1, "U7"),
        ("unlucky7", 0, ("9", "-4")),
    ]
    assert line(g, 0) == ["U7"] and line(g, 1) == []
    play(g, [stay(0)])
    assert round_end(g)[2] == (7, 0)


def test_v4_swapped_in_unlucky7_wipes_the_receivers_line():
    """V4/V7: a Swap that brings the Unlucky 7 wipes its receiver's line (a stayed player
    here); the other side just gets its card."""
    g = Game(VEN, 3, 0, stack=["U7", "2", "1", "3", "-2", "SWAP"], single_round=True)
    play(g, [stay(1), hit(2), hit(0)])
    expect(g, GIVE_MODIFIER, 0, (1, 2, 0))
    play(g, [give_mod(0, 2, "-2"), stay(2), hit(0)])
    play(g, [swap(0, 1, "U7", 2, "3")])
    assert after(g, ("swap", 0, 1, "U7", 2, "3")) == [
        ("swap", 0, 1, "U7", 2, "3"),
        ("unlucky7", 2, ("2", "-2")),
    ]
    assert line(g, 2) == ["U7"] and line(g, 1) == ["3"]
    assert g.players[2].status == STAYED and g.players[1].status == STAYED
    assert uids_ok(g)
    play(g, [stay(0)])
    assert round_end(g)[2] == (1, 3, 7)


def test_v4_unlucky7_holder_busts_on_a_stolen_7():
    """V4/V7: a later 7 busts, also when it arrives through Steal."""
    g = Game(VEN, 2, 0, stack=["U7", "7", "STEAL"], single_round=True)
    play(g, [hit(1)])  # only option: steal seat 0's 7
    assert g.players[1].status == BUSTED
    assert ("bust", 1, "7") in g.events
    assert line(g, 1) == ["U7", "7"]


# ---------------------------------------------------------------- V5 Lucky 13
@pytest.mark.parametrize("first,second", [("L13", "13"), ("13", "L13")])
def test_v5_lucky13_pair_in_either_order_then_a_third_13_busts(first, second):
    """V5: Lucky 13 and one other 13 coexist (either order); a third 13 busts."""
    g = Game(VEN, 1, 0, stack=[first, second, "13"], single_round=True)
    play(g, [hit(0)])
    p = g.players[0]
    assert p.status == ACTIVE
    assert line(g, 0) == [first, second]
    assert p.sum == 26
    play(g, [hit(0)])
    assert p.status == BUSTED
    assert ("bust", 0, "13") in g.events
    assert round_end(g)[2] == (0,)


@pytest.mark.parametrize("first,second", [("L13", "13"), ("13", "L13")])
def test_v5_lucky13_pair_scores_both(first, second):
    g = Game(VEN, 1, 0, stack=[first, second], single_round=True)
    play(g, [hit(0), stay(0)])
    assert round_end(g)[2] == (26,)


def test_v5_two_ordinary_13s_bust():
    """V5: only the Lucky 13 allows a pair."""
    g = Game(VEN, 1, 0, stack=["13", "13"], single_round=True)
    play(g, [hit(0)])
    assert ("bust", 0, "13") in g.events


def test_v5_both_13s_count_toward_flip7():
    """V5/X8: the two 13s are two of the seven number cards."""
    g = Game(VEN, 1, 0, stack=["L13", "13", "1", "2", "3", "4", "5"], single_round=True)
    play(g, [hit(0)] * 6)
    assert g.over
    assert ("flip7", 0) in g.events
    assert round_end(g)[2] == (13 + 13 + 15 + 15,)


def test_v5_lucky13_pair_through_steal():
    """V5/V7: stealing the Lucky 13 onto a 13 does not bust."""
    g = Game(VEN, 2, 0, stack=["13", "L13", "STEAL"], single_round=True)
    play(g, [hit(1)])
    assert g.players[1].status == ACTIVE
    assert line(g, 1) == ["13", "L13"]


# ---------------------------------------------------------------- V6 modifiers, scoring
@pytest.mark.parametrize(
    "stack",
    [["9", "8", "/2", "-4"], ["9", "8", "-4", "/2"]],
    ids=["halve-then-minus", "minus-then-halve"],
)
def test_v6_scoring_order_halve_then_subtract(stack):
    """V6: 9 + 8 = 17 → ÷2 → 8 → −4 → 4, whatever the order the modifiers came in."""
    g = Game(VEN, 1, 0, stack=stack, single_round=True)
    play(g, [hit(0), hit(0), hit(0), stay(0)])
    assert round_end(g)[2] == (4,)


def test_v6_score_floored_at_zero_when_not_brutal():
    g = Game(VEN, 1, 0, stack=["3", "-10"], single_round=True)
    play(g, [hit(0), stay(0)])
    assert round_end(g)[2] == (0,)
    assert g.players[0].total == 0


@pytest.mark.parametrize(
    ("numbers", "mods", "flip7", "expected"),
    [
        (["9", "8"], ["/2", "-4"], False, 4),
        (["9", "8"], ["-4", "/2"], False, 4),
        (["7", "6"], ["/2"], False, 6),  # 13 ÷ 2 rounds down
        (["12"], ["/2", "-2", "-4"], False, 0),
        (["5"], ["-6"], False, 0),
        ([], ["-2"], False, 0),
        ([], ["/2"], False, 0),
        (["L13", "13"], [], False, 26),
        (["U7"], ["-2"], False, 5),
        (["0", "12"], [], False, 0),
        (["0", "12"], ["-2"], False, 0),
        (["0", "1", "2", "3", "4", "5", "6"], [], True, 21),  # +15 is added by the game
        (["0", "1", "2", "3", "4", "5", "12"], ["/2", "-10"], True, 3),
        (["0", "1", "2", "3", "4", "5", "6"], ["-10", "-8", "-6"], True, 0),
    ],
)
def test_v6_score_function(numbers, mods, flip7, expected):
    """V6: numbers → ÷2 (down) → minus cards → not below 0 → The Zero → 0 unless Flip 7."""
    assert VEN.score(_player(numbers, mods, flip7), VEN) == expected


def test_v6_modifier_given_to_a_stayed_player_and_to_oneself():
    """V6/V2: the receiver chooses any non-busted player, stayed ones and itself included."""
    g = Game(VEN, 2, 0, stack=["5", "6", "-2", "/2"], single_round=True)
    play(g, [stay(1), hit(0)])
    expect(g, GIVE_MODIFIER, 0, (1, 0))
    play(g, [give_mod(0, 1, "-2"), hit(0), give_mod(0, 0, "/2"), stay(0)])
    assert events_of(g, "modifier") == [("modifier", 0, "-2", 1), ("modifier", 0, "/2", 0)]
    assert round_end(g)[2] == (6 // 2, 5 - 2)


def test_v6_modifiers_never_bust_and_do_not_count_toward_flip7():
    g = Game(VEN, 1, 0, stack=["1", "2", "3", "4", "5", "/2", "-2", "6"], single_round=True)
    play(g, [hit(0)] * 7)
    p = g.players[0]
    assert p.status == ACTIVE and not p.flip7
    assert len(p.numbers) == 6 and len(p.modifiers) == 2
    play(g, [stay(0)])
    assert round_end(g)[2] == (21 // 2 - 2,)


def test_v6_busted_player_cannot_be_given_a_modifier_when_not_brutal():
    g = Game(VEN_ASK, 2, 0, stack=["5", "6", "5", "-8"], single_round=True)
    play(g, [hit(1), hit(0)])
    expect(g, GIVE_MODIFIER, 0, (0,))


# ---------------------------------------------------------------- V7 Just One More!
def test_v7_just_one_more_target_draws_one_then_stays_and_turns_go_on():
    """V7/B4d: the target draws one card then stays; play continues after the drawer."""
    g = Game(VEN, 3, 0, stack=["5", "6", "7", "JUST_ONE_MORE", "3"], single_round=True)
    play(g, [hit(1)])
    expect(g, CHOOSE_TARGET, 1, (1, 2, 0))
    play(g, [target(1, 0, "JUST_ONE_MORE")])
    assert after(g, ("action", 1, "JUST_ONE_MORE", 0)) == [
        ("action", 1, "JUST_ONE_MORE", 0),
        ("draw", 0, "3"),
        ("stay", 0),
    ]
    assert g.players[0].status == STAYED
    assert "JUST_ONE_MORE" in discard_labels(g)
    expect(g, HIT_OR_STAY, 2)  # the player after the drawer
    play(g, [stay(2), stay(1)])
    assert round_end(g)[2] == (10, 5, 6)


def test_v7_just_one_more_on_a_stayed_player():
    """V7/V2: on a stayed player the drawn card counts and the player stays stayed."""
    g = Game(VEN, 2, 0, stack=["5", "6", "JUST_ONE_MORE", "-4"], single_round=True)
    play(g, [stay(1), hit(0), target(0, 1)])
    # the target resolves the card it drew: seat 1 gives the −4
    expect(g, GIVE_MODIFIER, 1, (1, 0))
    play(g, [give_mod(1, 0, "-4")])
    assert g.players[1].status == STAYED
    assert events_of(g, "stay") == [("stay", 1)]
    play(g, [stay(0)])
    assert round_end(g)[2] == (2, 5)


def test_v7_just_one_more_bust_means_no_stay():
    g = Game(VEN, 2, 0, stack=["5", "6", "JUST_ONE_MORE", "6"], single_round=True)
    play(g, [hit(1), target(1, 0)])
    assert g.players[0].status == BUSTED
    assert events_of(g, "stay") == []
    assert g.events[-1] == ("bust", 0, "6")


# ---------------------------------------------------------------- V7 Flip Four!
def test_v7_flip_four_sets_aside_action_and_modifier_then_target_resolves_in_order():
    """V7: the action and modifier drawn are set aside, then resolved by the target in
    the order drawn, after the four draws."""
    g = Game(VEN, 2, 0, stack=["5", "6", "FLIP_FOUR", "1", "-4", "DISCARD", "2"], single_round=True)
    play(g, [hit(1)])
    expect(g, CHOOSE_TARGET, 1, (1, 0))
    play(g, [target(1, 0, "FLIP_FOUR")])
    expect(g, GIVE_MODIFIER, 0, (1, 0))
    assert sorted(c.label for c in g.limbo) == ["-4", "DISCARD", "FLIP_FOUR"]
    play(g, [give_mod(0, 1, "-4")])
    expect(g, DISCARD, 0, ((1, "5"), (1, "-4"), (0, "6"), (0, "1"), (0, "2")))
    play(g, [discard(0, 0, "1")])
    assert after(g, ("action", 1, "FLIP_FOUR", 0)) == [
        ("action", 1, "FLIP_FOUR", 0),
        ("draw", 0, "1"),
        ("set_aside", 0, "-4"),
        ("set_aside", 0, "DISCARD"),
        ("draw", 0, "2"),
        ("resolve", 0, "-4"),
        ("modifier", 0, "-4", 1),
        ("resolve", 0, "DISCARD"),
        ("discarded", 0, 0, "1"),
    ]
    assert g.limbo == []
    assert Counter(discard_labels(g)) == Counter(["1", "DISCARD", "FLIP_FOUR"])
    expect(g, HIT_OR_STAY, 0)  # next turn: the player after seat 1
    play(g, [stay(0), stay(1)])
    assert round_end(g)[2] == (6 + 2, 5 - 4)


def test_v7_flip_four_set_aside_order_is_the_draw_order():
    """V7: an action drawn before a modifier resolves first."""
    g = Game(VEN, 2, 0, stack=["5", "6", "FLIP_FOUR", "DISCARD", "3", "-4", "2"], single_round=True)
    play(g, [hit(1), target(1, 0), discard(0, 1, "5"), give_mod(0, 1, "-4")])
    resolved = [e[2] for e in events_of(g, "resolve")]
    assert resolved == ["DISCARD", "-4"]


def test_v7_flip_four_bust_discards_the_set_aside_cards():
    """V7: on bust the draws stop and the set-aside cards are discarded unresolved."""
    g = Game(
        VEN,
        2,
        0,
        stack=["5", "6", "FLIP_FOUR", "-4", "JUST_ONE_MORE", "6", "9"],
        single_round=True,
    )
    play(g, [hit(1), target(1, 0)])
    assert after(g, ("action", 1, "FLIP_FOUR", 0)) == [
        ("action", 1, "FLIP_FOUR", 0),
        ("set_aside", 0, "-4"),
        ("set_aside", 0, "JUST_ONE_MORE"),
        ("draw", 0, "6"),
        ("bust", 0, "6"),
        ("discard", "-4", "bust"),
        ("discard", "JUST_ONE_MORE", "bust"),
    ]
    assert g.players[0].status == BUSTED
    assert g.deck[-1].label == "9"  # the fourth card was never drawn
    assert g.limbo == []
    assert Counter(discard_labels(g)) == Counter(["-4", "JUST_ONE_MORE", "FLIP_FOUR"])
    expect(g, HIT_OR_STAY, 1)
    play(g, [stay(1)])
    assert round_end(g)[2] == (0, 5)


def test_v7_flip_four_target_busting_while_resolving_discards_the_rest():
    """V7: a set-aside Steal that busts the target discards the later set-aside cards."""
    g = Game(
        VEN,
        2,
        0,
        stack=["2", "6", "FLIP_FOUR", "STEAL", "-2", "2", "3", "4"],
        single_round=True,
    )
    play(g, [hit(1), target(1, 0)])  # the set-aside Steal has one option: seat 1's 2
    assert after(g, ("resolve", 0, "STEAL")) == [
        ("resolve", 0, "STEAL"),
        ("steal", 0, 1, "2"),
        ("bust", 0, "2"),
        ("discard", "-2", "bust"),
        ("draw", 1, "4"),  # seat 1 lost its only card: its HIT is forced
    ]
    assert g.players[0].status == BUSTED
    assert g.limbo == []
    expect(g, HIT_OR_STAY, 1, (HIT, STAY))
    assert line(g, 1) == ["4"]
    play(g, [stay(1)])
    assert round_end(g)[2] == (0, 4)


def test_v7_flip_four_on_a_stayed_target_keeps_it_stayed():
    """V7/V2: a stayed target draws its four cards and remains stayed."""
    g = Game(VEN, 2, 0, stack=["5", "6", "2", "FLIP_FOUR", "1", "3", "4", "8"], single_round=True)
    play(g, [hit(1), stay(0), hit(1), target(1, 0)])
    p = g.players[0]
    assert p.status == STAYED
    assert line(g, 0) == ["6", "1", "3", "4", "8"]
    expect(g, HIT_OR_STAY, 1)
    play(g, [stay(1)])
    assert round_end(g)[2] == (22, 7)


def test_v7_flip_four_flip7_discards_the_set_aside_cards_unresolved():
    """V7/X8: Flip 7 during Flip Four! ends the round; set-aside cards are not resolved."""
    stack = ["1", "2", "3", "4", "5", "FLIP_FOUR", "-2", "6", "7", "8"]
    g = Game(VEN, 1, 0, stack=stack, single_round=True)
    play(g, [hit(0)] * 5)  # the Flip Four! targets the only seat automatically
    assert g.over
    assert ("flip7", 0) in g.events
    assert not events_of(g, "resolve", "modifier")
    assert round_end(g)[2] == (28 + 15,)
    assert g.deck[-1].label == "8"
    assert "-2" in discard_labels(g)
    assert uids_ok(g)


def test_v7_flip_four_set_aside_inside_flip_four_is_resolved_by_the_target_afterwards():
    """V7: a Flip Four! drawn during a Flip Four! is set aside; after the four draws the
    target resolves it (choosing its target) and the inner sequence runs."""
    stack = ["5", "6", "FLIP_FOUR", "1", "FLIP_FOUR", "2", "3", "4", "7", "8", "9"]
    g = Game(VEN, 2, 0, stack=stack, single_round=True)
    play(g, [hit(1), target(1, 0, "FLIP_FOUR")])
    assert line(g, 0) == ["6", "1", "2", "3"]
    expect(g, CHOOSE_TARGET, 0, (1, 0))  # the target resolves the set-aside card
    play(g, [target(0, 1, "FLIP_FOUR")])
    assert after(g, ("resolve", 0, "FLIP_FOUR")) == [
        ("resolve", 0, "FLIP_FOUR"),
        ("action", 0, "FLIP_FOUR", 1),
        ("draw", 1, "4"),
        ("draw", 1, "7"),
        ("draw", 1, "8"),
        ("draw", 1, "9"),
    ]
    assert line(g, 1) == ["5", "4", "7", "8", "9"]
    assert g.limbo == []
    assert Counter(discard_labels(g)) == Counter(["FLIP_FOUR", "FLIP_FOUR"])
    expect(g, HIT_OR_STAY, 0)


def test_v7_just_one_more_dealt_to_an_undealt_player_who_is_then_skipped():
    """V7/X5: an action dealt is resolved at once; the Just One More! target draws, stays,
    and the deal skips it."""
    g = Game(VEN, 3, 0, stack=["JUST_ONE_MORE", "5", "6", "2"], single_round=True)
    expect(g, CHOOSE_TARGET, 1, (1, 2, 0))
    play(g, [target(1, 2, "JUST_ONE_MORE")])
    assert g.events[1:6] == [
        ("deal", 1, "JUST_ONE_MORE"),
        ("action", 1, "JUST_ONE_MORE", 2),
        ("draw", 2, "5"),
        ("stay", 2),
        ("deal", 0, "6"),
    ]
    assert g.players[2].status == STAYED
    # seat 1's line is empty: its HIT is forced and draws the 2; seat 2 gets no turn
    assert line(g, 1) == ["2"]
    expect(g, HIT_OR_STAY, 0)


# ---------------------------------------------------------------- V7 Steal
def test_v7_steal_duplicate_busts_thief():
    """V7/X7: a stolen number takes effect on arrival: a duplicate busts the thief."""
    g = Game(VEN, 2, 0, stack=["3", "3", "STEAL", "10"], single_round=True)
    play(g, [hit(1)])  # the only option: seat 0's 3
    assert after(g, ("draw", 1, "STEAL"))[:3] == [
        ("draw", 1, "STEAL"),
        ("steal", 1, 0, "3"),
        ("bust", 1, "3"),
    ]
    assert g.players[1].status == BUSTED
    assert line(g, 1) == ["3", "3"]
    assert line(g, 0) == ["10"]  # seat 0 lost its only card, so its HIT was forced
    assert "STEAL" in discard_labels(g)
    play(g, [stay(0)])
    assert round_end(g)[2] == (10, 0)


def test_v7_steal_takes_from_another_non_busted_player_stayed_included():
    """V7: Steal offers the face-up cards of other non-busted players only."""
    g = Game(VEN_ASK, 3, 0, stack=["4", "9", "-2", "4", "STEAL"], single_round=True)
    play(g, [give_mod(0, 0, "-2")])
    play(g, [hit(1)])
    assert g.players[1].status == BUSTED
    play(g, [stay(2), hit(0)])
    expect(g, STEAL, 0, ((2, "9"),))
    play(g, [steal(0, 2, "9")])
    assert line(g, 0) == ["9", "-2"] and line(g, 2) == []
    assert g.players[2].status == STAYED


def test_v7_steal_a_modifier():
    g = Game(VEN, 2, 0, stack=["5", "-6", "STEAL", "9"], single_round=True)
    play(g, [give_mod(0, 0, "-6"), hit(1)])
    assert line(g, 1) == ["5", "-6"] and line(g, 0) == ["9"]  # forced HIT: empty line
    assert ("steal", 1, 0, "-6") in g.events


def test_v7_steal_completes_flip7_out_of_turn_round_ends_and_others_bank():
    """V7/X8: a Steal during someone else's turn completes a stayed player's Flip 7; the
    round ends at once and every non-busted player banks (the active one too)."""
    stack = ["10", "1", "12", "FLIP_FOUR", "2", "3", "4", "5", "6", "11", "JUST_ONE_MORE", "STEAL"]
    g = Game(VEN, 3, 0, stack=stack, single_round=True)
    play(g, [hit(1), target(1, 2, "FLIP_FOUR"), hit(2), hit(0)])
    assert len(g.players[2].numbers) == 6
    play(g, [stay(1), stay(2), hit(0), target(0, 2, "JUST_ONE_MORE")])
    play(g, [steal(2, 0, "11")])
    assert g.over
    assert after(g, ("steal", 2, 0, "11")) == [
        ("steal", 2, 0, "11"),
        ("flip7", 2),
        ("round_end", 1, (12, 10, 32 + 15), (12, 10, 47)),
        ("game_over", (2,), (12, 10, 47)),
    ]
    assert g.players[0].status == ACTIVE  # banked as if it had stayed


def test_v7_first_card_of_the_round_steal_with_nobody_to_steal_from_is_discarded():
    """V7/X9/X5: a Steal dealt first has no legal target and is discarded."""
    g = Game(VEN, 2, 0, stack=["STEAL", "5", "3"], single_round=True)
    assert g.events[1:5] == [
        ("deal", 1, "STEAL"),
        ("discard", "STEAL", "no_target"),
        ("deal", 0, "5"),
        ("draw", 1, "3"),  # seat 1's line is empty: HIT is forced
    ]
    assert discard_labels(g) == ["STEAL"]
    assert g.limbo == []
    expect(g, HIT_OR_STAY, 0, (HIT, STAY))
    assert uids_ok(g)


def test_v7_steal_in_a_solo_game_is_discarded():
    """V7/X2: Steal takes from another player: alone there is none."""
    g = Game(VEN, 1, 0, stack=["5", "STEAL"], single_round=True)
    play(g, [hit(0)])
    assert ("discard", "STEAL", "no_target") in g.events
    assert line(g, 0) == ["5"]


# ---------------------------------------------------------------- V7 Swap
def test_v7_swap_busts_both_players():
    """V7: both cards arrive at once, then busts are checked: one Swap busts two."""
    g = Game(VEN, 3, 0, stack=["4", "4", "2", "6", "6", "SWAP"], single_round=True)
    play(g, [hit(1), hit(2), hit(0)])
    expect(
        g,
        SWAP,
        0,
        (
            ((1, "4"), (2, "4")),
            ((1, "4"), (2, "6")),
            ((1, "4"), (0, "2")),
            ((1, "6"), (2, "4")),
            ((1, "6"), (2, "6")),
            ((1, "6"), (0, "2")),
            ((2, "4"), (0, "2")),
            ((2, "6"), (0, "2")),
        ),
    )
    play(g, [swap(0, 1, "4", 2, "6")])
    assert after(g, ("swap", 0, 1, "4", 2, "6")) == [
        ("swap", 0, 1, "4", 2, "6"),
        ("bust", 1, None),
        ("bust", 2, None),
    ]
    assert g.players[1].status == BUSTED and g.players[2].status == BUSTED
    assert sorted(line(g, 1)) == ["6", "6"] and sorted(line(g, 2)) == ["4", "4"]
    assert uids_ok(g)
    play(g, [stay(0)])
    assert round_end(g)[2] == (2, 0, 0)


@pytest.mark.parametrize(
    ("other", "flip7"), [("2", True), ("3", False)], ids=["flip7", "bust-not-flip7"]
)
def test_v7_swap_then_flip7_unless_busted(other, flip7):
    """V7: after a Swap busts are checked before Flip 7; a busted player with seven
    numbers does not make Flip 7."""
    stack = ["1", other, "FLIP_FOUR", "3", "4", "5", "6", "-2", "8", "SWAP"]
    g = Game(VEN, 2, 0, stack=stack, single_round=True)
    play(g, [hit(1), target(1, 1), hit(0), give_mod(0, 1, "-2"), hit(1), hit(0)])
    play(g, [swap(0, 1, "-2", 0, other)])
    p = g.players[1]
    assert p.flip7 is flip7
    assert (p.status == BUSTED) is not flip7
    if flip7:
        assert g.over
        assert after(g, ("swap", 0, 1, "-2", 0, other))[:2] == [
            ("swap", 0, 1, "-2", 0, other),
            ("flip7", 1),
        ]
        assert round_end(g)[2] == (0, 29 + 15)  # seat 0 holds only the −2
    else:
        assert len(p.numbers) == 7
        assert ("bust", 1, None) in g.events and ("flip7", 1) not in g.events
        play(g, [stay(0)])
        assert round_end(g)[2] == (0, 0)


def test_v7_swap_with_one_player_holding_cards_is_discarded():
    g = Game(VEN, 2, 0, stack=["5", "SWAP"], single_round=True)
    assert ("discard", "SWAP", "no_target") in g.events


# ---------------------------------------------------------------- V7 Discard
def test_v7_discard_on_oneself():
    """V7: Discard may target the chooser's own line."""
    g = Game(VEN, 2, 0, stack=["5", "6", "DISCARD", "2"], single_round=True)
    play(g, [hit(1)])
    expect(g, DISCARD, 1, ((1, "5"), (0, "6")))
    play(g, [discard(1, 1, "5")])
    assert ("discarded", 1, 1, "5") in g.events
    assert line(g, 1) == []
    assert Counter(discard_labels(g)) == Counter(["5", "DISCARD"])
    play(g, [stay(0)])  # then seat 1 must hit (empty line) and draws the 2
    play(g, [stay(1)])
    assert round_end(g)[2] == (6, 2)


def test_v7_discard_a_stayed_players_modifier():
    g = Game(VEN, 2, 0, stack=["5", "6", "-4", "DISCARD"], single_round=True)
    play(g, [stay(1), hit(0), give_mod(0, 1, "-4"), hit(0), discard(0, 1, "-4"), stay(0)])
    assert round_end(g)[2] == (6, 5)


# ---------------------------------------------------------------- V7 actions on oneself
def test_v7_actions_may_target_the_chooser():
    g = Game(VEN, 2, 0, stack=["5", "6", "FLIP_FOUR", "1", "2", "3", "4"], single_round=True)
    play(g, [hit(1), target(1, 1, "FLIP_FOUR")])
    assert line(g, 1) == ["5", "1", "2", "3", "4"]
    assert g.players[1].status == ACTIVE


# ---------------------------------------------------------------- V8 Brutal
def test_v8_round_score_and_total_may_go_below_zero():
    """V8: no floor at 0; the game total goes negative and the game goes on."""
    g = Game(BRUTAL, 1, 0, stack=["3", "-10"])
    play(g, [hit(0), stay(0)])
    assert round_end(g, 1)[2:] == ((-7,), (-7,))
    assert g.players[0].total == -7
    assert not g.over


@pytest.mark.parametrize(
    ("rules", "expected"), [(BRUTAL, -6), (VEN, 0)], ids=["brutal", "not-brutal"]
)
def test_v8_busted_player_scores_the_total_of_its_minus_cards(rules, expected):
    """V8: in Brutal a busted player scores its minus cards (÷2 is ignored); else 0."""
    g = Game(rules, 2, 0, stack=["5", "6", "-4", "-2", "/2", "5"], single_round=True)
    play(g, [hit(1), give_mod(1, 1, "-4"), hit(0), give_mod(0, 1, "-2")])
    play(g, [hit(1), give_mod(1, 1, "/2"), stay(0), hit(1)])
    assert g.players[1].status == BUSTED
    assert round_end(g)[2] == (6, expected)


def test_v8_busted_player_without_minus_cards_scores_zero():
    g = Game(BRUTAL, 2, 0, stack=["5", "6", "5"], single_round=True)
    play(g, [hit(1), stay(0)])
    assert round_end(g)[2] == (6, 0)


def test_v8_modifiers_may_be_given_to_busted_players():
    """V8: in Brutal a busted player is a legal modifier target."""
    g = Game(BRUTAL, 2, 0, stack=["5", "6", "5", "-8"], single_round=True)
    play(g, [hit(1), hit(0)])
    assert g.players[1].status == BUSTED
    expect(g, GIVE_MODIFIER, 0, (1, 0))
    play(g, [give_mod(0, 1, "-8"), stay(0)])
    assert line(g, 0) == []
    assert round_end(g)[2:] == ((6, -8), (6, -8))


def test_v8_actions_still_cannot_target_busted_players():
    """V8 only widens modifier targets; actions still skip busted players (V7)."""
    g = Game(BRUTAL_ASK, 2, 0, stack=["5", "6", "5", "JUST_ONE_MORE"], single_round=True)
    play(g, [hit(1), hit(0)])
    expect(g, CHOOSE_TARGET, 0, (0,))


def test_v8_the_zero_makes_a_non_busted_score_0_but_not_a_busted_one():
    """V8: The Zero's 0 applies to non-busted players only: a busted Zero holder still
    scores its minus cards."""
    assert BRUTAL.score(_player(["0", "3"], ["-10"]), BRUTAL) == 0
    g = Game(BRUTAL, 2, 0, stack=["0", "6", "-2", "3", "3"], single_round=True)
    # seat 1 holds The Zero, so all its HITs are forced
    play(g, [give_mod(1, 1, "-2"), stay(0)])
    assert g.over
    assert ("bust", 1, "3") in g.events
    assert round_end(g)[2] == (6, -2)


@pytest.mark.parametrize(
    ("numbers", "mods", "expected"),
    [
        (["5"], ["-6"], -1),
        ([], ["-2"], -2),
        ([], ["/2", "-4"], -4),
        (["12"], ["/2", "-2", "-4"], 0),
        (["9", "8"], ["/2", "-10"], -2),
        (["0", "12"], ["-4"], 0),
    ],
)
def test_v8_brutal_score_function(numbers, mods, expected):
    assert BRUTAL.score(_player(numbers, mods), BRUTAL) == expected


def _brutal_flip7_game(rules=BRUTAL) -> Game:
    """Seat 1 reaches Flip 7 (1 … 7 = 28) while seat 0 stayed on 10."""
    stack = ["1", "10", "FLIP_FOUR", "2", "3", "4", "5", "6", "7"]
    g = Game(rules, 2, 0, stack=stack, single_round=True)
    play(g, [hit(1), target(1, 1, "FLIP_FOUR"), stay(0), hit(1), hit(1)])
    assert ("flip7", 1) in g.events
    return g


def test_v8_flip7_bonus_plus_15_for_oneself():
    g = _brutal_flip7_game()
    expect(g, FLIP7_BONUS, 1, (-1, 0))
    play(g, [bonus(1, -1)])
    assert g.over
    assert events_of(g, "flip7_penalty") == []
    assert round_end(g)[2:] == ((10, 28 + 15), (10, 43))


def test_v8_flip7_minus_15_to_another_players_total():
    """V8: no bonus for the Flip 7 player; the victim's round score is unchanged and 15
    is taken from its total when the round is scored (here going below 0)."""
    g = _brutal_flip7_game()
    play(g, [bonus(1, 0)])
    assert ("flip7_penalty", 1, 0) in g.events
    assert round_end(g)[2:] == ((10, 28), (10 - 15, 28))
    assert g.players[0].total == -5
    assert g.players[0].penalty == 0  # applied once


def test_v8_flip7_penalty_may_hit_a_busted_player_and_carries_over_totals():
    """V8: the −15 choice is offered for every other seat; totals carry across rounds."""
    stack = ["1", "5", "10", "FLIP_FOUR", "2", "3", "4", "5", "5", "6", "7"]
    g = Game(BRUTAL, 3, 0, stack=stack)
    g.players[2].total = 8
    play(g, [hit(1), target(1, 1), hit(2), stay(0), hit(1)])
    assert g.players[2].status == BUSTED
    play(g, [hit(1)])
    expect(g, FLIP7_BONUS, 1, (-1, 2, 0))
    play(g, [bonus(1, 2)])
    assert round_end(g, 1)[2:] == ((10, 28, 0), (10, 28, 8 - 15))
    assert not g.over


def test_v8_not_brutal_flip7_always_takes_the_bonus():
    g = _brutal_flip7_game(VEN)
    assert g.over
    assert not events_of(g, "flip7_penalty")
    assert round_end(g)[2] == (10, 43)
