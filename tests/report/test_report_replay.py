"""Replays: the table state after each event is the engine's own state.

The report replays a stored game with the engine (seed + choices) and snapshots the public
table as each event is logged. These tests play games with the built-in policies and
compare, at every decision point, the engine's state with the replay's state after the
last event logged so far.
"""

from __future__ import annotations

import json

import pytest
from reportkit import Site
from sqlmodel import Session, select

from arena.report.replay import Replay, build_replay, card_names, describe, trace
from arena.store.db import get_engine
from arena.store.models import Game, Tournament
from engine import Game as EngineGame
from engine import get_ruleset
from engine.events import EVENT_FIELDS, event_dict
from engine.policies import make_policy
from engine.scoring import line_value


def engine_state(g: EngineGame) -> dict:
    return {
        "seats": [
            (
                [c.label for c in p.numbers + p.modifiers + p.extras],
                p.status,
                line_value(g, p),
                p.total,
                p.flip7,
            )
            for p in g.players
        ],
        "deck": len(g.deck),
        "loose": sorted(c.label for c in g.discard + g.limbo),
        "round": g.round,
    }


def replay_state(r: Replay, k: int) -> dict:
    assert r.states is not None
    st = r.states[k]
    return {
        "seats": [(list(s[0]), s[1], s[2], s[3], s[4]) for s in st.seats],
        "deck": st.deck,
        "loose": sorted(st.discard + st.pending),
        "round": st.round,
    }


def play(rules, seats: int, seed: int, specs: list[str]):  # type: ignore[no-untyped-def]
    """A game played by policies; the engine's state at every decision and at the end."""
    policies = [make_policy(specs[s % len(specs)], seed * 31 + s) for s in range(seats)]
    g = EngineGame(rules, seats, seed)
    seen = []
    while not g.over:
        seen.append((len(g.events), engine_state(g)))
        d = g.decision
        assert d is not None
        g.step(policies[d.seat](g, d))
    seen.append((len(g.events), engine_state(g)))
    return g, seen


CASES = [
    ("base", False, ["ev", "random", "threshold:20"]),
    ("vengeance", False, ["random", "ev", "threshold:25"]),
    ("vengeance", True, ["random", "random", "ev"]),
]


@pytest.mark.parametrize(("variant", "brutal", "specs"), CASES)
def test_replay_state_equals_the_engine_state_at_every_decision(
    variant: str, brutal: bool, specs: list[str]
) -> None:
    rules = get_ruleset(variant, brutal=brutal)
    kinds: set[str] = set()
    for seed in range(24):
        seats = 2 + seed % 5
        g, seen = play(rules, seats, seed, specs)
        events = json.loads(json.dumps([event_dict(e) for e in g.events]))
        r = build_replay(variant, brutal, seats, seed, g.choices, events)
        assert r.states is not None, r.note
        assert len(r.states) == len(events)
        kinds.update(e["kind"] for e in events)
        for n, state in seen:
            assert replay_state(r, n - 1) == state, (seed, n, events[n - 1])
    # the games exercised the card effects that move cards between lines
    if variant == "vengeance":
        assert {"steal", "swap", "discarded", "modifier", "resolve"} <= kinds
    else:
        assert {"second_chance_used", "frozen", "action", "set_aside"} <= kinds


def test_round_end_clears_the_lines_and_shows_the_new_totals() -> None:
    rules = get_ruleset("base")
    g, _ = play(rules, 4, 7, ["ev", "threshold:18"])
    events = [event_dict(e) for e in g.events]
    r = build_replay("base", False, 4, 7, g.choices, events)
    assert r.states is not None
    ends = [k for k, e in enumerate(events) if e["kind"] == "round_end"]
    assert len(ends) == g.round
    for k in ends:
        st = r.states[k]
        assert [s[3] for s in st.seats] == list(events[k]["totals"])
        assert all(s[0] == () for s in st.seats)
        before = r.states[k - 1]
        assert any(s[0] for s in before.seats), "the last cards of the round are still shown"


def test_a_drawn_card_shows_in_the_line_of_its_receiver() -> None:
    rules = get_ruleset("base")
    g, _ = play(rules, 3, 11, ["threshold:22"])
    events = [event_dict(e) for e in g.events]
    r = build_replay("base", False, 3, 11, g.choices, events)
    assert r.states is not None
    checked = 0
    for k, e in enumerate(events):
        if e["kind"] in ("deal", "draw") and e["card"].isdigit():
            line = r.states[k].seats[e["seat"]][0]
            nxt = events[k + 1]["kind"] if k + 1 < len(events) else ""
            if nxt != "second_chance_used":
                assert e["card"] in line
                checked += 1
    assert checked > 50


def test_patches_rebuild_every_state() -> None:
    rules = get_ruleset("vengeance")
    g, _ = play(rules, 5, 3, ["random"])
    events = [event_dict(e) for e in g.events]
    r = build_replay("vengeance", False, 5, 3, g.choices, events)
    assert r.states is not None
    cur = r.initial_dict()
    assert cur is not None
    for patch, st in zip(r.patches(), r.states, strict=True):
        cur = json.loads(json.dumps(cur))
        for seat, line, status, score, total, flip7 in patch.get("p", []):
            cur["seats"][seat] = {
                "line": line,
                "status": status,
                "score": score,
                "total": total,
                "flip7": flip7,
            }
        if "d" in patch:
            cur["discard"] += patch["d"]
        if "D" in patch:
            cur["discard"] = patch["D"]
        if "q" in patch:
            cur["pending"] = patch["q"]
        cur["deck"] = patch.get("n", cur["deck"])
        cur["round"] = patch.get("r", cur["round"])
        assert cur == st.as_dict()


def test_choices_given_for_forced_decisions_are_replayed_with_auto_single_off() -> None:
    rules = get_ruleset("base").with_options(auto_single=False)
    g, _ = play(rules, 3, 5, ["ev"])
    events = [event_dict(e) for e in g.events]
    r = build_replay("base", False, 3, 5, g.choices, events)
    assert r.states is not None


def test_a_game_its_choices_do_not_reproduce_gets_no_table() -> None:
    rules = get_ruleset("base")
    g, _ = play(rules, 3, 5, ["ev"])
    events = [event_dict(e) for e in g.events]
    r = build_replay("base", False, 3, 5, g.choices[:-3], events)
    assert r.states is None and r.patches() == []
    assert "do not reproduce" in r.note
    assert build_replay("base", False, 3, 5, [], []).note.startswith("no events")
    assert build_replay("chess", False, 3, 5, [1], events).states is None


def test_every_stored_game_of_a_real_tournament_is_reproduced(site: Site) -> None:
    eng = get_engine(site.url)
    with Session(eng) as s:
        brutal = {t.id: t.brutal for t in s.exec(select(Tournament))}
        games = list(s.exec(select(Game)))
    assert len(games) > 20
    for g in games:
        r = build_replay(
            g.variant, brutal[g.tournament_id], len(g.seating), g.seed, g.choices, g.events
        )
        assert r.states is not None, (g.id, r.note)
        final = r.states[-1]
        assert [s[3] for s in final.seats] == g.totals


def test_trace_reports_the_engines_own_events() -> None:
    rules = get_ruleset("vengeance", brutal=True)
    g, _ = play(rules, 4, 9, ["random"])
    events, states = trace(rules, 4, 9, g.choices)
    assert events == [event_dict(e) for e in g.events]
    assert all(s is not None for s in states)


SAMPLES = {
    "round_start": {"round": 1, "seat": 0},
    "deal": {"seat": 1, "card": "7"},
    "draw": {"seat": 1, "card": "FLIP_THREE"},
    "reshuffle": {"count": 40},
    "stay": {"seat": 0},
    "frozen": {"seat": 2},
    "bust": {"seat": 1, "card": "7"},
    "flip7": {"seat": 1},
    "action": {"seat": 0, "card": "FREEZE", "target": 0},
    "set_aside": {"seat": 0, "card": "FREEZE"},
    "assign": {"seat": 0, "card": "FREEZE", "target": 2},
    "resolve": {"seat": 0, "card": "STEAL"},
    "discard": {"card": "FREEZE", "reason": "no_target"},
    "second_chance_used": {"seat": 1, "card": "7"},
    "second_chance_given": {"seat": 1, "target": 2},
    "modifier": {"seat": 1, "card": "-4", "target": 2},
    "steal": {"seat": 1, "target": 2, "card": "12"},
    "discarded": {"seat": 1, "target": 2, "card": "12"},
    "swap": {"seat": 0, "seats": [1, 2], "cards": ["3", "L13"]},
    "unlucky7": {"seat": 2, "cards": ["3", "-2"]},
    "flip7_penalty": {"seat": 0, "target": 1},
    "round_end": {"round": 1, "scores": [3, 0, 25], "totals": [3, 0, 25]},
    "tie_continue": {"seats": [0, 2]},
    "game_over": {"seats": [2], "totals": [3, 0, 225]},
}


def test_every_event_kind_reads_as_a_sentence() -> None:
    assert set(SAMPLES) == set(EVENT_FIELDS)
    names = ["ann", "bob", "cy"]
    cards = card_names("vengeance") | card_names("base")
    for kind, fields in SAMPLES.items():
        text = describe({"kind": kind, **fields}, names, cards)
        assert not text.startswith("{"), kind
    assert describe(SAMPLES["swap"] | {"kind": "swap"}, names, cards) == (
        "ann swaps bob's 3 with cy's Lucky 13"
    )
    assert describe({"kind": "action", **SAMPLES["action"]}, names, cards) == (
        "ann plays Freeze on themselves"
    )
    assert describe({"kind": "mystery", "x": 1}, names, cards).startswith("{")
