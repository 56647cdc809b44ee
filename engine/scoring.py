"""Round-score helpers shared by the observation and the policies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.game import BUSTED, FLIP7_BONUS_POINTS, Player

if TYPE_CHECKING:
    from engine.view import GameView


def line_value(game: GameView, p: Player) -> int:
    """What the player would bank if the round ended now (busted: 0, or Brutal's minus)."""
    rules = game.ruleset
    if not (p.numbers or p.modifiers):
        return 0  # an empty line (also: the table was cleared after the last round)
    if p.status is BUSTED:
        return rules.bust_score(p, rules)
    v = rules.score(p, rules)
    if p.flip7:
        v += FLIP7_BONUS_POINTS
    return v
