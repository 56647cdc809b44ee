"""The event log's vocabulary: each event tuple as a dict with named fields.

Events are recorded as compact tuples ``(kind, *fields)`` in the hot path; this module names
the fields so that bots, reports and tests can read them.
"""

from __future__ import annotations

from typing import Any

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


def event_dict(event: tuple[Any, ...]) -> dict[str, Any]:
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
