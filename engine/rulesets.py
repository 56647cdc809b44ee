"""Rulesets are data: a deck of card types (which carry their behaviour), a scoring order,
and options. ``RULESETS[name].with_options(...)`` derives a variant."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from engine.base import base_deck, score_base, score_busted, scorer_base
from engine.cards import Card, CardType, build_deck
from engine.vengeance import (
    score_busted_brutal,
    score_vengeance,
    scorer_vengeance,
    vengeance_deck,
)

if TYPE_CHECKING:
    from engine.game import Player

# an option's value: brutal and auto_single are bools, target_score and max_tie_rounds ints
OptionValue = bool | int


class ScoreFn(Protocol):
    """A round score: of the player's line, or of ``number_sum`` in place of its numbers."""

    def __call__(self, p: Player, rules: Ruleset, number_sum: int | None = None) -> int: ...


# (player, ruleset) -> (number sum -> score), the modifiers fixed
ScorerFn = Callable[["Player", "Ruleset"], Callable[[int], int]]


@dataclass(frozen=True)
class Ruleset:
    name: str
    deck: tuple[tuple[CardType, int], ...]
    score: ScoreFn
    bust_score: ScoreFn
    scorer: ScorerFn
    brutal: bool = False
    target_score: int = 200
    auto_single: bool = True  # X9: apply a single legal option without asking
    max_tie_rounds: int = 50  # X1 ruling
    cards: tuple[Card, ...] = field(default=(), compare=False, repr=False)
    types: tuple[CardType, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.cards:
            object.__setattr__(self, "cards", build_deck(self.deck))
        if not self.types:
            object.__setattr__(self, "types", tuple(t for t, _ in self.deck))

    @property
    def deck_size(self) -> int:
        return len(self.cards)

    def with_options(self, **options: OptionValue) -> Ruleset:
        """A copy with options changed (brutal, target_score, auto_single, max_tie_rounds)."""
        allowed = {"brutal", "target_score", "auto_single", "max_tie_rounds"}
        unknown = set(options) - allowed
        if unknown:
            raise ValueError(f"unknown ruleset option(s): {', '.join(sorted(unknown))}")
        # each option's value type goes with its name, which a ** mapping cannot say
        return dataclasses.replace(self, **options)  # type: ignore[arg-type]

    def describe(self) -> dict[str, str | OptionValue]:
        return {
            "variant": self.name,
            "brutal": self.brutal,
            "target_score": self.target_score,
            "auto_single": self.auto_single,
            "max_tie_rounds": self.max_tie_rounds,
            "deck_size": self.deck_size,
        }


BASE = Ruleset("base", tuple(base_deck()), score_base, score_busted, scorer_base)

VENGEANCE = Ruleset(
    "vengeance", tuple(vengeance_deck()), score_vengeance, score_busted_brutal, scorer_vengeance
)

RULESETS: dict[str, Ruleset] = {"base": BASE, "vengeance": VENGEANCE}


def get_ruleset(variant: str, **options: OptionValue) -> Ruleset:
    try:
        rs = RULESETS[variant]
    except KeyError:
        raise ValueError(
            f"unknown variant {variant!r} (choose from {', '.join(RULESETS)})"
        ) from None
    return rs.with_options(**options) if options else rs
