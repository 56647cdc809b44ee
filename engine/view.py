"""A read-only game built from an observation, so policies run the same on both sides.

The built-in policies read a :class:`~engine.game.Game`'s public parts (lines, statuses,
totals, the unseen multiset). A bot only has an observation (engine.observation.observe,
or the protocol's Observation message turned into a dict). :class:`PublicGame` rebuilds
exactly those public parts from it, so ``policy(PublicGame(obs), decision)`` chooses what
``policy(game, decision)`` would in-process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards import Card, CardType
from engine.game import ACTIVE, BUSTED, FROZEN, STAYED, Decision, Player
from engine.rulesets import RULESETS, Ruleset

_STATUS = {s: s for s in (ACTIVE, STAYED, FROZEN, BUSTED)}  # interned engine constants


def ruleset_of(obs: Mapping[str, Any]) -> Ruleset:
    opts = obs.get("options") or {}
    rules = RULESETS[obs["variant"]]
    changes = {}
    if opts.get("brutal", False) != rules.brutal:
        changes["brutal"] = bool(opts["brutal"])
    target = opts.get("target_score", obs.get("target_score", rules.target_score))
    if target != rules.target_score:
        changes["target_score"] = int(target)
    return rules.with_options(**changes) if changes else rules


class PublicGame:
    """The public state of a game, shaped like :class:`~engine.game.Game` for policies."""

    def __init__(self, obs: Mapping[str, Any]) -> None:
        self.ruleset = rules = ruleset_of(obs)
        by_label: dict[str, Card] = {}
        for c in rules.cards:
            by_label.setdefault(c.label, c)
        self._cards = by_label
        self.n = int(obs["seats"])
        self.order = [int(s) for s in obs.get("order", ())]
        self.round = int(obs.get("round", 0))
        self.players: list[Player] = []
        for view in sorted(obs["players"], key=lambda v: v["seat"]):
            p = Player(int(view["seat"]))
            p.total = int(view["total"])
            p.status = _STATUS[view["status"]]
            for label in view["numbers"]:
                p.numbers.append(by_label[label])
            p.recount()
            p.modifiers = [by_label[label] for label in view["modifiers"]]
            sc = by_label.get("SECOND_CHANCE")
            p.extras = [sc] * int(view.get("second_chance", 0)) if sc else []
            p.flip7 = bool(view.get("flip7", False))
            self.players.append(p)
        self.discard = [by_label[label] for label in obs.get("discard", ())]
        unseen: Mapping[str, int] = obs.get("unseen") or {}
        self.deck_count: dict[CardType, int] = {
            by_label[label].type: int(n) for label, n in unseen.items() if n
        }
        # only the size of the draw pile is public; its contents are in deck_count
        self.deck: Sequence[None] = [None] * int(obs.get("deck_size", sum(unseen.values())))

    def decision(self, kind: str, seat: int, options: Sequence[Any], card: str | None) -> Decision:
        return Decision(kind, seat, tuple(options), card)
