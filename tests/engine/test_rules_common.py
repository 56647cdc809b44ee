"""Rules X1–X10 of docs/rules.md (common to both games), checked on the base game with
stacked decks. Seat order with 3 seats and dealer 0 is 1, 2, 0 (dealer last)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from helpers import (
    ASK_ALL,
    BASE,
    answer,
    deck_multiset,
    events_of,
    expect,
    finish,
    hit,
    labels,
    line,
    play,
    random_policy,
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
    HIT,
    HIT_OR_STAY,
    STAY,
    STAYED,
    Game,
    GameOver,
    IllegalChoice,
)


# ---------------------------------------------------------------- X1 goal
def test_x1_single_leader_at_or_above_target_wins():
    """X1: after a round, a total ≥ 200 ends the game; the highest total wins."""
    g = Game(BASE, 2, 0, stack=["10", "3"])
    g.players[0].total = 150
    g.players[1].total = 190
    play(g, [stay(1), stay(0)])
    assert g.over and g.decision is None
    assert round_end(g) == ("round_end", 1, (3, 10), (153, 200))
    assert g.winners == (1,)
    assert g.ranks == (2, 1)
    assert g.events[-1] == ("game_over", (1,), (153, 200))


def test_x1_below_target_the_game_goes_on():
    """X1: with every total below 200 another round starts."""
    g = Game(BASE, 2, 0, stack=["10", "3"])
    play(g, [stay(1), stay(0)])
    assert not g.over
    assert g.events[-1][0] != "game_over"
    assert ("round_start", 2, 1) in g.events
    assert g.winners == ()


def test_x1_tie_at_or_above_target_continues_until_one_leads():
    """X1: tied leaders ≥ 200 → everybody plays another round; then the sole leader wins."""
    g = Game(BASE, 2, 0, stack=["10", "10", "5", "3"])
    g.players[0].total = 190
    g.players[1].total = 190
    play(g, [stay(1), stay(0)])
    assert round_end(g, 1)[3] == (200, 200)
    assert ("tie_continue", (0, 1)) in g.events
    assert not g.over
    # round 2: dealer 1, so seat 0 is dealt first
    play(g, [stay(0), stay(1)])
    assert round_end(g, 2) == ("round_end", 2, (5, 3), (205, 203))
    assert g.over and g.winners == (0,)


def test_x1_tie_below_the_leader_does_not_continue():
    """X1: only a tie for the highest total matters; 230 beats two players tied on 205."""
    g = Game(BASE, 3, 0, stack=["5", "5", "5"])
    for seat, total in ((0, 225), (1, 200), (2, 200)):
        g.players[seat].total = total
    play(g, [stay(1), stay(2), stay(0)])
    assert g.over
    assert g.winners == (0,)
    assert g.ranks == (1, 2, 2)
    assert events_of(g, "tie_continue") == []


def _freeze_self_every_round(g: Game) -> None:
    """Drive a deck of Freezes only: every chooser freezes themselves."""
    while not g.over:
        d = g.decision
        assert d.kind == CHOOSE_TARGET and d.card == "FREEZE"
        answer(g, d.seat)


def test_x1_ruling_tied_leaders_share_the_win_after_50_extra_rounds():
    """X1 ruling: after 50 extra rounds still tied, the tied leaders share the win."""
    g = Game(BASE, 2, 0, deck=["FREEZE", "FREEZE", "FREEZE"])
    g.players[0].total = 200
    g.players[1].total = 200
    _freeze_self_every_round(g)
    assert len(events_of(g, "tie_continue")) == 50
    assert len(events_of(g, "round_end")) == 51
    assert all(e[2] == (0, 0) for e in events_of(g, "round_end"))
    assert g.winners == (0, 1)
    assert g.ranks == (1, 1)
    assert g.events[-1] == ("game_over", (0, 1), (200, 200))


def test_x1_max_tie_rounds_option():
    """X1 ruling, configurable: max_tie_rounds=3 stops after 3 extra rounds."""
    g = Game(BASE.with_options(max_tie_rounds=3), 2, 0, deck=["FREEZE"] * 3)
    g.players[0].total = 250
    g.players[1].total = 250
    _freeze_self_every_round(g)
    assert len(events_of(g, "round_end")) == 4
    assert g.winners == (0, 1)


def test_x1_target_score_option():
    """X1 with a smaller target (option): 10 points end the game."""
    g = Game(BASE.with_options(target_score=10), 2, 0, stack=["10", "3"])
    play(g, [stay(1), stay(0)])
    assert g.over and g.winners == (1,)


# ---------------------------------------------------------------- X2 players
def test_x2_one_seat_every_target_is_the_player_themselves():
    """X2: solo practice — every target, including set-aside assignments, is seat 0."""
    g = Game(ASK_ALL, 1, 0, stack=["FLIP_THREE", "4", "FREEZE", "6"], single_round=True)
    expect(g, CHOOSE_TARGET, 0, options=(0,))
    play(g, [target(0, 0, "FLIP_THREE")])
    expect(g, CHOOSE_TARGET, 0, options=(0,))
    play(g, [target(0, 0, "FREEZE")])
    assert g.over
    assert g.players[0].status == FROZEN
    assert round_end(g) == ("round_end", 1, (10,), (10,))
    assert g.winners == (0,)


def test_x2_one_seat_full_game_reaches_target():
    """X2: a solo game plays rounds until the single player reaches 200."""
    rng = random.Random(3)
    g = finish(Game(BASE, 1, 3), random_policy(rng, 0.7))
    assert g.winners == (0,)
    assert g.players[0].total >= 200
    assert all(e[2] == 0 for e in events_of(g, "round_start"))  # dealer is always seat 0
    assert uids_ok(g)


def test_x2_eighteen_seats_deal_and_play():
    """X2: 18 seats — one deck, everyone is dealt in order 1..17 then dealer 0."""
    stack = ["12"] * 12 + ["11"] * 6
    g = Game(BASE, 18, 5, stack=stack)
    deals = events_of(g, "deal")
    assert [e[1] for e in deals] == [*range(1, 18), 0]
    assert [e[2] for e in deals] == stack
    assert len(g.deck) == 94 - 18
    finish(g, random_policy(random.Random(5)))
    assert g.over and g.winners
    assert uids_ok(g)


@pytest.mark.parametrize("seats", [0, 19, -1])
def test_x2_seat_count_out_of_range_is_rejected(seats):
    """X2: 1–18 seats."""
    with pytest.raises(ValueError):
        Game(BASE, seats, 0)


def test_x2_one_deck_of_94_cards():
    """X2: one deck per table, whatever the number of seats."""
    for seats in (1, 7, 18):
        g = Game(BASE, seats, 1)
        assert len(g.all_cards()) == 94
        assert uids_ok(g)


# ---------------------------------------------------------------- X3 dealer and order
def test_x3_dealer_rotates_and_deal_starts_left_of_dealer():
    """X3: dealer 0, 1, 2, 0 …; each deal starts at the dealer's left, dealer last."""
    g = Game(BASE, 3, 0, stack=["12"] * 12)
    for rnd in range(1, 5):
        dealer = (rnd - 1) % 3
        assert g.events.count(("round_start", rnd, dealer)) == 1
        order = [(dealer + 1) % 3, (dealer + 2) % 3, dealer]
        start = g.events.index(("round_start", rnd, dealer))
        assert [e[1] for e in g.events[start:] if e[0] == "deal"] == order
        play(g, [stay(s) for s in order])
    assert g.dealer == 1  # after 4 rounds


def test_x3_turns_go_in_seat_order_from_the_dealers_left():
    """X3: in round 2 (dealer 1) turns go 2, 0, 1 — the dealer acts last."""
    g = Game(BASE, 3, 0, stack=["12", "12", "12", "1", "2", "3", "4", "5", "6"])
    play(g, [stay(1), stay(2), stay(0)])
    assert g.dealer == 1
    assert g.order == [2, 0, 1]
    play(g, [hit(2), hit(0), hit(1), stay(2), stay(0), stay(1)])
    assert [e[1:] for e in events_of(g, "draw")] == [(2, "4"), (0, "5"), (1, "6")]


# ---------------------------------------------------------------- X4 deck lifetime
def test_x4_deck_carries_over_and_table_goes_to_discard():
    """X4: no reshuffle between rounds; the table's cards are discarded at round end and the
    remaining deck carries on."""
    g = Game(BASE, 2, 0, stack=["10", "3", "9", "4"])
    round1 = {c.uid for p in g.players for c in p.line()}
    play(g, [stay(1), stay(0)])
    # round 2 is dealt from the same deck: the next stacked cards, seat 0 first
    assert {c.uid for c in g.discard} == round1
    assert events_of(g, "deal")[-2:] == [("deal", 0, "9"), ("deal", 1, "4")]
    assert line(g, 0) == ["9"] and line(g, 1) == ["4"]
    assert len(g.deck) == 94 - 4
    assert events_of(g, "reshuffle") == []


def test_x4_reshuffle_mid_round_excludes_cards_on_the_table():
    """X4: an empty deck is refilled from the discard pile only — lines (busted ones too)
    stay on the table."""
    g = Game(BASE, 2, 0, deck=["5", "6", "8", "9", "8"])
    play(g, [stay(1), stay(0)])  # round 1: 5 and 6 are discarded
    old_discard = sorted(c.uid for c in g.discard)
    assert sorted(labels(g.discard)) == ["5", "6"]
    # round 2 (dealer 1): 0 ← 8, 1 ← 9; seat 0 hits the other 8 and busts
    play(g, [hit(0)])
    assert g.players[0].status == BUSTED
    assert line(g, 0) == ["8", "8"]
    assert g.deck == []
    play(g, [hit(1)])  # the deck is empty: reshuffle the discard pile (2 cards)
    assert events_of(g, "reshuffle") == [("reshuffle", 2)]
    drawn = g.players[1].numbers[-1]
    assert drawn.label in ("5", "6")
    assert sorted([drawn.uid] + [c.uid for c in g.deck]) == old_discard
    assert line(g, 0) == ["8", "8"]  # the busted line was not reshuffled
    assert g.discard == []
    assert uids_ok(g)


def test_x4_reshuffle_during_flip_three_excludes_set_aside_cards():
    """X4: cards set aside during a Flip Three (and the Flip Three itself) are not
    reshuffled."""
    g = Game(BASE, 1, 0, deck=["3", "FLIP_THREE", "FREEZE", "4"])
    play(g, [stay(0)])  # round 1: the 3 is discarded
    # round 2: 0 ← FLIP_THREE on themselves: FREEZE set aside, 4, then reshuffle → 3
    start = g.events.index(("round_start", 2, 0))
    end = g.events.index(round_end(g, 2))
    assert g.events[start + 1 : end + 1] == [
        ("deal", 0, "FLIP_THREE"),
        ("action", 0, "FLIP_THREE", 0),
        ("set_aside", 0, "FREEZE"),
        ("draw", 0, "4"),
        ("reshuffle", 1),  # only the 3: FLIP_THREE and FREEZE are in limbo, 4 is held
        ("draw", 0, "3"),
        ("assign", 0, "FREEZE", 0),
        ("action", 0, "FREEZE", 0),
        ("frozen", 0),
        ("round_end", 2, (7,), (10,)),
    ]
    # round 3 reshuffles all four cards again (nothing left in the deck)
    assert events_of(g, "reshuffle")[1] == ("reshuffle", 4)
    assert uids_ok(g)


def test_x4_ruling_empty_deck_and_discard_hit_becomes_stay():
    """X4 ruling: nothing left to draw → a hit is a stay; an empty line banks 0."""
    g = Game(BASE, 2, 0, deck=["5"], single_round=True)
    # seat 1 ← 5; seat 0 finds no card: stays with an empty line
    assert events_of(g, "deal") == [("deal", 1, "5")]
    assert ("stay", 0) in g.events
    assert g.players[0].status == STAYED
    play(g, [hit(1)])
    assert g.players[1].status == STAYED
    assert g.over
    assert round_end(g) == ("round_end", 1, (0, 5), (0, 5))


def test_x4_ruling_empty_deck_ends_forced_draw_sequence_early():
    """X4 ruling: a Flip Three with nothing left to draw ends early."""
    g = Game(BASE, 1, 0, deck=["FLIP_THREE", "4"], single_round=True)
    assert [e for e in g.events if e[0] in ("draw", "set_aside")] == [("draw", 0, "4")]
    assert labels(g.discard) == ["FLIP_THREE"] and g.limbo == []
    expect(g, HIT_OR_STAY, 0, options=(HIT, STAY))
    play(g, [stay(0)])
    assert round_end(g) == ("round_end", 1, (4,), (4,))


# ---------------------------------------------------------------- X5 initial deal
def test_x5_one_card_each_in_turn_order():
    """X5: each player is dealt one card face up, from the dealer's left."""
    g = Game(BASE, 4, 0, stack=["1", "2", "3", "4"])
    assert events_of(g, "deal") == [
        ("deal", 1, "1"),
        ("deal", 2, "2"),
        ("deal", 3, "3"),
        ("deal", 0, "4"),
    ]
    assert [line(g, s) for s in range(4)] == [["4"], ["1"], ["2"], ["3"]]
    expect(g, HIT_OR_STAY, 1)


def test_x5_action_dealt_is_resolved_mid_deal():
    """X5: an action dealt is resolved at once by its receiver, then the deal goes on."""
    g = Game(ASK_ALL, 3, 0, stack=["FREEZE", "5", "6"])
    expect(g, CHOOSE_TARGET, 1, options=(1, 2, 0))  # deal halted at seat 1
    assert events_of(g, "deal") == [("deal", 1, "FREEZE")]
    play(g, [target(1, 2, "FREEZE")])
    assert events_of(g, "deal") == [("deal", 1, "FREEZE"), ("deal", 0, "5")]
    i = g.events.index(("deal", 1, "FREEZE"))
    assert g.events[i : i + 4] == [
        ("deal", 1, "FREEZE"),
        ("action", 1, "FREEZE", 2),
        ("frozen", 2),
        ("deal", 0, "5"),
    ]


def test_x5_deal_time_freeze_on_undealt_player_banks_zero_and_is_skipped():
    """X5/B3: a player frozen before being dealt is skipped by the deal and banks 0."""
    g = Game(ASK_ALL, 3, 0, stack=["FREEZE", "5", "6"], single_round=True)
    play(g, [target(1, 2)])
    assert g.players[2].status == FROZEN and line(g, 2) == []
    assert not [e for e in events_of(g, "deal") if e[1] == 2]
    # seat 1 has an empty line: HIT is the only option
    expect(g, HIT_OR_STAY, 1, options=(HIT,))
    play(g, [hit(1), stay(0), stay(1)])
    assert round_end(g)[2] == (5, 6, 0)


def test_x5_ruling_player_holding_cards_is_asked_hit_or_stay():
    """X5 ruling: the deal reaches a player who already holds cards (after a Flip Three):
    they are asked HIT or STAY; HIT takes the deal card."""
    g = Game(BASE, 3, 0, stack=["FLIP_THREE", "1", "2", "3", "9", "10"])
    play(g, [target(1, 2, "FLIP_THREE")])
    assert line(g, 2) == ["1", "2", "3"]
    expect(g, HIT_OR_STAY, 2, options=(HIT, STAY))
    assert events_of(g, "deal") == [("deal", 1, "FLIP_THREE")]
    play(g, [hit(2)])
    assert events_of(g, "deal")[1:] == [("deal", 2, "9"), ("deal", 0, "10")]
    assert line(g, 2) == ["1", "2", "3", "9"]


def test_x5_ruling_player_holding_cards_may_stay_at_the_deal():
    """X5 ruling: STAY at the deal slot banks the line; the deal card goes to the next seat."""
    g = Game(BASE, 3, 0, stack=["FLIP_THREE", "1", "2", "3", "9"])
    play(g, [target(1, 2), stay(2)])
    assert g.players[2].status == STAYED
    assert events_of(g, "deal") == [("deal", 1, "FLIP_THREE"), ("deal", 0, "9")]


def test_x5_busted_player_is_skipped_by_the_deal():
    """X5: a player busted by a Flip Three before their deal is skipped."""
    g = Game(BASE, 3, 0, stack=["FLIP_THREE", "7", "7", "9"])
    play(g, [target(1, 2)])
    assert g.players[2].status == BUSTED
    assert events_of(g, "deal") == [("deal", 1, "FLIP_THREE"), ("deal", 0, "9")]


# ---------------------------------------------------------------- X6 turns
def test_x6_hit_or_stay_in_order_until_nobody_is_active():
    """X6: active players choose HIT or STAY in order; the round ends when none is active."""
    g = Game(BASE, 2, 0, stack=["3", "4", "5", "6"], single_round=True)
    play(g, [hit(1), hit(0), stay(1)])
    expect(g, HIT_OR_STAY, 0)  # seat 1 stayed, seat 0 keeps their turns
    play(g, [stay(0)])
    assert g.over
    assert round_end(g) == ("round_end", 1, (10, 8), (10, 8))


def test_x6_empty_line_cannot_stay():
    """X6: a player with an empty line cannot stay (only HIT is offered)."""
    g = Game(ASK_ALL, 2, 0, stack=["FREEZE", "5"])
    play(g, [target(1, 0)])
    assert line(g, 1) == []
    expect(g, HIT_OR_STAY, 1, options=(HIT,))
    with pytest.raises(ValueError):
        g.step(1)


def test_x6_empty_line_hit_is_automatic_with_auto_single():
    """X6 + X9: with auto_single a forced HIT is applied without asking."""
    g = Game(BASE, 2, 0, stack=["FREEZE", "5"], single_round=True)
    play(g, [target(1, 0)])
    assert ("draw", 1, "5") in g.events
    expect(g, HIT_OR_STAY, 1, options=(HIT, STAY))


def test_x6_held_second_chance_is_a_line_so_the_player_may_stay():
    """X6: a held Second Chance is part of the line; holding only it, STAY is allowed."""
    g = Game(BASE, 2, 0, stack=["SECOND_CHANCE", "5"], single_round=True)
    expect(g, HIT_OR_STAY, 1, options=(HIT, STAY))
    play(g, [stay(1), stay(0)])
    assert round_end(g)[2] == (5, 0)


def test_x6_stayed_player_gets_no_more_turns():
    """X6: after STAY the player is never asked again that round."""
    g = Game(BASE, 3, 0, stack=["1", "2", "3", "4", "5", "6", "7", "8"], single_round=True)
    play(g, [stay(1), hit(2), hit(0), hit(2), hit(0), stay(2), stay(0)])
    assert g.over
    assert round_end(g)[2] == (3 + 5 + 7, 1, 2 + 4 + 6)


# ---------------------------------------------------------------- X7 bust
def test_x7_duplicate_busts_cards_stay_until_round_end_and_no_longer_targetable():
    """X7: a duplicate number busts: 0 points, out of the round, untargetable; the line
    (duplicate included) stays on the table until the round ends."""
    g = Game(ASK_ALL, 3, 0, stack=["6", "2", "3", "6", "FREEZE"], single_round=True)
    play(g, [hit(1)])
    assert g.players[1].status == BUSTED
    assert ("bust", 1, "6") in g.events
    assert line(g, 1) == ["6", "6"]
    assert not [c for c in g.discard if c.label == "6"]
    play(g, [hit(2)])
    expect(g, CHOOSE_TARGET, 2, options=(2, 0))  # busted seat 1 is not a target
    play(g, [target(2, 0), stay(2)])
    assert g.over
    assert round_end(g)[2] == (3, 0, 2)
    assert [c.label for c in g.discard].count("6") == 2


# ---------------------------------------------------------------- X8 Flip 7
def test_x8_flip7_ends_round_at_once_and_active_players_bank():
    """X8: the 7th number ends the round on the spot; a still-active player banks their
    line; only the Flip 7 player gets +15."""
    stack = ["0", "12", "1", "11", "2", "10", "3", "9", "4", "x2", "5", "+4", "6"]
    g = Game(BASE, 2, 0, stack=stack)
    play(g, [hit(1), hit(0)] * 5 + [hit(1)])
    assert ("flip7", 1) in g.events
    assert g.players[0].status == ACTIVE  # never stayed, still banks
    # seat 0: (12+11+10+9)×2 + 4 = 88; seat 1: 0+1+…+6 = 21 + 15
    assert round_end(g, 1) == ("round_end", 1, (88, 36), (88, 36))
    assert ("round_start", 2, 1) in g.events


def test_x8_flip7_during_flip_three_discards_set_aside_and_others_bank():
    """X8/B4b: Flip 7 in the middle of a Flip Three: the set-aside Freeze is discarded
    unresolved, the rest of the three draws are not taken, the round ends, others bank."""
    stack = [
        "0",
        "11",
        "12",
        "1",
        "+2",
        "2",
        "+4",
        "3",
        "+6",
        "4",
        "+8",
        "5",
        "+10",
        "FLIP_THREE",
        "FREEZE",
        "6",
        "7",
    ]
    g = Game(BASE, 3, 0, stack=stack)
    play(g, [hit(1), hit(2), stay(0)] + [hit(1), hit(2)] * 4 + [hit(1)])
    expect(g, CHOOSE_TARGET, 1, options=(1, 2))
    play(g, [target(1, 1, "FLIP_THREE")])
    i = g.events.index(("set_aside", 1, "FREEZE"))
    assert g.events[i : i + 4] == [
        ("set_aside", 1, "FREEZE"),
        ("draw", 1, "6"),
        ("flip7", 1),
        ("round_end", 1, (12, 36, 41), (12, 36, 41)),
    ]
    assert events_of(g, "assign", "frozen") == []
    assert {"FREEZE", "FLIP_THREE"} <= set(labels(g.discard))
    assert g.limbo == []
    # the third card of the Flip Three was never drawn: it is dealt in round 2
    start = g.events.index(("round_start", 2, 1))
    assert g.events[start + 1] == ("deal", 2, "7")


# ---------------------------------------------------------------- X9 targets
def test_x9_single_legal_target_applied_automatically():
    """X9: with auto_single (default) a single legal target is applied without asking."""
    g = Game(BASE, 2, 0, stack=["5", "6", "FREEZE"], single_round=True)
    play(g, [stay(1), hit(0)])
    assert g.over
    assert ("action", 0, "FREEZE", 0) in g.events
    assert g.players[0].status == FROZEN
    assert round_end(g)[2] == (6, 5)


def test_x9_last_active_player_must_target_themselves():
    """X9: when the chooser is the only legal target they are asked and must pick themselves."""
    g = Game(ASK_ALL, 2, 0, stack=["5", "6", "FREEZE"], single_round=True)
    play(g, [stay(1), hit(0)])
    expect(g, CHOOSE_TARGET, 0, options=(0,))
    play(g, [target(0, 0, "FREEZE")])
    assert g.players[0].status == FROZEN
    assert round_end(g)[2] == (6, 5)


def test_x9_only_active_players_are_legal_targets():
    """X9/B3: stayed, frozen and busted players are never offered as targets."""
    g = Game(ASK_ALL, 4, 0, stack=["FREEZE", "7", "8", "3", "7", "FREEZE"], single_round=True)
    play(g, [target(1, 2)])  # deal: 1 ← Freeze on 2; 3 ← 7; 0 ← 8
    play(g, [hit(1), hit(3), stay(0), hit(1)])  # 1 ← 3; 3 ← 7 busts; 0 stays; 1 ← Freeze
    assert [g.players[s].status for s in range(4)] == [STAYED, ACTIVE, FROZEN, BUSTED]
    expect(g, CHOOSE_TARGET, 1, options=(1,))
    play(g, [target(1, 1)])
    assert g.over
    assert round_end(g)[2] == (8, 3, 0, 0)


def test_x9_only_offered_options_are_accepted():
    """X9: a chooser picks among the legal options; anything else is rejected, and a
    finished game accepts no more answers."""
    g = Game(BASE, 2, 0, stack=["5", "6"], single_round=True)
    d = expect(g, HIT_OR_STAY, 1, options=(HIT, STAY))
    for bad in (2, -1, "HIT", 1.0, True):
        with pytest.raises(IllegalChoice):
            g.step(bad)
    assert g.decision is d and g.choices == []
    play(g, [stay(1), stay(0)])
    assert g.over
    with pytest.raises(GameOver):
        g.step(0)


# ---------------------------------------------------------------- X10 information
def test_x10_unseen_is_the_multiset_of_the_draw_pile():
    """X10: g.unseen() equals the deck as a multiset at every step (reshuffles included)."""
    rng = random.Random(10)
    g = Game(BASE, 6, 10)
    policy = random_policy(rng, 0.75)
    seen_reshuffle = False
    while not g.over:
        assert g.unseen() == deck_multiset(g)
        assert sum(g.unseen().values()) == len(g.deck)
        answer(g, policy(g.decision))
        seen_reshuffle |= bool(events_of(g, "reshuffle"))
    assert seen_reshuffle
    assert g.unseen() == deck_multiset(g)


def test_x10_unseen_excludes_table_and_discard():
    """X10: cards dealt, held or discarded are not unseen."""
    g = Game(BASE, 3, 0, stack=["12", "12", "12"])
    assert g.unseen()["12"] == 12 - 3
    assert sum(g.unseen().values()) == 94 - 3
    play(g, [stay(1), stay(2), stay(0)])
    out_of_deck = (
        labels(g.discard) + labels(g.limbo) + [c.label for p in g.players for c in p.line()]
    )
    assert g.unseen().get("12", 0) == 12 - out_of_deck.count("12")
    assert sum(g.unseen().values()) == len(g.deck) == 94 - len(out_of_deck)


def _drawn_labels(events):
    return [e[2] for e in events if e[0] in ("deal", "draw", "set_aside")]


def test_x10_event_log_is_a_function_of_drawn_cards_only():
    """X10: two games whose undrawn cards differ but whose drawn cards are the same produce
    the same public history and the same unseen multiset."""
    rng = random.Random(7)
    a = Game(BASE, 4, 7, single_round=True)
    finish(a, random_policy(rng))
    assert not events_of(a, "reshuffle")
    drawn = _drawn_labels(a.events)
    b = Game.replay(BASE, 4, 12345, a.choices, stack=drawn, single_round=True)
    assert b.events == a.events
    assert b.unseen() == a.unseen()
    assert Counter(labels(a.deck)) == Counter(labels(b.deck))
    assert labels(a.deck) != labels(b.deck)  # the hidden order really differs
