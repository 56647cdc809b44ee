"""Card conservation (X2: one deck; X4, X7, X8, B3–B5, V4, V7): after every step of a game,
every card of the ruleset's deck is in exactly one place — the draw pile, the discard pile,
limbo (set aside or being resolved), the box (out of play) or one seat's numbers, modifiers
or extras — by identity, not only by count. Checked with Game.card_locations over many
seeded games of the base game, Vengeance and Brutal, with uniformly random choices and with
the built-in policies, and over exact decks with cards in the box."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from helpers import BASE
from hypothesis import given
from hypothesis import strategies as st
from search_helpers import (
    GAMES,
    MAX_STEPS,
    RULES,
    chooser,
    examples,
    seeds,
    variants,
)

from engine import Game
from engine.cards import ACTION, MODIFIER, NUMBER
from engine.game import (
    BOX,
    DECK,
    DISCARD_PILE,
    EXTRAS,
    LIMBO,
    MODIFIERS,
    NUMBERS,
    PILES,
    CardNotInLimbo,
)

EXACT_STEPS = 2_000
SEAT_PILES = {NUMBERS, MODIFIERS, EXTRAS}


def check_conservation(g: Game) -> None:
    rules = g.ruleset
    locs = g.card_locations()
    where = Counter(id(c) for _, _, c in locs)
    deck_ids = {id(c) for c in rules.cards}
    assert len(locs) == rules.deck_size
    assert set(where) == deck_ids, "a card of another deck, or a card lost"
    assert all(n == 1 for n in where.values()), "a card in two places"
    for pile, seat, card in locs:
        assert pile in PILES
        assert (seat is not None) == (pile in SEAT_PILES)
        if pile == NUMBERS:
            assert card.kind == NUMBER
        elif pile == MODIFIERS:
            assert card.kind == MODIFIER
        elif pile == EXTRAS:
            assert card.kind == ACTION
    # the draw pile's counts (X10's unseen multiset) follow the pile itself
    drawn_pile = Counter(c.type for pile, _, c in locs if pile == DECK)
    assert {t: n for t, n in g.deck_count.items() if n} == dict(drawn_pile)


def play_checked(g: Game, choose, limit: int = MAX_STEPS) -> bool:
    """Step ``g`` with conservation checked before every step; True if it ended."""
    for _ in range(limit):
        check_conservation(g)
        if g.over:
            return True
        g.step(choose(g))
    check_conservation(g)
    return g.over


@examples(300)
@given(**GAMES)
def test_prop_every_card_is_in_exactly_one_place_after_every_step(variant, seats, seed, policy):
    g = Game(RULES[variant], seats, seed)
    assert play_checked(g, chooser(policy, seats, seed)), f"not over after {MAX_STEPS} steps"
    # the game's end: the table is cleared, nothing is pending (X4, X8)
    assert {pile for pile, _, _ in g.card_locations()} <= {DECK, DISCARD_PILE}


@examples(150)
@given(
    variant=variants,
    seats=st.integers(1, 8),
    seed=seeds,
    keep=st.integers(5, 60),
)
def test_prop_exact_decks_keep_the_box_out_of_play(variant, seats, seed, keep):
    """X4 ruling: a short exact deck runs dry (hits become stays, sequences end early) and
    its few cards are reshuffled again and again; the cards left out stay in the box and
    are never drawn. Every decision is asked (auto_single off) and the game is cut after
    EXACT_STEPS: a tiny deck can cycle one card round the table without end."""
    rules = RULES[variant].with_options(auto_single=False)
    labels = [c.label for c in rules.cards]
    random.Random(seed).shuffle(labels)
    g = Game(rules, seats, seed, deck=labels[:keep])
    box = [id(c) for c in g.box]
    assert len(box) == rules.deck_size - keep
    play_checked(g, chooser("random-choice", seats, seed), EXACT_STEPS)
    assert [id(c) for pile, _, c in g.card_locations() if pile == BOX] == box


def test_card_locations_name_each_pile_and_seat():
    # seat 1 is dealt the 5, seat 0 (the dealer) the Second Chance, kept in front (B5)
    g = Game(BASE, 2, 3, stack=["5", "SECOND_CHANCE"])
    places = {(pile, seat, c.label) for pile, seat, c in g.card_locations() if pile != DECK}
    assert places == {(NUMBERS, 1, "5"), (EXTRAS, 0, "SECOND_CHANCE")}
    assert sum(1 for pile, _, _ in g.card_locations() if pile == DECK) == 92
    assert g.all_cards() == [c for _, _, c in g.card_locations()]


def test_card_locations_show_set_aside_cards_in_limbo():
    # B4a: seat 1 is dealt Flip Three and targets itself; it draws Freeze (set aside), 4, 6
    g = Game(BASE, 2, 3, stack=["FLIP_THREE", "FREEZE", "4", "6"])
    assert g.decision.kind == "CHOOSE_TARGET"
    g.step(g.decision.options.index(1))
    limbo = sorted(c.label for pile, _, c in g.card_locations() if pile == LIMBO)
    assert limbo == ["FLIP_THREE", "FREEZE"]


def test_discarding_a_card_that_is_not_in_limbo_is_an_error():
    g = Game(BASE, 2, 3)
    card = g.deck[-1]
    with pytest.raises(CardNotInLimbo):
        g.to_discard(card, "no_target")
    with pytest.raises(CardNotInLimbo):
        g.retire(card)
    assert card is g.deck[-1] and card not in g.discard  # nothing moved
