"""Determinization (search support: OpenSpiel's ResampleFromInfostate): a game built from
one seat's point of view — from a Game (Game.determinized) or from the public event log a
bot has received (engine.determinize) — never contradicts what that seat has seen (X10:
everything but the draw order is public), holds exactly the unseen cards in its draw pile,
reproduces past reshuffles (X4), and depends on nothing hidden."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from helpers import BASE
from hypothesis import given
from hypothesis import strategies as st
from search_helpers import (
    GAMES,
    RULES,
    chooser,
    decision_key,
    deck_labels,
    examples,
    label_counts,
    places,
    play_to_end,
    seeds,
    variants,
)

from engine import Game, determinize, observe
from engine.events import event_dict


def _conserved(g: Game) -> bool:
    return sorted(c.uid for _, _, c in g.card_locations()) == list(range(g.ruleset.deck_size))


def _check_determinization(g: Game, det: Game, seat: int) -> None:
    obs = observe(g, seat)
    assert observe(det, seat) == obs  # the same public state, pending decision included
    assert label_counts(det.deck) == obs["unseen"]  # its draw pile is the unseen multiset
    assert det.events == g.events
    assert decision_key(det) == decision_key(g)
    assert det.seed != g.seed  # the real seed is nowhere
    assert _conserved(det)


@examples(300)
@given(**GAMES, data=st.data())
def test_prop_a_determinized_game_never_contradicts_the_observation(
    variant, seats, seed, policy, data
):
    """At random decision points of both variants and Brutal (after reshuffles too), both
    forms give a game whose observation equals the real one, from the seat to move and from
    another seat; the two forms agree for the same rng; the result plays on legally to
    its end."""
    rules = RULES[variant]
    choose = chooser(policy, seats, seed)
    full = Game(rules, seats, seed)
    play_to_end(full, choose)
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="cuts"))
    cuts = sorted(rng.sample(range(len(full.choices)), min(3, len(full.choices))))
    for cut in cuts:
        g = Game.replay(rules, seats, seed, full.choices[:cut])
        seat = g.decision.seat if rng.random() < 0.7 else rng.randrange(seats)
        k = rng.getrandbits(32)
        fast = g.determinized(seat, random.Random(k))
        log = g.events if rng.random() < 0.5 else [event_dict(e) for e in g.events]
        slow = determinize(rules, seats, seat, log, random.Random(k))
        _check_determinization(g, fast, seat)
        _check_determinization(g, slow, seat)
        assert deck_labels(fast) == deck_labels(slow)
        assert fingerprint_labels(fast) == fingerprint_labels(slow)
        play_to_end(fast, chooser("random-choice", seats, k))
        assert _conserved(fast)


def fingerprint_labels(g: Game) -> list[tuple[str, int | None, str]]:
    return [(pile, seat, c.label) for pile, seat, c in g.card_locations()]


def _with_reshuffles(rules, seats: int, at_least: int) -> Game:
    """A game paused at a decision after ``at_least`` reshuffles."""
    for seed in range(500):
        g = Game(rules, seats, seed)
        choose = chooser("threshold:27", seats, seed)
        while not g.over:
            if sum(e[0] == "reshuffle" for e in g.events) >= at_least and rng_ok(g):
                return g
            g.step(choose(g))
    raise AssertionError("no game reshuffled often enough")


def rng_ok(g: Game) -> bool:
    return len(g.deck) >= 5  # enough undrawn cards for their order to matter


@pytest.mark.parametrize("variant", sorted(RULES))
def test_past_reshuffles_are_reproduced_from_the_log(variant):
    """X4: the draws after each reshuffle are the ones the log shows; only the rest of the
    last reshuffled deck is unknown."""
    g = _with_reshuffles(RULES[variant], 12, 3)
    det = determinize(RULES[variant], 12, g.decision.seat, g.events, random.Random(1))
    _check_determinization(g, det, g.decision.seat)
    assert sum(e[0] == "reshuffle" for e in det.events) >= 3


def _same_public_history_other_hidden_order(g: Game, k: int) -> Game:
    """Replay ``g``'s choices on a deck that starts with the cards ``g`` drew (before any
    reshuffle) and continues with the other cards in another order."""
    drawn = [e[2] for e in g.events if e[0] in ("deal", "draw", "set_aside")]
    rest = list((Counter(c.label for c in g.ruleset.cards) - Counter(drawn)).elements())
    random.Random(k).shuffle(rest)
    return Game.replay(g.ruleset, g.n, g.seed + 1, g.choices, deck=drawn + rest)


@examples(200)
@given(
    variant=variants,
    seats=st.integers(1, 8),
    seed=seeds,
    steps=st.integers(0, 60),
    k=st.integers(0, 2**32 - 1),
)
def test_prop_determinizations_do_not_depend_on_the_hidden_order(variant, seats, seed, steps, k):
    """Two real games with the same public history but different undrawn orders (and
    seeds) give the same determinization for the same rng: the same draw pile, the same
    future under the same choices. Checked before the first reshuffle (where a second real
    game can be built with an exact deck) and, with reshuffles in the past, on a
    determinization of the first game, which shares its public history."""
    rules = RULES[variant]
    a = Game(rules, seats, seed)
    choose = chooser("random-choice", seats, seed)
    for _ in range(steps):
        if a.over or any(e[0] == "reshuffle" for e in a.events):
            break
        a.step(choose(a))
    if a.over or any(e[0] == "reshuffle" for e in a.events):
        a = Game.replay(rules, seats, seed, a.choices[:-1])
        if a.over or any(e[0] == "reshuffle" for e in a.events):
            return  # reshuffled before the first decision: covered below
    b = _same_public_history_other_hidden_order(a, k)
    assert b.events == a.events and decision_key(b) == decision_key(a)
    if len(set(deck_labels(a))) > 1:
        assert deck_labels(a) != deck_labels(b) or len(a.deck) < 3
    seat = a.decision.seat
    results = [g.determinized(seat, random.Random(k)) for g in (a, b)] + [
        determinize(rules, seats, seat, g.events, random.Random(k)) for g in (a, b)
    ]
    for det in results[1:]:
        assert deck_labels(det) == deck_labels(results[0])
    futures = []
    for det in results:
        play_to_end(det, chooser("random-choice", seats, k))
        futures.append(det.events)
    assert all(f == futures[0] for f in futures)


@pytest.mark.parametrize("variant", sorted(RULES))
def test_determinizations_after_reshuffles_do_not_depend_on_the_hidden_order(variant):
    rules = RULES[variant]
    a = _with_reshuffles(rules, 12, 2)
    seat = a.decision.seat
    b = a.determinized(seat, random.Random(99))  # same public history, another order
    assert b.events == a.events and deck_labels(b) != deck_labels(a)
    da = a.determinized(seat, random.Random(7))
    db = b.determinized(seat, random.Random(7))
    assert deck_labels(da) == deck_labels(db)
    assert places_by_label(da) == places_by_label(db)
    choose_a, choose_b = (chooser("random-choice", 12, 3) for _ in range(2))
    play_to_end(da, choose_a)
    play_to_end(db, choose_b)
    assert da.events == db.events


def places_by_label(g: Game) -> list[tuple[str, int | None, str]]:
    return [(pile, seat, c.label) for pile, seat, c in g.card_locations()]


def test_determinizations_sample_different_orders_of_the_same_cards():
    g = Game(RULES["vengeance"], 3, 4)
    orders = {tuple(deck_labels(g.determinized(0, random.Random(i)))) for i in range(20)}
    assert len(orders) == 20
    assert {tuple(sorted(o)) for o in orders} == {tuple(sorted(deck_labels(g)))}


def test_a_determinized_game_clones_to_its_own_draw_pile():
    """A clone of a determinized game replays the round on the new pile, not the real one."""
    g = Game(RULES["base"], 4, 8)
    for _ in range(5):
        g.step(0)
    det = g.determinized(1, random.Random(3))
    c = det.clone()
    assert places(c) == places(det)
    assert deck_labels(c) != deck_labels(g) or len(g.deck) < 3


def test_an_exact_deck_needs_the_unseen_multiset():
    """Cards in the box are in nobody's view: with the observation's unseen multiset the
    determinization knows which cards are still to come."""
    labels = [c.label for c in BASE.cards]
    random.Random(5).shuffle(labels)
    g = Game(BASE, 3, 1, deck=labels[:50])
    for _ in range(4):
        g.step(0)
    obs = observe(g, 0)
    det = determinize(BASE, 3, 0, g.events, random.Random(2), unseen=obs["unseen"])
    _check_determinization(g, det, 0)
    guess = determinize(BASE, 3, 0, g.events, random.Random(2))  # assumes the whole deck
    assert len(guess.deck) == len(g.deck) + 44


def test_determinize_rejects_a_log_that_does_not_fit():
    g = Game(RULES["vengeance"], 3, 6, stack=["5", "6", "9"])
    for _ in range(6):
        g.step(0)
    rng = random.Random(0)
    with pytest.raises(ValueError, match="does not fit"):
        determinize(RULES["vengeance"], 4, 0, g.events, rng)  # another seat count
    with pytest.raises(ValueError):
        determinize(BASE, 3, 0, g.events, rng)  # another deck
    with pytest.raises(ValueError, match="does not fit"):
        determinize(RULES["vengeance"], 3, 0, g.events[:2], rng)  # cut inside the deal
    with pytest.raises(ValueError, match="no seat"):
        determinize(RULES["vengeance"], 3, 3, g.events, rng)
    with pytest.raises(ValueError, match="holds"):
        more = dict(observe(g, 0)["unseen"])
        more["5"] = more.get("5", 0) + 1  # every 5 of the deck is already accounted for
        determinize(RULES["vengeance"], 3, 0, g.events, rng, unseen=more)
    r = _with_reshuffles(BASE, 12, 1)
    with pytest.raises(ValueError, match="unseen"):
        fewer = dict(observe(r, 0)["unseen"])
        label = next(iter(fewer))
        fewer[label] -= 1
        determinize(BASE, 12, 0, r.events, rng, unseen=fewer)
    while not g.over:
        g.step(0)
    with pytest.raises(ValueError, match="over"):
        determinize(RULES["vengeance"], 3, 0, g.events, rng)
    with pytest.raises(ValueError, match="over"):
        g.determinized(0, rng)
