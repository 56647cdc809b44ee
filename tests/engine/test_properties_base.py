"""Property tests over many seeded base games with random choices (docs/rules.md X, B).

Each hypothesis example draws a seat count (1–18), a seed and a hit probability and plays
several whole games, so the file covers thousands of games while staying well under a
minute. Choices come from a ``random.Random`` seeded from the example, so failures replay.
"""

from __future__ import annotations

import random
from collections import Counter

from helpers import BASE, deck_multiset
from hypothesis import given
from hypothesis import strategies as st
from search_helpers import (
    MAX_STEPS,
    examples,
    hit_probabilities,
    play_to_end,
    random_chooser,
    seat_counts,
    seeds,
)

from engine import (
    ACTIVE,
    BUSTED,
    CHOOSE_TARGET,
    GIVE_SECOND_CHANCE,
    HIT,
    HIT_OR_STAY,
    STAY,
    Game,
)

GAMES_PER_EXAMPLE = 5
# Observed maxima over 3000 random games: ~900 decisions (MAX_STEPS: 20,000), ~60 rounds.
# The bounds leave a wide margin; a game that exceeds them is looping, not unlucky.
MAX_ROUNDS = 250

SETTINGS = examples(200)


def _games(seats: int, seed: int, p_hit: float):
    """Yield (game, chooser) pairs for GAMES_PER_EXAMPLE fresh games."""
    for k in range(GAMES_PER_EXAMPLE):
        s = seed + k
        yield Game(BASE, seats, s), random_chooser(random.Random(s ^ 0x5EED), p_hit)


def _check_decision(g: Game) -> None:
    """The pending decision is legal under X6, X9, B3–B5."""
    d = g.decision
    players = g.players
    opts = tuple(d.options)
    assert opts, d
    if d.kind == HIT_OR_STAY:
        p = players[d.seat]
        assert p.status == ACTIVE
        assert opts == ((HIT, STAY) if p.line() else (HIT,))  # X6
    elif d.kind == CHOOSE_TARGET:
        assert players[d.seat].status == ACTIVE
        assert all(players[s].status == ACTIVE for s in opts)  # B3/B4/X7
        assert len(set(opts)) == len(opts)
    elif d.kind == GIVE_SECOND_CHANCE:
        assert players[d.seat].status == ACTIVE and players[d.seat].extras
        assert d.seat not in opts
        assert all(players[s].status == ACTIVE and not players[s].extras for s in opts)  # B5
    else:  # pragma: no cover - no other kind exists in the base game
        raise AssertionError(f"unexpected decision kind {d.kind}")
    if g.ruleset.auto_single:
        assert len(opts) > 1


def _check_cards(g: Game) -> None:
    """All 94 cards are somewhere, exactly once (X2, B1)."""
    uids = sorted(c.uid for c in g.all_cards())
    assert uids == list(range(94))
    assert g.unseen() == deck_multiset(g)  # X10
    for p in g.players:
        assert len(p.extras) <= 1  # B5: at most one Second Chance held
        if p.status != BUSTED:
            assert len({c.value for c in p.numbers}) == len(p.numbers)  # X7: no duplicates
            assert len(p.numbers) <= 7  # X8


# ---------------------------------------------------------------- card accounting
@SETTINGS
@given(seats=seat_counts, seed=seeds, p_hit=hit_probabilities)
def test_prop_cards_accounted_for_and_decisions_legal_after_every_step(seats, seed, p_hit):
    """X2/B1: every card is in exactly one place after every step; every decision offered
    is legal; round scores are ≥ 0 and totals never decrease (B7, X1)."""
    for g, choose in _games(seats, seed, p_hit):
        totals = [0] * seats
        seen_events = 0
        for _ in range(MAX_STEPS):
            if g.over:
                break
            _check_cards(g)
            _check_decision(g)
            g.step(choose(g))
            new = [p.total for p in g.players]
            assert all(b >= a for a, b in zip(totals, new, strict=True))
            if new != totals:
                assert any(e[0] == "round_end" for e in g.events[seen_events:])
            totals = new
            ends = [e for e in g.events[seen_events:] if e[0] == "round_end"]
            assert all(s >= 0 for e in ends for s in e[2])
            if ends:  # totals change only at a round's end
                assert list(ends[-1][3]) == totals
            seen_events = len(g.events)
        assert g.over, f"game not over after {MAX_STEPS} steps"
        _check_cards(g)
        # game over: the table is cleared and nothing is in limbo
        assert g.limbo == []
        assert all(p.line() == [] for p in g.players)
        assert len(g.deck) + len(g.discard) == 94
        assert g.decision is None


# ---------------------------------------------------------------- rounds and the end
@SETTINGS
@given(seats=seat_counts, seed=seeds, p_hit=hit_probabilities)
def test_prop_games_end_within_bounds_with_a_correct_winner(seats, seed, p_hit):
    """X1: every game ends (bounded steps and rounds); the winners hold the top total,
    which is ≥ 200; a shared win only after the tie rounds ran out. X3: dealers rotate."""
    for g, choose in _games(seats, seed, p_hit):
        play_to_end(g, choose)
        assert g.round <= MAX_ROUNDS
        totals = [p.total for p in g.players]
        top = max(totals)
        assert top >= 200
        assert g.winners == tuple(s for s, t in enumerate(totals) if t == top)
        ties = [e for e in g.events if e[0] == "tie_continue"]
        assert (len(g.winners) > 1) == (len(ties) == BASE.max_tie_rounds)
        assert g.events[-1] == ("game_over", g.winners, tuple(totals))
        starts = [e for e in g.events if e[0] == "round_start"]
        assert [e[1:] for e in starts] == [(r + 1, r % seats) for r in range(g.round)]
        ends = [e for e in g.events if e[0] == "round_end"]
        assert len(ends) == g.round
        # round scores add up to the totals; busted players score 0; one Flip 7 at most
        assert [sum(e[2][s] for e in ends) for s in range(seats)] == totals
        assert ends[-1][3] == tuple(totals)
        _check_round_structure(g, seats)


def _check_round_structure(g: Game, seats: int) -> None:
    rounds: list[list[tuple]] = []
    for e in g.events:
        if e[0] == "round_start":
            rounds.append([])
        rounds[-1].append(e)
    for evs in rounds:
        flips = [e for e in evs if e[0] == "flip7"]
        assert len(flips) <= 1
        end = next(e for e in evs if e[0] == "round_end")
        busted = {e[1] for e in evs if e[0] == "bust"}
        assert all(end[2][s] == 0 for s in busted)
        if flips:
            assert flips[0][1] not in busted
            assert end[2][flips[0][1]] >= 15
            # X8: the round ends at once — nothing happens between flip7 and round_end
            assert evs[evs.index(flips[0]) + 1] == end


# ---------------------------------------------------------------- determinism
@SETTINGS
@given(seats=seat_counts, seed=seeds, p_hit=hit_probabilities)
def test_prop_replay_reproduces_identical_events(seats, seed, p_hit):
    """Determinism: (ruleset, seats, seed, choices) reproduces the game exactly."""
    for g, choose in _games(seats, seed, p_hit):
        play_to_end(g, choose)
        r = Game.replay(BASE, seats, g.seed, g.choices)
        assert r.over
        assert r.events == g.events
        assert r.winners == g.winners and r.ranks == g.ranks
        assert [p.total for p in r.players] == [p.total for p in g.players]


@SETTINGS
@given(seats=seat_counts, seed=seeds)
def test_prop_auto_single_off_gives_the_same_game_with_more_decisions(seats, seed):
    """X9: asking single-option decisions (auto_single off) and answering them with their
    only option plays out exactly the same game."""
    rules = BASE.with_options(auto_single=False)
    for g, choose in _games(seats, seed, 0.6):
        play_to_end(g, choose)
        h = Game(rules, seats, g.seed)
        answers = iter(g.choices)
        while not h.over:
            h.step(0 if len(h.decision.options) == 1 else next(answers))
        assert next(answers, None) is None
        assert h.events == g.events


# ---------------------------------------------------------------- information (X10)
def _drawn(events) -> list[str]:
    return [e[2] for e in events if e[0] in ("deal", "draw", "set_aside")]


@examples(120)
@given(seats=seat_counts, seed=seeds, p_hit=hit_probabilities, data=st.data())
def test_prop_public_history_depends_only_on_drawn_cards(seats, seed, p_hit, data):
    """X10: cut a game at any step before its first reshuffle; rebuild it with the same
    drawn cards on top of a *different* hidden order of the rest. The event log, the
    pending decision and g.unseen() are identical — nothing reveals undrawn cards."""
    for g, choose in _games(seats, seed, p_hit):
        play_to_end(g, choose)
        first = next((i for i, e in enumerate(g.events) if e[0] == "reshuffle"), None)
        # the largest number of choices whose events stay before the first reshuffle
        limit = len(g.choices)
        if first is not None:
            probe = Game(BASE, seats, g.seed)
            if any(e[0] == "reshuffle" for e in probe.events):
                continue  # reshuffled before the first decision: no cut point exists
            limit = 0
            while len(probe.events) <= first and not probe.over:
                probe.step(g.choices[limit])
                if any(e[0] == "reshuffle" for e in probe.events):
                    break
                limit += 1
        k = data.draw(st.integers(min_value=0, max_value=limit), label="cut")
        a = Game.replay(BASE, seats, g.seed, g.choices[:k])
        assert not any(e[0] == "reshuffle" for e in a.events)
        drawn = _drawn(a.events)
        rest = Counter(c.label for c in BASE.cards) - Counter(drawn)
        hidden = list(rest.elements())
        random.Random(data.draw(st.integers(0, 2**32 - 1), label="hidden")).shuffle(hidden)
        b = Game.replay(BASE, seats, g.seed + 1, g.choices[:k], deck=drawn + hidden)
        assert b.events == a.events
        assert b.unseen() == a.unseen()
        assert b.over == a.over
        if not a.over:
            da, db = a.decision, b.decision
            assert (da.kind, da.seat, tuple(da.options), da.card) == (
                db.kind,
                db.seat,
                tuple(db.options),
                db.card,
            )
        # and unseen() is what a card counter derives from the public log alone
        public = Counter(c.label for c in BASE.cards) - Counter(drawn)
        assert a.unseen() == {lab: n for lab, n in public.items() if n}
