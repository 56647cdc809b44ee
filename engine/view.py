"""A read-only game built from an observation, so policies run the same on both sides.

The built-in policies read a :class:`~engine.game.Game`'s public parts (lines, statuses,
totals, the unseen multiset). A bot only has an observation (engine.observation.observe,
or the protocol's Observation message). :class:`PublicGame` rebuilds exactly those public
parts, so ``policy(PublicGame.from_observation(obs), decision)`` chooses what
``policy(game, decision)`` would in-process.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import Any, Protocol

from engine.cards import Card, CardType
from engine.game import ACTIVE, BUSTED, FROZEN, STAYED, Player
from engine.rulesets import RULESETS, Ruleset

_STATUS = {s: s for s in (ACTIVE, STAYED, FROZEN, BUSTED)}  # interned engine constants
_CARDS: dict[int, dict[str, Card]] = {}

# (seat, status, numbers, modifiers, second chances, total, flip7)
PlayerData = tuple[int, str, Iterable[str], Iterable[str], int, int, bool]


def ruleset_for(variant: str, brutal: bool, target_score: int) -> Ruleset:
    rules = RULESETS[variant]
    changes: dict[str, bool | int] = {}
    if brutal != rules.brutal:
        changes["brutal"] = brutal
    if target_score and target_score != rules.target_score:
        changes["target_score"] = target_score
    return rules.with_options(**changes) if changes else rules


def cards_by_label(rules: Ruleset) -> dict[str, Card]:
    """One card object per label of a ruleset (shared, read-only)."""
    key = id(rules.cards)
    table = _CARDS.get(key)
    if table is None:
        table = {}
        for c in rules.cards:
            table.setdefault(c.label, c)
        _CARDS[key] = table
    return table


def make_player(
    by_label: Mapping[str, Card],
    second_chance: Card | None,
    seat: int,
    status: str,
    numbers: Iterable[str],
    modifiers: Iterable[str],
    chances: int,
    total: int,
    flip7: bool,
) -> Player:
    """One seat's public line as an engine Player (cards looked up by label)."""
    p = Player(seat)
    p.total = total
    p.status = _STATUS[status]
    p.numbers = [by_label[label] for label in numbers]
    p.recount()
    p.modifiers = [by_label[label] for label in modifiers]
    p.extras = [second_chance] * chances if second_chance is not None else []
    p.flip7 = flip7
    return p


class GameView(Protocol):
    """What the built-in policies read of a game: its public parts. Both
    :class:`~engine.game.Game` and :class:`PublicGame` are game views."""

    @property
    def ruleset(self) -> Ruleset: ...
    @property
    def n(self) -> int: ...
    @property
    def players(self) -> Sequence[Player]: ...
    @property
    def discard(self) -> Sequence[Card]: ...
    @property
    def deck(self) -> Sized: ...  # only the draw pile's size is public
    @property
    def deck_count(self) -> Mapping[CardType, int]: ...


class PublicGame:
    """The public state of a game, shaped like :class:`~engine.game.Game` for policies."""

    def __init__(
        self,
        rules: Ruleset,
        seats: int,
        order: Sequence[int],
        round: int,
        players: Iterable[PlayerData],
        discard: Iterable[str],
        unseen: Mapping[str, int],
        deck_size: int,
    ) -> None:
        self.ruleset = rules
        by_label = cards_by_label(rules)
        sc = by_label.get("SECOND_CHANCE")
        self.n = seats
        self.order = list(order)
        self.round = round
        self.players: list[Player] = [
            make_player(by_label, sc, *data) for data in sorted(players, key=lambda t: t[0])
        ]
        self.discard = [by_label[label] for label in discard]
        self.deck_count: dict[CardType, int] = {
            by_label[label].type: n for label, n in unseen.items() if n
        }
        # only the size of the draw pile is public; its contents are in deck_count
        self.deck: Sequence[None] = [None] * deck_size

    @classmethod
    def from_observation(cls, obs: Mapping[str, Any]) -> PublicGame:  # JSON-shaped input
        """From the dict of engine.observation.observe (or its protocol twin)."""
        opts = obs.get("options") or {}
        rules = ruleset_for(
            obs["variant"],
            bool(opts.get("brutal", False)),
            int(opts.get("target_score", obs.get("target_score", 0)) or 0),
        )
        unseen: Mapping[str, int] = obs.get("unseen") or {}
        return cls(
            rules,
            int(obs["seats"]),
            obs.get("order", ()),
            int(obs.get("round", 0)),
            (
                (
                    int(v["seat"]),
                    v["status"],
                    v["numbers"],
                    v["modifiers"],
                    int(v.get("second_chance", 0)),
                    int(v["total"]),
                    bool(v.get("flip7", False)),
                )
                for v in obs["players"]
            ),
            obs.get("discard", ()),
            unseen,
            int(obs.get("deck_size", sum(unseen.values()))),
        )
