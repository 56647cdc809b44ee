"""Property tests over many seeded Vengeance games (docs/rules.md X, V), Brutal mode or not.

Each hypothesis example draws a seat count (1–18), a seed, a hit probability and the
Brutal option, and plays several whole games with random choices (a ``random.Random``
seeded from the example, so failures replay). Across the file that is a few thousand
games; it runs in well under a minute.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

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
    DISCARD,
    FLIP7_BONUS,
    GIVE_MODIFIER,
    HIT,
    HIT_OR_STAY,
    RULESETS,
    STAY,
    STEAL,
    SWAP,
    Game,
    Ruleset,
)
from engine.cards import Card

VEN = RULESETS["vengeance"]
BRUTAL = VEN.with_options(brutal=True)
DECK_SIZE = 108
MODIFIERS = ("/2", "-2", "-4", "-6", "-8", "-10")

GAMES_PER_EXAMPLE = 5
# Observed maxima over 600 random games: ~1200 decisions (MAX_STEPS: 20,000), ~55 rounds.
# The bounds leave a wide margin; a game that exceeds them is looping, not unlucky.
MAX_ROUNDS = 300

SETTINGS = examples(150)
brutal_st = st.booleans()


class WatchedGame(Game):
    """A game that records, in order, the label of every card taken from the deck, and
    each round's table just before it is scored (the lines are cleared afterwards)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.drawn: list[str] = []
        self.tables: list[tuple[bool, list[tuple]]] = []
        super().__init__(*args, **kwargs)

    def draw(self) -> Card | None:
        card = super().draw()
        if card is not None:
            self.drawn.append(card.label)
        return card

    def _finish_round(self) -> bool:
        lines = [
            (p.status, [c.label for c in p.numbers], [c.label for c in p.modifiers], p.flip7)
            for p in self.players
        ]
        self.tables.append((self.bonus_declined, lines))
        return super()._finish_round()


def _value(label: str) -> int:
    return {"0": 0, "U7": 7, "L13": 13}.get(label) or int(label)


def _expected_score(line: tuple, brutal: bool, bonus_declined: bool) -> int:
    """An independent reading of V6/V8 (and X8's +15) for one scored line."""
    status, numbers, mods, flip7 = line
    minus = sum(-int(m) for m in mods if m != "/2")
    if status == BUSTED:
        return -minus if brutal else 0
    s = sum(_value(n) for n in numbers)
    if "/2" in mods:
        s //= 2
    s -= minus
    if not brutal:
        s = max(s, 0)
    if "0" in numbers and not flip7:
        s = 0
    if flip7 and not bonus_declined:
        assert len(numbers) == 7
        s += 15
    return s


def _rules(brutal: bool) -> Ruleset:
    return BRUTAL if brutal else VEN


def _games(seats: int, seed: int, p_hit: float, brutal: bool, cls=Game) -> Iterator[tuple]:
    """Yield (game, chooser) pairs for GAMES_PER_EXAMPLE fresh games."""
    for k in range(GAMES_PER_EXAMPLE):
        s = seed + k
        yield cls(_rules(brutal), seats, s), random_chooser(random.Random(s ^ 0xBADC0DE), p_hit)


# ---------------------------------------------------------------- invariants
def _face_up(g: Game, seat: int) -> list[str]:
    p = g.players[seat]
    return [c.label for c in (*p.numbers, *p.modifiers)]


def _legal_line(p) -> bool:
    """No duplicate number except the Lucky 13 pair (V5); the Unlucky 7 alone among 7s."""
    by_value = Counter(c.value for c in p.numbers)
    for v, n in by_value.items():
        if n == 1:
            continue
        if not (v == 13 and n == 2 and any(c.label == "L13" for c in p.numbers)):
            return False
    return len(p.numbers) <= 7


def _check_state(g: Game) -> None:
    """V1/X2: every card exactly once; X10: unseen is the deck; V3–V5 line legality."""
    assert sorted(c.uid for c in g.all_cards()) == list(range(DECK_SIZE))
    assert g.unseen() == dict(Counter(c.label for c in g.deck))
    assert g.n_active == sum(p.status == ACTIVE for p in g.players)
    for p in g.players:
        assert p.extras == []  # no Second Chance in Vengeance
        if p.status != BUSTED:
            assert _legal_line(p), [c.label for c in p.numbers]
            if not g.over:  # (after the last round the lines are cleared, not the sums)
                assert p.sum == sum(c.value for c in p.numbers)
        else:
            assert not p.flip7
    for c in g.limbo:
        assert c.kind != "number"


def _check_decision(g: Game) -> None:
    """Every pending decision offers exactly the legal options (Decision points, V2, V6–V8)."""
    d = g.decision
    players = g.players
    opts = tuple(d.options)
    brutal = g.ruleset.brutal
    assert opts and len(set(opts)) == len(opts), d
    assert players[d.seat].status != BUSTED, d
    unbusted = tuple(s for s in g.order if players[s].status != BUSTED)
    if any(p.flip7 for p in players):  # X8: after Flip 7 only the Brutal choice remains
        assert d.kind == FLIP7_BONUS, d
    if d.kind == HIT_OR_STAY:
        p = players[d.seat]
        assert p.status == ACTIVE
        can_stay = bool(p.line()) and not any(c.label == "0" for c in p.numbers)  # X6, V3
        assert opts == ((HIT, STAY) if can_stay else (HIT,))
    elif d.kind == CHOOSE_TARGET:
        assert d.card in ("JUST_ONE_MORE", "FLIP_FOUR")
        assert opts == unbusted  # V7: stayed players and oneself included, busted not
    elif d.kind == GIVE_MODIFIER:
        assert d.card in MODIFIERS
        assert opts == (tuple(g.order) if brutal else unbusted)  # V6, V8
    elif d.kind in (STEAL, DISCARD):
        assert d.card == d.kind
        seats = [s for s in unbusted if d.kind == DISCARD or s != d.seat]
        expected = [(s, lab) for s in seats for lab in _face_up(g, s)]
        assert Counter(opts) == Counter(expected)
    elif d.kind == SWAP:
        assert d.card == SWAP
        pool = [(s, lab) for s in unbusted for lab in _face_up(g, s)]
        expected = [(a, b) for i, a in enumerate(pool) for b in pool[i + 1 :] if a[0] != b[0]]
        assert Counter(opts) == Counter(expected)
    elif d.kind == FLIP7_BONUS:
        assert brutal and players[d.seat].flip7
        assert opts == (-1, *(s for s in g.order if s != d.seat))
    else:
        raise AssertionError(f"unexpected decision kind {d.kind}")
    if g.ruleset.auto_single:
        assert len(opts) > 1


def _rounds(events: list[tuple]) -> list[list[tuple]]:
    rounds: list[list[tuple]] = []
    for e in events:
        if e[0] == "round_start":
            rounds.append([])
        if rounds:
            rounds[-1].append(e)
    return rounds


def _check_round_structure(g: Game) -> None:
    """X8/V8: one Flip 7 at most, nothing after it but the Brutal choice; busted players
    score 0 (Brutal: their minus cards, ≤ 0); totals are scores minus Brutal penalties."""
    brutal = g.ruleset.brutal
    totals = [0] * g.n
    for evs in _rounds(g.events):
        end = next(e for e in evs if e[0] == "round_end")
        scores = end[2]
        if brutal:
            assert all(s >= -30 for s in scores)  # −2 −4 −6 −8 −10 at worst
        else:
            assert all(s >= 0 for s in scores)
        busted = {e[1] for e in evs if e[0] == "bust"}
        for s in busted:
            assert scores[s] <= 0 if brutal else scores[s] == 0
        flips = [e for e in evs if e[0] == "flip7"]
        penalties = [e for e in evs if e[0] == "flip7_penalty"]
        assert len(flips) <= 1
        if flips:
            seat = flips[0][1]
            assert seat not in busted
            follow = evs[evs.index(flips[0]) + 1 :]
            assert [e[0] for e in follow][: len(penalties) + 1] == [
                *(["flip7_penalty"] * len(penalties)),
                "round_end",
            ]
            if not brutal:
                assert scores[seat] >= 15
        assert len(penalties) <= (1 if brutal and flips else 0)
        for i in range(g.n):
            totals[i] += scores[i]
        for p in penalties:
            assert p[1] == flips[0][1] and p[2] != p[1]
            totals[p[2]] -= 15
        assert list(end[3]) == totals
    assert [p.total for p in g.players] == totals


# ---------------------------------------------------------------- card accounting
@SETTINGS
@given(seats=seat_counts, seed=seeds, p_hit=hit_probabilities, brutal=brutal_st)
def test_prop_108_cards_accounted_for_and_decisions_legal_after_every_step(
    seats, seed, p_hit, brutal
):
    """V1/X2: all 108 cards are somewhere, exactly once, after every step; every decision
    offers exactly the legal options; round scores are ≥ 0 unless Brutal (V6, V8)."""
    for g, choose in _games(seats, seed, p_hit, brutal):
        seen = 0
        for _ in range(MAX_STEPS):
            if g.over:
                break
            _check_state(g)
            _check_decision(g)
            g.step(choose(g))
            for e in g.events[seen:]:
                if e[0] == "round_end" and not brutal:
                    assert min(e[2]) >= 0, e
            seen = len(g.events)
        assert g.over
        _check_state(g)
        assert g.limbo == []
        assert all(p.line() == [] for p in g.players)
        assert len(g.deck) + len(g.discard) == DECK_SIZE


# ---------------------------------------------------------------- scores and the end
@SETTINGS
@given(seats=seat_counts, seed=seeds, p_hit=hit_probabilities, brutal=brutal_st)
def test_prop_games_end_within_bounds_and_scores_add_up(seats, seed, p_hit, brutal):
    """X1: every game ends within bounded steps and rounds with the top total (≥ target)
    winning; V6/V8: every round score is the line's score by the rules (≥ 0 unless
    Brutal), totals are the round scores minus the Brutal −15 penalties."""
    for g, choose in _games(seats, seed, p_hit, brutal, cls=WatchedGame):
        play_to_end(g, choose)
        ends = [e for e in g.events if e[0] == "round_end"]
        assert len(g.tables) == len(ends)
        for (declined, lines), end in zip(g.tables, ends, strict=True):
            assert tuple(_expected_score(ln, brutal, declined) for ln in lines) == end[2]
        assert g.round <= MAX_ROUNDS
        totals = [p.total for p in g.players]
        top = max(totals)
        assert top >= g.ruleset.target_score
        assert g.winners == tuple(s for s, t in enumerate(totals) if t == top)
        assert g.events[-1] == ("game_over", g.winners, tuple(totals))
        assert len([e for e in g.events if e[0] == "round_end"]) == g.round
        starts = [e[1:] for e in g.events if e[0] == "round_start"]
        assert starts == [(r + 1, r % seats) for r in range(g.round)]
        _check_round_structure(g)
        if not brutal:
            assert not any(e[0] == "flip7_penalty" for e in g.events)


# ---------------------------------------------------------------- determinism
@SETTINGS
@given(seats=seat_counts, seed=seeds, p_hit=hit_probabilities, brutal=brutal_st)
def test_prop_replay_reproduces_identical_events(seats, seed, p_hit, brutal):
    """Determinism: (ruleset, seats, seed, choices) reproduces the game exactly."""
    for g, choose in _games(seats, seed, p_hit, brutal):
        play_to_end(g, choose)
        r = Game.replay(_rules(brutal), seats, g.seed, g.choices)
        assert r.over
        assert r.events == g.events
        assert r.choices == g.choices
        assert r.winners == g.winners and r.ranks == g.ranks
        assert [p.total for p in r.players] == [p.total for p in g.players]


@examples(60)
@given(seats=seat_counts, seed=seeds, brutal=brutal_st)
def test_prop_auto_single_off_gives_the_same_game_with_more_decisions(seats, seed, brutal):
    """X9: asking single-option decisions and answering them with their only option plays
    out exactly the same game."""
    rules = _rules(brutal).with_options(auto_single=False)
    for g, choose in _games(seats, seed, 0.6, brutal):
        play_to_end(g, choose)
        h = Game(rules, seats, g.seed)
        answers = iter(g.choices)
        while not h.over:
            h.step(0 if len(h.decision.options) == 1 else next(answers))
        assert next(answers, None) is None
        assert h.events == g.events


# ---------------------------------------------------------------- information (X10)
REVEAL = ("deal", "draw", "set_aside")
SILENT = (
    "round_start",
    "stay",
    "flip7",
    "flip7_penalty",
    "round_end",
    "game_over",
    "reshuffle",
    "tie_continue",
)


def _labels_in(e: tuple) -> list[str]:
    """The card labels an event mentions."""
    kind = e[0]
    if kind in REVEAL or kind in ("action", "resolve", "modifier"):
        return [e[2]]
    if kind == "bust":
        return [] if e[2] is None else [e[2]]
    if kind == "unlucky7":
        return list(e[2])
    if kind == "discard":
        return [e[1]]
    if kind in ("steal", "discarded"):
        return [e[3]]
    if kind == "swap":
        return [e[3], e[5]]
    assert kind in SILENT, f"unknown event {e!r}"
    return []


def _decision_labels(d) -> list[str]:
    out = [] if d.card is None else [d.card]
    if d.kind in (STEAL, DISCARD):
        out += [lab for _, lab in d.options]
    elif d.kind == SWAP:
        out += [lab for pair in d.options for _, lab in pair]
    return out


@SETTINGS
@given(seats=seat_counts, seed=seeds, p_hit=hit_probabilities, brutal=brutal_st)
def test_prop_events_never_mention_a_card_before_it_is_drawn(seats, seed, p_hit, brutal):
    """X10: the deal/draw/set_aside events are exactly the cards taken from the deck, in
    order; every other event and every decision mentions only cards already revealed."""
    for g, choose in _games(seats, seed, p_hit, brutal, cls=WatchedGame):
        revealed: Counter[str] = Counter()
        seen = 0
        while True:
            for e in g.events[seen:]:
                labs = _labels_in(e)
                if e[0] in REVEAL:
                    revealed[e[2]] += 1
                else:
                    missing = [lab for lab in labs if not revealed[lab]]
                    assert not missing, f"{e!r} mentions unrevealed {missing}"
            seen = len(g.events)
            assert [e[2] for e in g.events if e[0] in REVEAL] == g.drawn
            if g.over:
                break
            assert all(revealed[lab] for lab in _decision_labels(g.decision)), g.decision
            g.step(choose(g))


def _drawn(events) -> list[str]:
    return [e[2] for e in events if e[0] in REVEAL]


@examples(100)
@given(seats=seat_counts, seed=seeds, p_hit=hit_probabilities, brutal=brutal_st, data=st.data())
def test_prop_public_history_depends_only_on_drawn_cards(seats, seed, p_hit, brutal, data):
    """X10: cut a game at a step before its first reshuffle and rebuild it with the same
    drawn cards on top of a different hidden order of the rest: the event log, the pending
    decision and g.unseen() are identical, so nothing reveals an undrawn card."""
    rules = _rules(brutal)
    for g, choose in _games(seats, seed, p_hit, brutal):
        play_to_end(g, choose)
        # the number of choices whose events stay clear of the first reshuffle
        probe = Game(rules, seats, g.seed)
        limit = 0
        while limit < len(g.choices) and not any(e[0] == "reshuffle" for e in probe.events):
            probe.step(g.choices[limit])
            if any(e[0] == "reshuffle" for e in probe.events):
                break
            limit += 1
        k = data.draw(st.integers(min_value=0, max_value=limit), label="cut")
        a = Game.replay(rules, seats, g.seed, g.choices[:k])
        if any(e[0] == "reshuffle" for e in a.events):
            continue  # the deal of the first round itself reshuffled (cannot happen at k=0)
        drawn = _drawn(a.events)
        hidden = list((Counter(c.label for c in rules.cards) - Counter(drawn)).elements())
        random.Random(data.draw(seeds, label="hidden")).shuffle(hidden)
        b = Game.replay(rules, seats, g.seed + 1, g.choices[:k], deck=drawn + hidden)
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
