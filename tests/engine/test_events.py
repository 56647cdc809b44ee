"""The event log's vocabulary: event_dict and event_tuple are inverse, and every decision's
answer can be read back from the event it produced (what determinize replays by)."""

from __future__ import annotations

import random

import pytest
from search_helpers import RULES, chooser

from engine import Game
from engine.events import ANSWERS, EVENT_FIELDS, answer_from_event, event_dict, event_tuple
from engine.game import DECISION_KINDS, HIT_OR_STAY


def test_event_tuple_inverts_event_dict_for_every_event():
    kinds = set()
    for variant in sorted(RULES):
        for seed in range(60):
            g = Game(RULES[variant], 1 + seed % 12, seed)
            choose = chooser("random-choice", g.n, seed)
            while not g.over:
                g.step(choose(g))
            for e in g.events:
                assert event_tuple(event_dict(e)) == e
                kinds.add(e[0])
    assert set(EVENT_FIELDS) - kinds <= {"tie_continue"}  # the whole vocabulary occurred


@pytest.mark.parametrize("variant", sorted(RULES))
def test_every_answer_is_read_back_from_the_event_it_produced(variant):
    """For every decision of many games, the first event after the answer names that
    answer (or, for HIT / +15, an answer with the same outcome)."""
    rules = RULES[variant].with_options(auto_single=False)
    seen = set()
    for seed in range(80):
        g = Game(rules, 1 + seed % 8, seed)
        rng = random.Random(seed)
        while not g.over:
            d = g.decision
            mark = len(g.events)
            k = rng.randrange(len(d.options))
            g.step(k)
            nxt = g.events[mark] if len(g.events) > mark else None
            back = answer_from_event(d, nxt)
            seen.add(d.kind)
            if back != k:  # only a HIT on an exhausted pile reads back as STAY
                assert d.kind == HIT_OR_STAY and nxt == ("stay", d.seat)
    assert seen <= set(ANSWERS) == set(DECISION_KINDS)
    assert len(seen) >= 3


def test_answer_from_event_refuses_an_event_that_no_option_explains():
    g = Game(RULES["base"], 3, 2, stack=["FREEZE"])
    d = g.decision
    assert d.kind == "CHOOSE_TARGET"
    with pytest.raises(ValueError):
        answer_from_event(d, ("action", d.seat, "FREEZE", 9))
    assert set(EVENT_FIELDS) >= {k for kinds, _, _ in ANSWERS.values() for k in kinds}


def test_every_event_kind_the_engine_records_is_an_event_kind_with_named_fields() -> None:
    from engine import RULESETS, EventKind, Game
    from engine.events import EVENT_FIELDS
    from engine.policies import make_policy

    assert set(EVENT_FIELDS) == set(EventKind)
    seen = set()
    for variant in ("base", "vengeance"):
        for g in range(40):
            game = Game(RULESETS[variant].with_options(brutal=g % 2 == 1), 4, g)
            pols = [make_policy("random", g * 4 + i) for i in range(4)]
            while not game.over:
                d = game.decision
                assert d is not None
                game.step(pols[d.seat](game, d))
            seen |= {e[0] for e in game.events}
    assert seen <= set(EventKind), seen - set(EventKind)
    assert len(seen) >= 15  # the games reached most kinds


def test_decision_kinds_are_the_strings_they_name() -> None:
    from engine import DECISION_KINDS, HIT_OR_STAY, DecisionKind

    assert HIT_OR_STAY == "HIT_OR_STAY" and repr(HIT_OR_STAY) == "'HIT_OR_STAY'"
    assert tuple(DecisionKind) == DECISION_KINDS and len(DECISION_KINDS) == 8
    assert {HIT_OR_STAY: 1}["HIT_OR_STAY"] == 1
