"""Card types and decks.

A *card type* is data plus the small functions that give it behaviour (how it is received,
how it is applied once a target is known). A *card* is one physical copy of a type with a
unique id, so every card of a deck can be accounted for at any moment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NoReturn, TypeAlias

if TYPE_CHECKING:
    from engine.game import Flow, Game

NUMBER = "number"
MODIFIER = "modifier"
ACTION = "action"

# A receive handler ``(game, seat, card)`` is called when a card arrives at a seat; it
# returns None when the card took effect at once, or a generator that yields decisions
# (a flow, see engine.game). An apply handler ``(game, chooser, target, card)`` resolves a
# targeted action once its target is known. A targets function ``(game, chooser)`` lists
# the seats a chooser may target.
Receive: TypeAlias = "Callable[[Game, int, Card], Flow | None]"
Apply: TypeAlias = "Callable[[Game, int, int, Card], Flow | None]"
Targets: TypeAlias = "Callable[[Game, int], list[int]]"
Handler = Callable[..., object]  # any of the three (kept for code written against it)


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
        receive: Receive | None = None,
        apply: Apply | None = None,
        op: str = "",
        targets: Targets | None = None,
        blocks_stay: bool = False,
        sets_aside_in: frozenset[str] = frozenset(),
    ) -> None:
        self.label = label
        self.name = name
        self.kind = kind
        self.value = value
        # a type without a handler raises when the handler is needed
        self.receive: Receive = receive or _missing(label, "receive")
        self.apply: Apply = apply or _missing(label, "apply")
        # modifiers: "+", "x2", "/2" or "-"; empty for other kinds
        self.op = op
        # actions: the seats a chooser may target
        self.targets: Targets = targets or _missing(label, "targets")
        self.blocks_stay = blocks_stay
        # names of draw sequences ("flip_three", "flip_four") that set this card aside
        self.sets_aside_in = sets_aside_in

    def __repr__(self) -> str:
        return f"CardType({self.label!r})"


def _missing(label: str, handler: str) -> Callable[..., NoReturn]:
    """A stand-in for a handler that a card type does not have (its arguments vary by
    handler, hence the ``...``)."""

    def fail(*args: object) -> NoReturn:
        raise TypeError(f"card type {label!r} has no {handler} handler")

    return fail


class Card:
    """One physical card. Identity matters: two 12s are different cards."""

    __slots__ = ("uid", "type", "label", "kind", "value", "receive")

    def __init__(self, uid: int, ctype: CardType) -> None:
        self.uid = uid
        self.type = ctype
        self.label = ctype.label
        self.kind = ctype.kind
        self.value = ctype.value
        self.receive: Receive = ctype.receive

    def __repr__(self) -> str:
        return f"<{self.label}#{self.uid}>"


def build_deck(spec: Iterable[tuple[CardType, int]]) -> tuple[Card, ...]:
    """Physical cards for a deck spec of (type, copies), uids in spec order."""
    cards: list[Card] = []
    for ctype, copies in spec:
        for _ in range(copies):
            cards.append(Card(len(cards), ctype))
    return tuple(cards)
