"""Card types and decks.

A *card type* is data plus the small functions that give it behaviour (how it is received,
how it is applied once a target is known). A *card* is one physical copy of a type with a
unique id, so every card of a deck can be accounted for at any moment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

NUMBER = "number"
MODIFIER = "modifier"
ACTION = "action"

# A receive handler is called when a card arrives at a seat. It returns None when the card
# took effect at once, or a generator that yields decisions (see engine.game).
Handler = Callable[..., Any]


class CardType:
    """What a kind of card is and does. Shared by all copies of it."""

    __slots__ = (
        "label",
        "name",
        "kind",
        "value",
        "receive",
        "apply",
        "op",
        "targets",
        "blocks_stay",
        "sets_aside_in",
    )

    def __init__(
        self,
        label: str,
        name: str,
        kind: str,
        value: int = 0,
        receive: Handler | None = None,
        apply: Handler | None = None,
        op: str = "",
        targets: Handler | None = None,
        blocks_stay: bool = False,
        sets_aside_in: frozenset[str] = frozenset(),
    ) -> None:
        self.label = label
        self.name = name
        self.kind = kind
        self.value = value
        self.receive = receive
        self.apply = apply
        # modifiers: "+", "x2", "/2" or "-"; empty for other kinds
        self.op = op
        # actions: the seats a chooser may target, as a function (game, chooser) -> list
        self.targets = targets
        self.blocks_stay = blocks_stay
        # names of draw sequences ("flip_three", "flip_four") that set this card aside
        self.sets_aside_in = sets_aside_in

    def __repr__(self) -> str:
        return f"CardType({self.label!r})"


class Card:
    """One physical card. Identity matters: two 12s are different cards."""

    __slots__ = ("uid", "type", "label", "kind", "value", "receive")

    def __init__(self, uid: int, ctype: CardType) -> None:
        self.uid = uid
        self.type = ctype
        self.label = ctype.label
        self.kind = ctype.kind
        self.value = ctype.value
        self.receive = ctype.receive

    def __repr__(self) -> str:
        return f"<{self.label}#{self.uid}>"


def build_deck(spec: Iterable[tuple[CardType, int]]) -> tuple[Card, ...]:
    """Physical cards for a deck spec of (type, copies), uids in spec order."""
    cards: list[Card] = []
    for ctype, copies in spec:
        for _ in range(copies):
            cards.append(Card(len(cards), ctype))
    return tuple(cards)
