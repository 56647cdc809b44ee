"""Game.clone(): a copy evolves exactly like its original under the same choices, and
stepping one never affects the other (search support: OpenSpiel's Clone)."""

from __future__ import annotations

import random

from helpers import BASE
from hypothesis import given
from hypothesis import strategies as st
from search_helpers import (
    GAMES,
    MAX_STEPS,
    RULES,
    chooser,
    decision_key,
    examples,
    fingerprint,
    seat_counts,
    seeds,
    variants,
)

from engine import Game, observe


def _cut_points(rng: random.Random, length: int, k: int) -> list[int]:
    return sorted(rng.sample(range(length + 1), min(k, length + 1)))


@examples(250)
@given(**GAMES, data=st.data())
def test_prop_a_clone_evolves_exactly_like_its_original(variant, seats, seed, policy, data):
    """At random points of a game (every kind of decision, mid-round, after reshuffles,
    at the end), a clone has the original's whole state, and the two stay identical at
    every step while both get the same choices, to the game's end (the clone's random
    source included: later reshuffles agree)."""
    rules = RULES[variant]
    choose = chooser(policy, seats, seed)
    full = Game(rules, seats, seed)
    while not full.over:
        full.step(choose(full))
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="cuts"))
    for cut in _cut_points(rng, len(full.choices), 3):
        g = Game.replay(rules, seats, seed, full.choices[:cut])
        c = g.clone()
        assert fingerprint(c) == fingerprint(g)
        for choice in full.choices[cut:]:
            g.step(choice)
            c.step(choice)
            assert decision_key(c) == decision_key(g)
            assert c.events == g.events
        assert c.over and g.over
        assert fingerprint(c) == fingerprint(g) == fingerprint(full)


@examples(200)
@given(
    variant=variants,
    seats=seat_counts,
    seed=seeds,
    data=st.data(),
)
def test_prop_stepping_a_clone_never_affects_its_original(variant, seats, seed, data):
    """Play a clone to its end with other choices (new rounds, reshuffles, a clone of the
    clone): the original's state is untouched, and it goes on exactly like a second clone
    taken at the same point."""
    rules = RULES[variant]
    choose = chooser("random-choice", seats, seed)
    g = Game(rules, seats, seed)
    for _ in range(data.draw(st.integers(0, 400), label="steps")):
        if g.over:
            break
        g.step(choose(g))
    before = fingerprint(g)
    twin = g.clone()
    other = g.clone()
    grandchild = None
    other_choice = chooser("random-choice", seats, seed + 1)
    for i in range(MAX_STEPS):
        if other.over:
            break
        if i == 7:
            grandchild = other.clone()
        other.step(other_choice(other))
    assert fingerprint(g) == before
    if grandchild is not None:
        grandchild_before = fingerprint(grandchild)
        while not grandchild.over:
            grandchild.step(other_choice(grandchild))
        assert fingerprint(g) == before
        assert grandchild_before != fingerprint(grandchild)
    for _ in range(MAX_STEPS):
        if g.over:
            break
        k = choose(g)
        g.step(k)
        twin.step(k)
    assert fingerprint(twin) == fingerprint(g)


def test_clone_without_events_plays_the_same_game_and_records_nothing():
    g = Game(RULES["brutal"], 4, 11)
    for _ in range(30):
        g.step(0)
    c = g.clone(record_events=False)
    assert c.events == [] and not c.record_events
    mark = len(g.events)
    while not g.over:
        k = len(g.decision.options) - 1
        g.step(k)
        c.step(k)
    assert c.events == []
    assert [p.total for p in c.players] == [p.total for p in g.players]
    assert (c.winners, c.ranks, c.round) == (g.winners, g.ranks, g.round)
    assert len(g.events) > mark


def test_clone_of_a_finished_game_is_finished_and_independent():
    g = Game(BASE, 3, 5)
    while not g.over:
        g.step(0)
    c = g.clone()
    assert fingerprint(c) == fingerprint(g)
    c.discard.clear()
    c.players[0].total = -1
    assert g.discard and g.players[0].total != -1


def test_clone_mid_round_after_a_reshuffle_replays_the_reshuffled_deck():
    """X4: a round in which the deck ran out and the discard pile was reshuffled; the clone
    rebuilds the reshuffled deck exactly, not by shuffling again."""
    rules = RULES["base"]
    for seed in range(200):
        g = Game(rules, 18, seed)
        while not g.over:
            round_events = g.events[
                max(i for i, e in enumerate(g.events) if e[0] == "round_start") :
            ]
            if any(e[0] == "reshuffle" for e in round_events):
                c = g.clone()
                assert [x.uid for x in c.deck] == [x.uid for x in g.deck]
                assert observe(c, 0) == observe(g, 0)
                return
            g.step(0)
    raise AssertionError("no seed reshuffled mid-round at 18 seats")


def test_clone_of_a_subclass_is_a_plain_game():
    class Counting(Game):
        draws = 0

        def draw(self):
            Counting.draws += 1
            return super().draw()

    g = Counting(BASE, 2, 1)
    g.step(0)
    seen = Counting.draws
    c = g.clone()
    assert type(c) is Game
    assert Counting.draws == seen  # the copy replays with the engine's own draw
    assert fingerprint(c) == fingerprint(g)
