"""Regression: seeded games of every variant play exactly as they did before the engine's
internals were restructured (the deal and turn loops, the Flip Three / Flip Four draw
sequence).

``data/event_log_digests.json`` holds one digest per game, recorded from the engine before
that change: a SHA-256 over the game's whole event log and every decision it offered (kind,
seat, options, card). Each game has its own seed, seat count (1–18) and a mix of the
built-in policies, so the digests cover the deal (X5), turns (X6), every action card
(B3–B5, V3–V7), Brutal's Flip 7 choice (V8), reshuffles (X4) and ties (X1).

Regenerate the file only on purpose, when a rule change is meant to alter games:
``python tests/engine/test_event_log_regression.py --write``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from engine import RULESETS, Game, Ruleset
from engine.policies import make_policy

DATA = Path(__file__).with_name("data") / "event_log_digests.json"
GAMES = 300
SEATS = (1, 2, 3, 4, 5, 6, 8, 12, 18)
POLICIES = ("random", "threshold:20", "ev", "threshold:26", "random", "ev")
VARIANTS: dict[str, Ruleset] = {
    "base": RULESETS["base"],
    "vengeance": RULESETS["vengeance"],
    "vengeance+brutal": RULESETS["vengeance"].with_options(brutal=True),
}


def game_digest(rules: Ruleset, g: int) -> str:
    """Play game ``g`` of a variant with built-in policies; digest its events and decisions."""
    seats = SEATS[g % len(SEATS)]
    seed = 7_919 * g + 13
    game = Game(rules, seats, seed)
    policies = [make_policy(POLICIES[(g + i) % len(POLICIES)], seed + i) for i in range(seats)]
    h = hashlib.sha256()
    while not game.over:
        d = game.decision
        assert d is not None
        h.update(repr((d.kind, d.seat, d.options, d.card)).encode())
        game.step(policies[d.seat](game, d))
    h.update(repr(game.events).encode())
    h.update(repr((game.winners, game.ranks, [p.total for p in game.players])).encode())
    return h.hexdigest()[:20]


def digests(variant: str) -> list[str]:
    rules = VARIANTS[variant]
    return [game_digest(rules, g) for g in range(GAMES)]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_seeded_games_play_exactly_as_recorded_before_the_restructuring(variant: str) -> None:
    recorded = json.loads(DATA.read_text())[variant]
    assert len(recorded) == GAMES
    now = digests(variant)
    changed = [g for g in range(GAMES) if now[g] != recorded[g]]
    assert not changed, f"{variant}: {len(changed)} games differ, first game {changed[:5]}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: test_event_log_regression.py --write")
    DATA.write_text(json.dumps({v: digests(v) for v in VARIANTS}, indent=0) + "\n")
    print(f"wrote {DATA}")
