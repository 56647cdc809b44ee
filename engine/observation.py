"""What a seat may see (X10): everything public, never the order of the draw pile.

``observe(game, seat)`` returns plain data (dicts, lists, ints, strings) ready to be sent to
a bot. The draw pile appears only as its size and, optionally, as a multiset of labels
(sorted by label, so it carries no order). The seed is never included while the game runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.cards import Card
from engine.game import Game
from engine.scoring import line_value

# plain JSON-shaped data: the value's type depends on the key (see observe)
Observation = dict[str, Any]


def _labels(cards: Iterable[Card]) -> list[str]:
    return [c.label for c in cards]


def observe(game: Game, seat: int, *, unseen: bool = True) -> Observation:
    """Public state of ``game`` from ``seat``'s chair.

    Keys: variant, options (ruleset options), seat, seats, round, dealer, order (turn order
    this round), target_score, players (per seat: status, numbers, modifiers, second_chance,
    total, line_score, flip7), discard (labels, oldest first), deck_size, unseen (label →
    count of the draw pile, sorted; only with ``unseen=True``), pending (cards set aside or
    being resolved), decision (the pending decision if it is this seat's), over, and when
    the game is over: winners, ranks and seed.
    """
    if not 0 <= seat < game.n:
        raise ValueError(f"no seat {seat} at a table of {game.n}")
    rules = game.ruleset
    players = []
    for p in game.players:
        players.append(
            {
                "seat": p.seat,
                "status": p.status,
                "numbers": _labels(p.numbers),
                "modifiers": _labels(p.modifiers),
                "second_chance": len(p.extras),
                "total": p.total,
                "line_score": line_value(game, p),
                "flip7": p.flip7,
            }
        )
    obs: Observation = {
        "variant": rules.name,
        "options": rules.describe(),
        "seat": seat,
        "seats": game.n,
        "round": game.round,
        "dealer": game.dealer if not game.over else None,
        "order": list(game.order),
        "target_score": rules.target_score,
        "players": players,
        "discard": _labels(game.discard),
        "deck_size": len(game.deck),
        "pending": _labels(game.limbo),
        "over": game.over,
    }
    if unseen:
        obs["unseen"] = dict(sorted(game.unseen().items()))
    d = game.decision
    if d is not None and d.seat == seat:
        obs["decision"] = {"kind": d.kind, "card": d.card, "options": list(d.options)}
    if game.over:
        obs["winners"] = list(game.winners)
        obs["ranks"] = list(game.ranks)
        obs["seed"] = game.seed
    return obs
