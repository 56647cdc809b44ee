"""The event log's vocabulary: each event tuple as a dict with named fields.

Events are recorded as compact tuples ``(kind, *fields)`` in the hot path; this module names
the fields so that bots, reports and tests can read them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

from engine.game import (
    CHOOSE_TARGET,
    DISCARD,
    FLIP7_BONUS,
    GIVE_MODIFIER,
    GIVE_SECOND_CHANCE,
    HIT,
    HIT_OR_STAY,
    STAY,
    STEAL,
    SWAP,
    Decision,
    Option,
)
from engine.game import Event as Event  # the event type lives with the game that records it


class EventKind(StrEnum):
    """The kinds of events a game records (the first element of each event tuple). Members
    are the strings the log holds, so they compare and hash equal to them."""

    ROUND_START = "round_start"
    DEAL = "deal"
    DRAW = "draw"
    RESHUFFLE = "reshuffle"
    STAY = "stay"
    FROZEN = "frozen"
    BUST = "bust"
    FLIP7 = "flip7"
    ACTION = "action"
    SET_ASIDE = "set_aside"
    ASSIGN = "assign"
    RESOLVE = "resolve"
    DISCARD = "discard"
    SECOND_CHANCE_USED = "second_chance_used"
    SECOND_CHANCE_GIVEN = "second_chance_given"
    MODIFIER = "modifier"
    STEAL = "steal"
    DISCARDED = "discarded"
    SWAP = "swap"
    UNLUCKY7 = "unlucky7"
    FLIP7_PENALTY = "flip7_penalty"
    ROUND_END = "round_end"
    TIE_CONTINUE = "tie_continue"
    GAME_OVER = "game_over"

    __repr__ = str.__repr__


# kind -> names of the tuple's fields after the kind
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "round_start": ("round", "seat"),  # seat = the dealer
    "deal": ("seat", "card"),
    "draw": ("seat", "card"),
    "reshuffle": ("count",),
    "stay": ("seat",),
    "frozen": ("seat",),
    "bust": ("seat", "card"),
    "flip7": ("seat",),
    "action": ("seat", "card", "target"),
    "set_aside": ("seat", "card"),
    "assign": ("seat", "card", "target"),
    "resolve": ("seat", "card"),
    "discard": ("card", "reason"),
    "second_chance_used": ("seat", "card"),
    "second_chance_given": ("seat", "target"),
    "modifier": ("seat", "card", "target"),
    "steal": ("seat", "target", "card"),
    "discarded": ("seat", "target", "card"),
    "swap": ("seat", "a", "card_a", "b", "card_b"),
    "unlucky7": ("seat", "cards"),
    "flip7_penalty": ("seat", "target"),
    "round_end": ("round", "scores", "totals"),
    "tie_continue": ("seats",),
    "game_over": ("seats", "totals"),  # seats = the winners
}


def event_dict(event: Event) -> dict[str, Any]:  # JSON-shaped: values of several types
    """``("draw", 2, "7")`` → ``{"kind": "draw", "seat": 2, "card": "7"}``."""
    kind = event[0]
    names = EVENT_FIELDS[kind]
    out: dict[str, Any] = {"kind": kind}
    for name, value in zip(names, event[1:], strict=True):
        if name in ("scores", "totals", "seats", "cards"):
            value = list(value)
        out[name] = value
    if kind == "swap":  # normalise to seats/cards lists
        out["seats"] = [out.pop("a"), out.pop("b")]
        out["cards"] = [out.pop("card_a"), out.pop("card_b")]
    return out


# fields that event_dict turns from tuples into lists
_LIST_FIELDS = frozenset({"scores", "totals", "seats", "cards"})


def event_tuple(event: Mapping[str, Any]) -> Event:
    """The inverse of :func:`event_dict`: ``{"kind": "draw", "seat": 2, "card": "7"}`` →
    ``("draw", 2, "7")`` (lists back to tuples, a swap's seats/cards back to its fields)."""
    kind = event["kind"]
    if kind == "swap":
        (a, b), (card_a, card_b) = event["seats"], event["cards"]
        return (kind, event["seat"], a, card_a, b, card_b)
    values = [
        tuple(event[name]) if name in _LIST_FIELDS else event[name] for name in EVENT_FIELDS[kind]
    ]
    return (kind, *values)


# Which event records the answer to a decision, and the answer's option value in it:
# decision kind -> (event kinds, value from the event, value when another event follows).
# The chooser is always the event's first field. HIT_OR_STAY: a HIT is followed by the
# card's draw or deal (or a reshuffle); FLIP7_BONUS: +15 for oneself leaves no event.
ANSWERS: dict[str, tuple[tuple[str, ...], Callable[[Event], Option], Option]] = {
    HIT_OR_STAY: (("stay",), lambda e: STAY, HIT),
    CHOOSE_TARGET: (("action", "assign"), lambda e: e[3], None),
    GIVE_SECOND_CHANCE: (("second_chance_given",), lambda e: e[2], None),
    GIVE_MODIFIER: (("modifier",), lambda e: e[3], None),
    STEAL: (("steal",), lambda e: (e[2], e[3]), None),
    DISCARD: (("discarded",), lambda e: (e[2], e[3]), None),
    SWAP: (("swap",), lambda e: ((e[2], e[3]), (e[4], e[5])), None),
    FLIP7_BONUS: (("flip7_penalty",), lambda e: e[2], -1),
}


def answer_from_event(decision: Decision, event: Event | None) -> int:
    """The option index that ``decision`` was answered with, read from the event that the
    answer produced first (None: the log ends here). Raises ValueError if none fits."""
    kinds, value_of, otherwise = ANSWERS[decision.kind]
    if event is not None and event[0] in kinds and event[1] == decision.seat:
        value = value_of(event)
        if value in decision.options:
            return decision.options.index(value)
    if otherwise is not None and otherwise in decision.options:
        return decision.options.index(otherwise)
    raise ValueError(f"no option of {decision!r} explains the event {event!r}")
