"""Rules B1–B7 of docs/rules.md (the base game) on stacked decks.

Unless said otherwise: 3 seats, dealer 0, so the order is 1, 2, 0 and the deal
``["9", "8", "7", ...]`` gives seat 1 a 9, seat 2 an 8 and seat 0 a 7.
"""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import (
    ASK_ALL,
    BASE,
    events_of,
    expect,
    give,
    hit,
    labels,
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
    FROZEN,
    GIVE_SECOND_CHANCE,
    HIT_OR_STAY,
    STAYED,
    Game,
    Player,
)
from engine.cards import ACTION, MODIFIER, NUMBER

DEAL = ["9", "8", "7"]


def after(g: Game, first: tuple) -> list[tuple]:
    """The events from ``first`` (inclusive) on."""
    return g.events[g.events.index(first) :]


# ---------------------------------------------------------------- B1 deck
def test_b1_deck_has_94_cards_of_the_official_composition():
    """B1: 79 numbers (one 0, n copies of n), 3 of each action, one of each modifier."""
    cards = BASE.cards
    assert len(cards) == BASE.deck_size == 94
    assert [c.uid for c in cards] == list(range(94))
    count = Counter(c.label for c in cards)
    expected = {"0": 1, **{str(n): n for n in range(1, 13)}}
    expected.update({"+2": 1, "+4": 1, "+6": 1, "+8": 1, "+10": 1, "x2": 1})
    expected.update({"FREEZE": 3, "FLIP_THREE": 3, "SECOND_CHANCE": 3})
    assert count == expected
    kinds = Counter(c.kind for c in cards)
    assert kinds == {NUMBER: 79, MODIFIER: 6, ACTION: 9}
    assert all(c.value == int(c.label) for c in cards if c.kind == NUMBER)


def test_b1_a_new_game_shuffles_the_whole_deck():
    """B1/X4: a game starts with all 94 cards; different seeds give different orders."""
    a, b = Game(BASE, 2, 1), Game(BASE, 2, 2)
    assert len(a.all_cards()) == 94
    assert Counter(labels(a.all_cards())) == Counter(labels(BASE.cards))
    assert labels(a.deck) != labels(b.deck)


# ---------------------------------------------------------------- B2 active
def test_b2_active_until_stay_freeze_or_bust():
    """B2: a player is active until they stay, are frozen or bust."""
    g = Game(BASE, 4, 0, stack=["5", "6", "7", "8", "5", "FREEZE"], single_round=True)
    assert all(p.status == ACTIVE for p in g.players)
    play(g, [stay(1)])
    assert g.players[1].status == STAYED
    play(g, [hit(2)])  # 2 ← 5: no duplicate, still active
    assert g.players[2].status == ACTIVE
    play(g, [hit(3), target(3, 0)])  # 3 ← FREEZE on 0
    assert g.players[0].status == FROZEN
    assert g.players[3].status == ACTIVE
    g2 = Game(BASE, 2, 0, stack=["5", "6", "5"])
    play(g2, [hit(1)])
    assert g2.players[1].status == BUSTED


# ---------------------------------------------------------------- B3 Freeze
def test_b3_freeze_target_stays_and_banks_their_line():
    """B3: the frozen player stays at once and banks their line; the Freeze is discarded."""
    g = Game(BASE, 3, 0, stack=[*DEAL, "+4", "FREEZE"], single_round=True)
    play(g, [hit(1), hit(2)])
    expect(g, CHOOSE_TARGET, 2, options=(1, 2, 0))  # themselves allowed
    play(g, [target(2, 1, "FREEZE")])
    assert after(g, ("draw", 2, "FREEZE"))[:3] == [
        ("draw", 2, "FREEZE"),
        ("action", 2, "FREEZE", 1),
        ("frozen", 1),
    ]
    assert g.players[1].status == FROZEN
    assert labels(g.discard) == ["FREEZE"] and g.limbo == []
    assert line(g, 2) == ["8"]  # the Freeze is not part of the receiver's line
    expect(g, HIT_OR_STAY, 0)  # the turn passes on
    play(g, [stay(0), stay(2)])
    assert round_end(g)[2] == (7, 9 + 4, 8)


def test_b3_freeze_oneself():
    """B3: the receiver may freeze themselves, banking their own line."""
    g = Game(BASE, 3, 0, stack=[*DEAL, "FREEZE"], single_round=True)
    play(g, [hit(1), target(1, 1)])
    assert g.players[1].status == FROZEN
    play(g, [stay(2), stay(0)])
    assert round_end(g)[2] == (7, 9, 8)


def test_b3_freeze_on_empty_line_banks_zero():
    """B3: a frozen player with an empty line banks 0."""
    g = Game(BASE, 2, 0, stack=["FREEZE", "5"], single_round=True)
    play(g, [target(1, 0)])
    assert g.players[0].status == FROZEN and line(g, 0) == []
    play(g, [stay(1)])
    assert round_end(g)[2] == (0, 5)


# ---------------------------------------------------------------- B4 Flip Three
def test_b4_flip_three_target_draws_three_without_being_asked():
    """B4: the chosen target draws three cards at once; they cannot stay part-way."""
    g = Game(ASK_ALL, 3, 0, stack=[*DEAL, "FLIP_THREE", "1", "2", "3", "4"])
    play(g, [hit(1)])
    expect(g, CHOOSE_TARGET, 1, options=(1, 2, 0))
    play(g, [target(1, 0, "FLIP_THREE")])
    assert after(g, ("action", 1, "FLIP_THREE", 0))[1:] == [
        ("draw", 0, "1"),
        ("draw", 0, "2"),
        ("draw", 0, "3"),
    ]
    assert line(g, 0) == ["7", "1", "2", "3"]
    expect(g, HIT_OR_STAY, 2)  # no decision in between; next turn is seat 2 (B4d)


def test_b4_flip_three_stops_early_on_bust():
    """B4: the sequence stops at a bust; the remaining card stays on the deck."""
    g = Game(BASE, 3, 0, stack=[*DEAL, "FLIP_THREE", "1", "7", "2"])
    play(g, [hit(1), target(1, 0)])
    assert g.players[0].status == BUSTED
    assert line(g, 0) == ["7", "1", "7"]
    play(g, [hit(2)])
    assert ("draw", 2, "2") in g.events


def test_b4a_freeze_set_aside_then_assigned():
    """B4a: a Freeze drawn during Flip Three is set aside (not applied), then assigned by
    the target after the draws, then resolved."""
    g = Game(BASE, 3, 0, stack=[*DEAL, "FLIP_THREE", "FREEZE", "1", "2"])
    play(g, [hit(1), target(1, 2, "FLIP_THREE")])
    # all three draws are done; the Freeze waits in limbo, nobody is frozen yet
    expect(g, CHOOSE_TARGET, 2, options=(1, 2, 0))
    assert g.decision.card == "FREEZE"
    assert sorted(labels(g.limbo)) == ["FLIP_THREE", "FREEZE"]
    assert all(p.status == ACTIVE for p in g.players)
    assert line(g, 2) == ["8", "1", "2"]
    assert events_of(g, "frozen") == []
    play(g, [target(2, 0, "FREEZE")])
    assert after(g, ("set_aside", 2, "FREEZE")) == [
        ("set_aside", 2, "FREEZE"),
        ("draw", 2, "1"),
        ("draw", 2, "2"),
        ("assign", 2, "FREEZE", 0),
        ("action", 2, "FREEZE", 0),
        ("frozen", 0),
    ]
    assert g.players[0].status == FROZEN
    assert sorted(labels(g.discard)) == ["FLIP_THREE", "FREEZE"] and g.limbo == []
    expect(g, HIT_OR_STAY, 2)  # B4d: the turn after seat 1's


def test_b4a_all_assigned_first_in_draw_order_then_resolved_inactive_assignee_discarded():
    """B4a: set-aside cards are all assigned (in draw order) before any resolves; a card
    whose assignee is no longer active when it resolves is discarded."""
    g = Game(BASE, 3, 0, stack=[*DEAL, "FLIP_THREE", "FREEZE", "1", "FREEZE"])
    play(g, [hit(1), target(1, 2)])
    play(g, [target(2, 0, "FREEZE")])
    expect(g, CHOOSE_TARGET, 2)  # second assignment: the first Freeze has not resolved
    assert g.players[0].status == ACTIVE
    play(g, [target(2, 0, "FREEZE")])
    assert after(g, ("assign", 2, "FREEZE", 0)) == [
        ("assign", 2, "FREEZE", 0),
        ("assign", 2, "FREEZE", 0),
        ("action", 2, "FREEZE", 0),
        ("frozen", 0),
        ("discard", "FREEZE", "inactive"),
    ]
    assert Counter(labels(g.discard)) == {"FREEZE": 2, "FLIP_THREE": 1}


def test_b4a_flip_three_inside_flip_three():
    """B4a: a Flip Three drawn during a Flip Three is set aside, assigned, then runs its own
    full sequence (with its own set-aside card) before the outer list continues."""
    stack = [*DEAL, "FLIP_THREE", "FLIP_THREE", "FREEZE", "1", "3", "FREEZE", "4"]
    g = Game(BASE, 3, 0, stack=stack)
    play(g, [hit(1), target(1, 2)])
    play(g, [target(2, 0, "FLIP_THREE"), target(2, 1, "FREEZE")])
    # inner sequence on seat 0: 3, FREEZE (set aside), 4; seat 0 assigns it to seat 2
    play(g, [target(0, 2, "FREEZE")])
    assert after(g, ("action", 1, "FLIP_THREE", 2)) == [
        ("action", 1, "FLIP_THREE", 2),
        ("set_aside", 2, "FLIP_THREE"),
        ("set_aside", 2, "FREEZE"),
        ("draw", 2, "1"),
        ("assign", 2, "FLIP_THREE", 0),
        ("assign", 2, "FREEZE", 1),
        ("action", 2, "FLIP_THREE", 0),  # inner sequence runs to completion ...
        ("draw", 0, "3"),
        ("set_aside", 0, "FREEZE"),
        ("draw", 0, "4"),
        ("assign", 0, "FREEZE", 2),
        ("action", 0, "FREEZE", 2),
        ("frozen", 2),
        ("action", 2, "FREEZE", 1),  # ... before the outer list continues
        ("frozen", 1),
    ]
    assert line(g, 0) == ["7", "3", "4"]
    assert [p.status for p in g.players] == [ACTIVE, FROZEN, FROZEN]
    assert Counter(labels(g.discard)) == {"FLIP_THREE": 2, "FREEZE": 2}
    assert g.limbo == []
    expect(g, HIT_OR_STAY, 0)  # seat 2 (next after 1) is frozen; seat 0's turn


def test_b4b_bust_during_flip_three_discards_set_aside_cards():
    """B4b: on bust the sequence's unassigned set-aside cards are discarded unresolved."""
    g = Game(BASE, 3, 0, stack=[*DEAL, "FLIP_THREE", "FREEZE", "8", "1"])
    play(g, [hit(1), target(1, 2)])
    assert after(g, ("set_aside", 2, "FREEZE")) == [
        ("set_aside", 2, "FREEZE"),
        ("draw", 2, "8"),
        ("bust", 2, "8"),
        ("discard", "FREEZE", "bust"),
    ]
    assert g.players[2].status == BUSTED
    assert line(g, 2) == ["8", "8"]
    assert events_of(g, "assign", "frozen") == []
    assert sorted(labels(g.discard)) == ["FLIP_THREE", "FREEZE"] and g.limbo == []
    play(g, [hit(0)])  # the third card was never drawn
    assert ("draw", 0, "1") in g.events


def test_b4b_outer_assigned_card_still_resolves_after_inner_bust():
    """B4b: an inner bust discards only the inner sequence's set-aside cards; a card the
    outer sequence already assigned still resolves for its (active) assignee."""
    stack = [*DEAL, "FLIP_THREE", "FLIP_THREE", "FREEZE", "1", "FREEZE", "7"]
    g = Game(BASE, 3, 0, stack=stack)
    play(g, [hit(1), target(1, 2)])
    play(g, [target(2, 0, "FLIP_THREE"), target(2, 1, "FREEZE")])
    assert after(g, ("action", 2, "FLIP_THREE", 0)) == [
        ("action", 2, "FLIP_THREE", 0),
        ("set_aside", 0, "FREEZE"),
        ("draw", 0, "7"),
        ("bust", 0, "7"),
        ("discard", "FREEZE", "bust"),
        ("action", 2, "FREEZE", 1),
        ("frozen", 1),
    ]
    assert [p.status for p in g.players] == [BUSTED, FROZEN, ACTIVE]


def test_b4b_outer_card_for_busted_assignee_is_discarded():
    """B4a/B4b: the outer Freeze was assigned to the player who then busts in the inner
    sequence: it is discarded when its turn to resolve comes."""
    stack = [*DEAL, "FLIP_THREE", "FLIP_THREE", "FREEZE", "1", "7"]
    g = Game(BASE, 3, 0, stack=stack)
    play(g, [hit(1), target(1, 2)])
    play(g, [target(2, 0, "FLIP_THREE"), target(2, 0, "FREEZE")])
    assert after(g, ("action", 2, "FLIP_THREE", 0)) == [
        ("action", 2, "FLIP_THREE", 0),
        ("draw", 0, "7"),
        ("bust", 0, "7"),
        ("discard", "FREEZE", "inactive"),
    ]
    assert events_of(g, "frozen") == []


def test_b4b_flip7_during_nested_flip_three_discards_everything_pending():
    """B4b/X8: Flip 7 inside an inner Flip Three ends the round: the outer sequence's
    assigned-but-unresolved Freeze is discarded, others bank, only the Flip 7 gets +15."""
    stack = [
        "12",
        "11",
        "0",
        "+2",
        "1",
        "+4",
        "2",
        "+6",
        "3",
        "+8",
        "4",
        "+10",
        "5",
        "FLIP_THREE",
        "FLIP_THREE",
        "FREEZE",
        "10",
        "6",
        "9",
    ]
    g = Game(BASE, 3, 0, stack=stack)
    play(g, [stay(1)] + [hit(2), hit(0)] * 5 + [hit(2)])
    assert len(g.players[0].numbers) == 6
    play(g, [target(2, 2, "FLIP_THREE")])
    play(g, [target(2, 0, "FLIP_THREE"), target(2, 2, "FREEZE")])
    assert after(g, ("action", 2, "FLIP_THREE", 0))[:4] == [
        ("action", 2, "FLIP_THREE", 0),
        ("draw", 0, "6"),
        ("flip7", 0),
        ("round_end", 1, (21 + 15, 12, 21 + 30), (36, 12, 51)),
    ]
    r1 = g.events[: g.events.index(("round_start", 2, 1))]
    assert ("frozen", 2) not in r1
    assert g.limbo == []
    assert Counter(c.label for c in g.discard if c.kind == ACTION) == {"FLIP_THREE": 2, "FREEZE": 1}
    # the inner sequence's other two draws never happened: 9 is dealt first in round 2
    assert after(g, ("round_start", 2, 1))[1] == ("deal", 2, "9")


def test_b4c_second_chance_drawn_during_flip_three_saves_target_later():
    """B4c: a Second Chance drawn in a Flip Three is kept at once and can absorb a
    duplicate later in the same sequence (the duplicate counts as one of the three)."""
    g = Game(BASE, 3, 0, stack=[*DEAL, "FLIP_THREE", "SECOND_CHANCE", "5", "8", "1"])
    play(g, [hit(1), target(1, 2)])
    assert after(g, ("action", 1, "FLIP_THREE", 2))[1:] == [
        ("draw", 2, "SECOND_CHANCE"),
        ("draw", 2, "5"),
        ("draw", 2, "8"),
        ("second_chance_used", 2, "8"),
    ]
    assert g.players[2].status == ACTIVE
    assert line(g, 2) == ["8", "5"]
    assert sorted(labels(g.discard)) == ["8", "FLIP_THREE", "SECOND_CHANCE"]
    play(g, [hit(2)])  # the sequence ended after three draws: seat 2 now draws the 1
    assert ("draw", 2, "1") in g.events


def test_b4c_second_chance_drawn_during_flip_three_passed_on_when_held():
    """B4c/B5: the target already holds one; the drawn Second Chance is given at once."""
    g = Game(
        ASK_ALL, 3, 0, stack=["9", "SECOND_CHANCE", "7", "FLIP_THREE", "SECOND_CHANCE", "5", "6"]
    )
    play(g, [hit(1), target(1, 2)])
    expect(g, GIVE_SECOND_CHANCE, 2, options=(1, 0))
    play(g, [give(2, 0)])
    assert after(g, ("draw", 2, "SECOND_CHANCE")) == [
        ("draw", 2, "SECOND_CHANCE"),
        ("second_chance_given", 2, 0),
        ("draw", 2, "5"),
        ("draw", 2, "6"),
    ]
    assert line(g, 0) == ["7", "SECOND_CHANCE"]
    assert line(g, 2) == ["5", "6", "SECOND_CHANCE"]


def test_b4d_flip_three_discarded_and_next_turn_after_the_drawer():
    """B4d: the Flip Three goes to the discard pile; the next turn belongs to the player
    after the one who drew it, not after the target."""
    g = Game(BASE, 4, 0, stack=["9", "8", "7", "6", "FLIP_THREE", "1", "2", "3"])
    play(g, [hit(1), target(1, 3)])
    assert labels(g.discard) == ["FLIP_THREE"]
    expect(g, HIT_OR_STAY, 2)


# ---------------------------------------------------------------- B5 Second Chance
def test_b5_second_chance_is_kept_in_front_of_the_player():
    """B5: a Second Chance stays in the receiver's line and scores nothing."""
    g = Game(BASE, 2, 0, stack=["5", "6", "SECOND_CHANCE"], single_round=True)
    play(g, [hit(1)])
    assert labels(g.players[1].extras) == ["SECOND_CHANCE"]
    assert line(g, 1) == ["5", "SECOND_CHANCE"]
    play(g, [stay(0), stay(1)])
    assert round_end(g)[2] == (6, 5)
    assert "SECOND_CHANCE" in labels(g.discard)  # discarded unused at round end


def test_b5_second_second_chance_must_be_given_to_an_active_player_without_one():
    """B5: a second Second Chance goes to another active player who has none."""
    g = Game(ASK_ALL, 4, 0, stack=["SECOND_CHANCE", "SECOND_CHANCE", "5", "6", "SECOND_CHANCE"])
    play(g, [hit(1)])
    # seat 1 holds one (not themselves), seat 2 holds one: only 3 and 0 qualify
    expect(g, GIVE_SECOND_CHANCE, 1, options=(3, 0))
    # while the giver chooses, the card is held in limbo (every card stays accounted for)
    assert labels(g.limbo) == ["SECOND_CHANCE"]
    assert uids_ok(g)
    play(g, [give(1, 3)])
    assert g.limbo == [] and uids_ok(g)
    assert ("second_chance_given", 1, 3) in g.events
    assert line(g, 3) == ["5", "SECOND_CHANCE"]
    assert line(g, 1) == ["SECOND_CHANCE"]


def test_b5_second_second_chance_skips_inactive_players():
    """B5: a stayed player does not qualify; with one taker left it is given automatically."""
    g = Game(BASE, 3, 0, stack=["SECOND_CHANCE", "5", "6", "SECOND_CHANCE"])
    play(g, [hit(1)])  # nobody stayed yet: seats 2 and 0 qualify, seat 1 is asked
    expect(g, GIVE_SECOND_CHANCE, 1, options=(2, 0))
    g = Game(BASE, 3, 0, stack=["5", "6", "SECOND_CHANCE", "7", "SECOND_CHANCE"])
    play(g, [hit(1), stay(2), hit(0)])  # 0 ← 2nd SC; 2 stayed, so only 1 qualifies
    assert ("second_chance_given", 0, 1) in g.events
    assert line(g, 1) == ["5", "7", "SECOND_CHANCE"]
    assert line(g, 2) == ["6"]


def test_b5_second_second_chance_discarded_when_nobody_qualifies():
    """B5: if no other active player lacks one, the second Second Chance is discarded."""
    g = Game(BASE, 2, 0, stack=["SECOND_CHANCE", "SECOND_CHANCE", "SECOND_CHANCE"])
    play(g, [hit(1)])
    assert after(g, ("draw", 1, "SECOND_CHANCE"))[:2] == [
        ("draw", 1, "SECOND_CHANCE"),
        ("discard", "SECOND_CHANCE", "no_target"),
    ]
    assert line(g, 1) == ["SECOND_CHANCE"] and line(g, 0) == ["SECOND_CHANCE"]
    assert labels(g.discard) == ["SECOND_CHANCE"]
    expect(g, HIT_OR_STAY, 0)


def test_b5_duplicate_with_second_chance_discards_both_and_ends_turn():
    """B5: holding a Second Chance, a duplicate is discarded with it: no bust, turn over."""
    g = Game(
        BASE, 3, 0, stack=["5", "9", "7", "SECOND_CHANCE", "1", "2", "5", "5"], single_round=True
    )
    play(g, [hit(1), hit(2), hit(0), hit(1)])
    assert after(g, ("draw", 1, "5")) == [("draw", 1, "5"), ("second_chance_used", 1, "5")]
    assert g.players[1].status == ACTIVE
    assert line(g, 1) == ["5"] and g.players[1].extras == []
    assert sorted(labels(g.discard)) == ["5", "SECOND_CHANCE"]
    expect(g, HIT_OR_STAY, 2)  # the turn ended
    play(g, [stay(2), stay(0), hit(1)])  # without a Second Chance the next 5 busts
    assert g.players[1].status == BUSTED
    assert round_end(g)[2] == (9, 0, 9 + 1)


def test_b5_duplicate_counts_as_one_of_the_three_in_flip_three():
    """B5: during a Flip Three the absorbed duplicate is one of the three draws."""
    stack = [*DEAL, "1", "SECOND_CHANCE", "FLIP_THREE", "8", "2", "3", "4"]
    g = Game(BASE, 3, 0, stack=stack)
    play(g, [hit(1), hit(2), hit(0)])  # 2 ← SECOND_CHANCE (holding 8); 0 ← FLIP_THREE
    assert line(g, 2) == ["8", "SECOND_CHANCE"]
    play(g, [target(0, 2, "FLIP_THREE")])
    assert after(g, ("action", 0, "FLIP_THREE", 2))[1:] == [
        ("draw", 2, "8"),
        ("second_chance_used", 2, "8"),
        ("draw", 2, "2"),
        ("draw", 2, "3"),
    ]
    assert line(g, 2) == ["8", "2", "3"]
    play(g, [hit(1)])  # the sequence took three cards: the 4 is still on the deck
    assert ("draw", 1, "4") in g.events


def test_b5_second_chance_does_not_stop_a_freeze():
    """B5: a held Second Chance does not protect against a Freeze; it scores nothing."""
    g = Game(BASE, 2, 0, stack=["SECOND_CHANCE", "4", "5", "FREEZE"], single_round=True)
    play(g, [hit(1), hit(0), target(0, 1)])
    assert g.players[1].status == FROZEN
    assert line(g, 1) == ["5", "SECOND_CHANCE"]
    play(g, [stay(0)])
    assert round_end(g)[2] == (4, 5)
    assert "SECOND_CHANCE" in labels(g.discard)


# ---------------------------------------------------------------- B6 modifiers
def test_b6_modifiers_never_bust_and_do_not_count_towards_flip7():
    """B6: six modifiers plus six numbers is not Flip 7; the seventh number is.
    B7: (1+…+7)×2 + 30 + 15 = 101."""
    stack = ["1", "+2", "2", "+4", "3", "+6", "4", "+8", "5", "+10", "6", "x2", "7"]
    g = Game(BASE, 1, 0, stack=stack, single_round=True)
    play(g, [hit(0)] * 11)
    p = g.players[0]
    assert len(p.numbers) == 6 and len(p.modifiers) == 6
    assert p.status == ACTIVE and not p.flip7
    assert events_of(g, "bust") == []
    play(g, [hit(0)])
    assert p.flip7 and g.over
    assert round_end(g) == ("round_end", 1, (101,), (101,))


# ---------------------------------------------------------------- B7 scoring
def test_b7_x2_doubles_numbers_before_plus_modifiers():
    """B7: 5, 7, ×2, +4 scores (5+7)×2+4 = 28, not (5+7+4)×2 = 32."""
    g = Game(BASE, 1, 0, stack=["5", "7", "x2", "+4"], single_round=True)
    play(g, [hit(0), hit(0), hit(0), stay(0)])
    assert g.players[0].round_score == 28
    assert round_end(g) == ("round_end", 1, (28,), (28,))


def test_b7_x2_order_in_line_does_not_matter():
    """B7: ×2 received before the numbers and + cards still doubles only the numbers."""
    g = Game(BASE, 1, 0, stack=["x2", "+4", "5", "7"], single_round=True)
    play(g, [hit(0), hit(0), hit(0), stay(0)])
    assert g.players[0].round_score == 28


def test_b7_line_of_modifiers_only_scores_its_plus_cards():
    """B7: +4, ×2, +10 with no numbers scores 14."""
    g = Game(BASE, 1, 0, stack=["+4", "x2", "+10"], single_round=True)
    play(g, [hit(0), hit(0), stay(0)])
    assert round_end(g)[2] == (14,)


def _card(label: str):
    return next(c for c in BASE.cards if c.label == label)


@pytest.mark.parametrize(
    ("numbers", "mods", "expected"),
    [
        (["5", "7"], ["x2", "+4"], 28),
        (["5", "7"], ["+4", "x2"], 28),
        ([], ["+4", "x2", "+10"], 14),
        ([], ["x2"], 0),
        (["0"], ["x2", "+2"], 2),
        (["12", "11", "10"], [], 33),
        (["12"], ["+2", "+4", "+6", "+8", "+10", "x2"], 54),
    ],
)
def test_b7_score_function(numbers, mods, expected):
    """B7: sum of numbers → ×2 → + modifiers (the Flip 7 bonus is added by the game)."""
    p = Player(0)
    for label in numbers:
        p.add_number(_card(label))
    p.modifiers.extend(_card(label) for label in mods)
    assert BASE.score(p, BASE) == expected


def test_b7_busted_player_scores_zero_whatever_the_line():
    """B7/X7: only non-busted players score."""
    g = Game(BASE, 2, 0, stack=["12", "3", "x2", "+10", "12"], single_round=True)
    play(g, [hit(1), hit(0), hit(1)])
    assert g.players[1].status == BUSTED
    play(g, [stay(0)])
    assert round_end(g)[2] == (3 + 10, 0)
