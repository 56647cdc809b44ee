"""Built-in policies for in-process play: ``random``, ``threshold:N`` and ``ev``.

A policy is a callable ``policy(game, decision) -> option index``, the game a Game or any
other game view (engine.view.GameView, e.g. a PublicGame built from an observation). It
reads only public state: lines, statuses, totals and the unseen multiset (X10), never the
draw order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from engine.cards import CardType
from engine.game import (
    CHOOSE_TARGET,
    DISCARD,
    FLIP7_BONUS,
    FLIP7_BONUS_POINTS,
    FLIP7_CARDS,
    GIVE_MODIFIER,
    GIVE_SECOND_CHANCE,
    HIT_OR_STAY,
    STEAL,
    SWAP,
    Decision,
    Option,
    Player,
)
from engine.rulesets import Ruleset
from engine.scoring import line_value
from engine.vengeance import is_duplicate
from engine.view import GameView

Policy = Callable[[GameView, Decision], int]

# cards that are good for whoever receives them / bad for whoever receives them
_HELPFUL_ACTIONS = {"SECOND_CHANCE"}
_RISKY_ACTIONS = {"FLIP_THREE", "FLIP_FOUR", "JUST_ONE_MORE"}


class PolicyError(ValueError):
    """A policy spec that cannot be parsed."""


def _standing(game: GameView, seat: int) -> int:
    p = game.players[seat]
    return p.total + line_value(game, p)


def _others(seats: Iterable[int], me: int) -> list[int]:
    return [s for s in seats if s != me]


def hit_gain(game: GameView, p: Player) -> float:
    """Expected change of the player's line value from drawing one more card.

    Counts the unseen cards (the draw pile, or the discard pile when the draw pile is empty
    and would be reshuffled). Numbers are scored exactly; modifiers by their value; action
    cards count as neutral.
    """
    rules = game.ruleset
    counts = game.deck_count
    if not game.deck:
        counts = {}
        for c in game.discard:
            counts[c.type] = counts.get(c.type, 0) + 1
    total = 0
    gain = 0.0
    current = line_value(game, p)
    ranks = p.ranks
    n_numbers = len(p.numbers)
    has_sc = bool(p.extras)
    s = p.sum
    score = rules.scorer(p, rules)
    solo = game.n == 1
    for ctype in rules.types:  # a fixed order, so the sum is the same on every side
        n = counts.get(ctype)
        if not n:
            continue
        total += n
        kind = ctype.kind
        if kind == "number":
            v = ctype.value
            if ctype.label == "U7":  # V4: the line is wiped down to this 7
                gain += n * (7 - current)
                continue
            if ctype.blocks_stay:  # V3: The Zero scores the line 0 without Flip 7
                gain -= n * current
                continue
            if v in ranks and is_duplicate(p, ctype):  # the game's rule, Lucky 13 included
                if not has_sc:
                    gain -= n * current
                continue
            new = score(s + v)
            if n_numbers + 1 >= FLIP7_CARDS:
                new += FLIP7_BONUS_POINTS
            gain += n * (new - current)
        elif kind == "modifier":
            op = ctype.op
            if op == "+":
                gain += n * ctype.value
            elif op == "x2":
                gain += n * s
            elif solo and op == "-":  # otherwise it is given to an opponent
                gain -= n * min(ctype.value, current)
            elif solo and op == "/2":
                gain -= n * (current // 2)
        elif ctype.label == "SECOND_CHANCE" and not has_sc:
            gain += n * 0.1 * current
    return gain / total if total else 0.0


# ------------------------------------------------------------------ policies
class RandomPolicy:
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def __call__(self, game: GameView, d: Decision) -> int:
        return self.rng.randrange(len(d.options))


class ThresholdPolicy:
    """Stay once the number-card sum reaches N; sensible targets (see :class:`Targeting`)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.name = f"threshold:{n}"
        self.targeting = Targeting(lambda g, p: 1.0 if p.sum < self.n else -1.0)

    def __call__(self, game: GameView, d: Decision) -> int:
        if d.kind == HIT_OR_STAY:
            if len(d.options) == 2 and game.players[d.seat].sum >= self.n:
                return 1
            return 0
        return self.targeting(game, d)


class EVPolicy:
    """Hits while the expected gain of one more card is positive; targets by expected gain."""

    name = "ev"

    def __init__(self) -> None:
        self.targeting = Targeting(lambda g, p: hit_gain(g, p))

    def __call__(self, game: GameView, d: Decision) -> int:
        if d.kind == HIT_OR_STAY:
            if len(d.options) == 2 and hit_gain(game, game.players[d.seat]) <= 0:
                return 1
            return 0
        return self.targeting(game, d)


class Targeting:
    """Target choices shared by the non-random policies.

    ``appetite(game, player)`` says how much that player wants another card (> 0: wants
    it). Helping oneself and hurting opponents is scored, and hurting an opponent is worth
    more the higher their standing (game total plus line).
    """

    def __init__(self, appetite: Callable[[GameView, Player], float]) -> None:
        self.appetite = appetite

    def weight(self, game: GameView, seat: int) -> float:
        return 1.0 + max(0, _standing(game, seat)) / 100.0

    def __call__(self, game: GameView, d: Decision) -> int:
        kind = d.kind
        me = d.seat
        opts = d.options
        if kind == CHOOSE_TARGET:
            return self._target(game, d)
        if kind == GIVE_SECOND_CHANCE:
            # the weakest opponent benefits least from it
            return min(range(len(opts)), key=lambda i: _standing(game, opts[i]))
        if kind == GIVE_MODIFIER:
            return self._give_modifier(game, d)
        if kind in (STEAL, DISCARD, SWAP):
            return self._card_choice(game, d)
        if kind == FLIP7_BONUS:
            mine = game.players[me].total + FLIP7_BONUS_POINTS
            best = max(
                range(len(opts)), key=lambda i: -1 if opts[i] < 0 else _standing(game, opts[i])
            )
            if opts[best] >= 0 and game.players[opts[best]].total > mine:
                return best
            return 0
        return 0

    def _target(self, game: GameView, d: Decision) -> int:
        me = d.seat
        card = d.card or ""
        players = game.players
        scores = []
        for seat in d.options:
            p = players[seat]
            want = self.appetite(game, p)
            if card == "FREEZE":
                # freezing takes the rest of the round away: good against an opponent
                # who wants more cards, good for me when I would rather stop
                v = -want if seat == me else want * self.weight(game, seat)
            elif card in _RISKY_ACTIONS:
                # forced draws: good for whoever wants cards
                v = want if seat == me else -want * self.weight(game, seat)
            else:
                v = 0.0
            scores.append(v)
        return max(range(len(scores)), key=scores.__getitem__)

    def _give_modifier(self, game: GameView, d: Decision) -> int:
        label = d.card or ""
        harmful = label.startswith("-") or label.startswith("/")
        me = d.seat
        best = 0
        best_v = float("-inf")
        for i, seat in enumerate(d.options):
            st = _standing(game, seat)
            if harmful:
                v = -1e9 if seat == me else st
            else:
                v = 1e9 if seat == me else -st
            if v > best_v:
                best, best_v = i, v
        return best

    def _card_choice(self, game: GameView, d: Decision) -> int:
        """Steal / Discard / Swap: maximise my gain plus the loss of the strongest rival."""
        me = d.seat
        best = 0
        best_v = float("-inf")
        for i, opt in enumerate(d.options):
            v = _card_option_value(game, d.kind, me, opt, self)
            if v > best_v:
                best, best_v = i, v
        return best


def _card_value_to(game: GameView, seat: int, label: str) -> float:
    """Rough worth of holding a face-up card (numbers by value, modifiers by effect)."""
    p = game.players[seat]
    if label in ("0", "ZERO"):
        return -float(line_value(game, p)) - 5.0
    if label == "U7":
        return 7.0 - p.sum
    if label.startswith("-"):
        return -float(label[1:])
    if label == "/2":
        return -p.sum / 2
    if label.startswith("+"):
        return float(label[1:])
    if label == "x2":
        return float(p.sum)
    try:
        return float(label.lstrip("L"))
    except ValueError:
        return 0.0


def _would_bust(game: GameView, seat: int, label: str) -> bool:
    """Would this face-up card bust the seat if it arrived in its line?"""
    ctype = _types_by_label(game.ruleset).get(label)
    if ctype is None or ctype.kind != "number":
        return False
    return is_duplicate(game.players[seat], ctype)


_TYPE_TABLES: dict[int, dict[str, CardType]] = {}


def _types_by_label(rules: Ruleset) -> dict[str, CardType]:
    table = _TYPE_TABLES.get(id(rules.types))
    if table is None:
        table = _TYPE_TABLES[id(rules.types)] = {t.label: t for t in rules.types}
    return table


def _card_option_value(game: GameView, kind: str, me: int, opt: Option, t: Targeting) -> float:
    if kind == STEAL:
        seat, label = opt
        gain = -1e6 if _would_bust(game, me, label) else _card_value_to(game, me, label)
        return gain + _card_value_to(game, seat, label) * t.weight(game, seat)
    if kind == DISCARD:
        seat, label = opt
        worth = _card_value_to(game, seat, label)
        return -worth if seat == me else worth * t.weight(game, seat)
    # SWAP: ((a, la), (b, lb)); a gets lb and b gets la
    (a, la), (b, lb) = opt
    v = 0.0
    for seat, give, get in ((a, la, lb), (b, lb, la)):
        delta = _card_value_to(game, seat, get) - _card_value_to(game, seat, give)
        if _would_bust(game, seat, get):
            delta = -float(line_value(game, game.players[seat])) - 1
        v += delta if seat == me else -delta * t.weight(game, seat)
    return v


# ------------------------------------------------------------------ specs
POLICY_HELP = "random | threshold:N (0–200) | ev"


def parse_policy(spec: str) -> str:
    """Validate a policy spec and return it normalised; raises PolicyError."""
    s = spec.strip().lower()
    if s in ("random", "ev"):
        return s
    if s.startswith("threshold"):
        _, _, arg = s.partition(":")
        try:
            n = int(arg)
        except ValueError:
            raise PolicyError(
                f"bad policy {spec!r}: threshold needs a number, e.g. threshold:23"
            ) from None
        if not 0 <= n <= 200:
            raise PolicyError(f"bad policy {spec!r}: threshold must be between 0 and 200")
        return f"threshold:{n}"
    raise PolicyError(f"unknown policy {spec!r} (choose from {POLICY_HELP})")


def make_policy(spec: str, seed: int = 0) -> Policy:
    s = parse_policy(spec)
    if s == "random":
        return RandomPolicy(seed)
    if s == "ev":
        return EVPolicy()
    return ThresholdPolicy(int(s.partition(":")[2]))
