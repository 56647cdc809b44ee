"""A seat's public observation as numbers, and the action space: what the environments share.

:class:`Encoding` turns :func:`engine.observe` (everything public from one chair, the draw
pile only as a multiset) into a fixed-size ``float32`` vector; nothing else goes in, so an
encoded observation can hold nothing a seat may not see. The table is turned so that the
observing seat comes first, then the seats after it in seat order: a learned policy sees
"me, the next player, ..." wherever it sits.

The layout (every count is a plain count, every flag 0 or 1):

* per seat, from the observer on: game total, line score, status (active, stayed, frozen,
  busted), count of each number label and of each modifier label in the line, Second
  Chance cards held, Flip 7 this round, is the dealer;
* the round, the draw pile's size, the target score;
* per card label: unseen (in the draw pile), in the discard pile, set aside (pending);
* the pending decision if it is the observer's: its kind, and the card being resolved.

Rewards (:func:`outcome`) come at the end of a game: the share of the other seats a seat
beat minus the share that beat it.

Actions are option indices: action ``i`` answers the pending decision with its option
``i`` (``engine.Decision.options``), legal while ``i < len(options)`` — the action mask.
:func:`max_options` bounds the options any decision of a table can have.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from engine import DECISION_KINDS, Game, Ruleset
from engine.cards import ACTION, MODIFIER, NUMBER

STATUSES = ("active", "stayed", "frozen", "busted")
PAIRS_OF_FACE_UP = frozenset({"SWAP"})  # actions whose options are pairs of face-up cards
ONE_FACE_UP = frozenset({"STEAL", "DISCARD"})  # actions whose options are face-up cards


def max_options(ruleset: Ruleset, seats: int) -> int:
    """The most options one decision can offer at a table of ``seats``: 2 (hit or stay),
    a seat or "myself" (targets, gifts, the Flip 7 bonus), and with Steal, Discard or Swap
    in the deck one face-up card, or a pair of them (at most every number and modifier of
    the deck is face up)."""
    bound = max(2, seats + 1)
    face_up = sum(1 for c in ruleset.cards if c.kind in (NUMBER, MODIFIER))
    actions = {t.label for t in ruleset.types if t.kind == ACTION}
    if actions & ONE_FACE_UP:
        bound = max(bound, face_up)
    if actions & PAIRS_OF_FACE_UP:
        bound = max(bound, face_up * (face_up - 1) // 2)
    return bound


class Encoding:
    """The observation vector of one table (ruleset and seat count); see the module."""

    def __init__(self, ruleset: Ruleset, seats: int) -> None:
        self.seats = seats
        labels = sorted({c.label for c in ruleset.cards})
        kinds = {c.label: c.kind for c in ruleset.cards}
        self.numbers = {lb: i for i, lb in enumerate(x for x in labels if kinds[x] == NUMBER)}
        self.modifiers = {lb: i for i, lb in enumerate(x for x in labels if kinds[x] == MODIFIER)}
        self.labels = {lb: i for i, lb in enumerate(labels)}
        self.kinds = {k: i for i, k in enumerate(DECISION_KINDS)}
        self.per_seat = 2 + len(STATUSES) + len(self.numbers) + len(self.modifiers) + 3
        self.size = seats * self.per_seat + 3 + 4 * len(self.labels) + len(self.kinds)

    def encode(self, obs: Mapping[str, Any]) -> np.ndarray:
        """The vector of an observation of :func:`engine.observe` (with ``unseen``)."""
        v = np.zeros(self.size, dtype=np.float32)
        me = obs["seat"]
        n = self.seats
        for k in range(n):
            p = obs["players"][(me + k) % n]
            at = k * self.per_seat
            v[at] = p["total"]
            v[at + 1] = p["line_score"]
            v[at + 2 + STATUSES.index(p["status"])] = 1
            at += 2 + len(STATUSES)
            for lb in p["numbers"]:
                v[at + self.numbers[lb]] += 1
            at += len(self.numbers)
            for lb in p["modifiers"]:
                v[at + self.modifiers[lb]] += 1
            at += len(self.modifiers)
            v[at] = p["second_chance"]
            v[at + 1] = 1 if p["flip7"] else 0
            v[at + 2] = 1 if obs["dealer"] == p["seat"] else 0
        at = n * self.per_seat
        v[at : at + 3] = (obs["round"], obs["deck_size"], obs["target_score"])
        at += 3
        width = len(self.labels)
        for lb, count in obs["unseen"].items():
            v[at + self.labels[lb]] = count
        at += width
        for lb in obs["discard"]:
            v[at + self.labels[lb]] += 1
        at += width
        for lb in obs["pending"]:
            v[at + self.labels[lb]] += 1
        at += width
        d = obs.get("decision")
        if d is not None:
            if d["card"] is not None:
                v[at + self.labels[d["card"]]] = 1
            v[at + width + self.kinds[d["kind"]]] = 1
        return v


def outcome(game: Game, seat: int) -> float:
    """The seat's end-of-game reward: the share of the other seats it beat, minus the
    share that beat it (ranks: 0 is first, ties share a rank)."""
    if game.n < 2:
        return 0.0
    ranks = game.ranks
    mine = ranks[seat]
    beat = sum(1 for s, r in enumerate(ranks) if s != seat and r > mine)
    lost = sum(1 for s, r in enumerate(ranks) if s != seat and r < mine)
    return (beat - lost) / (game.n - 1)
