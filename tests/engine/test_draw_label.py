"""Game.draw_label: a card chosen as it is drawn (OpenSpiel's chance nodes) — the card is the
one asked for, from the pile or from the discard pile a reshuffle turns into the pile, and
the round's record follows, so that a clone taken later replays the chosen draws."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import RULESETS, Game
from engine.cards import Card


class Chosen(Game):
    """Draws a label picked at random from what is there to draw, while ``choosing``."""

    picker: random.Random
    choosing: bool
    drawn: list[tuple[str, str, bool]]  # (asked, got, from a reshuffle)

    def draw(self) -> Card | None:
        if not self.choosing or (not self.deck and not self.discard):
            return Game.draw(self)
        reshuffle = not self.deck
        pile = self.deck or self.discard
        label = self.picker.choice(sorted(c.label for c in pile))
        card = self.draw_label(label)
        self.drawn.append((label, card.label, reshuffle))
        return card


def chosen_game(variant: str, seats: int, seed: int) -> Chosen:
    g = Chosen.__new__(Chosen)
    g.picker = random.Random(seed)
    g.choosing = True
    g.drawn = []
    Game.__init__(g, RULESETS[variant], seats, seed)
    return g


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(["base", "vengeance"]),
    seats=st.integers(2, 5),
    seed=st.integers(0, 2**32),
    stop=st.floats(0.0, 1.0),
)
def test_prop_chosen_draws_are_the_cards_asked_for_and_clones_replay_them(
    variant: str, seats: int, seed: int, stop: float
) -> None:
    g = chosen_game(variant, seats, seed)
    rng = random.Random(seed)
    steps = 0
    limit = int(stop * 400)
    while not g.over and steps < limit:
        d = g.decision
        assert d is not None
        g.step(rng.randrange(len(d.options)))
        steps += 1
    assert g.drawn and all(asked == got for asked, got, _ in g.drawn)
    # the draw pile's counts follow the chosen draws (X10's unseen multiset)
    assert g.unseen() == dict(sorted(_count(g.deck).items()))
    if g.over:
        return
    g.choosing = False  # from here both draw their pile's top card
    twin = g.clone()
    assert twin.events == g.events and [c.uid for c in twin.deck] == [c.uid for c in g.deck]
    while not g.over:
        d = g.decision
        assert d is not None and twin.decision is not None
        assert (d.kind, d.seat, d.options) == (
            twin.decision.kind,
            twin.decision.seat,
            twin.decision.options,
        )
        choice = rng.randrange(len(d.options))
        g.step(choice)
        twin.step(choice)
    assert twin.over and twin.events == g.events and twin.ranks == g.ranks


def _count(cards: list[Card]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in cards:
        out[c.label] = out.get(c.label, 0) + 1
    return out


def test_a_chosen_draw_from_an_empty_pile_comes_from_the_reshuffled_discard_pile() -> None:
    for seed in range(200):
        g = chosen_game("base", 4, seed)
        rng = random.Random(seed)
        while not g.over and not any(r for _, _, r in g.drawn):
            d = g.decision
            assert d is not None
            g.step(rng.randrange(len(d.options)))
        reshuffled = [(a, b) for a, b, r in g.drawn if r]
        if reshuffled:
            asked, got = reshuffled[0]
            assert asked == got
            assert any(e[0] == "reshuffle" for e in g.events)
            return
    pytest.fail("no game of 200 reshuffled its discard pile")


def test_draw_label_refuses_a_card_that_is_not_there() -> None:
    g = Game(RULESETS["base"], 2, 1)
    with pytest.raises(ValueError, match="no 'STEAL' to draw"):
        g.draw_label("STEAL")  # a Vengeance card: not in the base deck
