"""Card behaviour of the base game (docs/rules.md section B), one small function per card.

Receive handlers have the signature ``(game, seat, card)`` and return ``None`` when the card
took effect at once, or a generator (a *flow*) that yields decisions. Apply handlers
``(game, chooser, target, card)`` resolve a targeted action once its target is known.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.cards import ACTION, MODIFIER, NUMBER, Card, CardType
from engine.game import (
    ACTIVE,
    BUSTED,
    CHOOSE_TARGET,
    FLIP7_CARDS,
    GIVE_SECOND_CHANCE,
    Decision,
    Flow,
    Game,
)

if TYPE_CHECKING:
    from engine.game import Player
    from engine.rulesets import Ruleset


# what becomes of the cards a draw sequence set aside: (game, target, cards in draw order)
Resolve = Callable[[Game, int, list[Card]], Flow]


# ---------------------------------------------------------------- numbers (X7, X8, B5)
def receive_number(g: Game, seat: int, card: Card) -> None:
    p = g.players[seat]
    if card.value in p.ranks:
        if p.extras:  # B5: the Second Chance absorbs the duplicate
            sc = p.extras.pop()
            g.discard.append(card)
            g.discard.append(sc)
            g.ev(("second_chance_used", seat, card.label))
            return None
        g.bust(seat, card)
        return None
    numbers = p.numbers  # Player.add_number, inlined (the commonest card)
    numbers.append(card)
    p.sum += card.value
    p.ranks.add(card.value)
    if len(numbers) >= FLIP7_CARDS:
        g.flip7(seat)
    return None


# ---------------------------------------------------------------- modifiers (B6)
def receive_own_modifier(g: Game, seat: int, card: Card) -> None:
    g.players[seat].modifiers.append(card)
    return None


# ---------------------------------------------------------------- Second Chance (B5)
def receive_second_chance(g: Game, seat: int, card: Card) -> Flow | None:
    p = g.players[seat]
    if not p.extras:
        p.extras.append(card)
        return None
    return _pass_second_chance(g, seat, card)


def _pass_second_chance(g: Game, seat: int, card: Card) -> Flow:
    players = g.players
    takers = [
        s for s in g.order if s != seat and players[s].status is ACTIVE and not players[s].extras
    ]
    if not takers:
        g.discard.append(card)
        g.ev(("discard", card.label, "no_target"))
        return
    g.limbo.append(card)  # held while the giver chooses, so the card stays accounted for
    idx = yield Decision(GIVE_SECOND_CHANCE, seat, takers, card.label)
    g.limbo.remove(card)
    to = takers[idx]
    players[to].extras.append(card)
    g.ev(("second_chance_given", seat, to))


# ---------------------------------------------------------------- targeted actions (X9)
def receive_targeted(g: Game, seat: int, card: Card) -> Flow:
    """Freeze, Flip Three (and Vengeance actions): choose a legal target, then apply."""
    g.limbo.append(card)
    ctype = card.type
    targets = ctype.targets(g, seat)
    if not targets:
        g.to_discard(card, "no_target")
        return
    idx = yield Decision(CHOOSE_TARGET, seat, targets, card.label)
    target = targets[idx]
    g.ev(("action", seat, card.label, target))
    flow = ctype.apply(g, seat, target, card)
    if flow is not None:
        yield from flow
    g.retire(card)


def apply_freeze(g: Game, chooser: int, target: int, card: Card) -> None:
    """B3: the target stays at once and banks their line."""
    g.freeze(target)
    return None


class DrawSequence:
    """A forced draw sequence as data: Flip Three (B4) and Flip Four! (V7).

    The target draws up to ``count`` cards one at a time and cannot stop part-way; the
    sequence ends early on a bust, a Flip 7 (X8) or an exhausted deck (X4 ruling). A card
    whose type lists ``name`` in ``sets_aside_in`` is set aside (held in limbo) instead of
    being received. After the draws: on a Flip 7 everything pending is left for the round's
    end (X8); on a bust the set-aside cards are discarded (B4b, V7); otherwise ``resolve``
    ``(game, target, set-aside cards)`` decides what becomes of them. An instance is an
    apply handler ``(game, chooser, target, card)``.
    """

    __slots__ = ("name", "count", "resolve")

    def __init__(self, name: str, count: int, resolve: Resolve) -> None:
        self.name = name
        self.count = count
        self.resolve = resolve

    def __call__(self, g: Game, chooser: int, target: int, card: Card) -> Flow:
        tp = g.players[target]
        name = self.name
        aside: list[Card] = []
        for _ in range(self.count):
            if g.round_over or tp.status is BUSTED:
                break
            c = g.draw()
            if c is None:  # X4 ruling: an exhausted deck ends the sequence early
                break
            if name in c.type.sets_aside_in:
                aside.append(c)
                g.limbo.append(c)
                g.ev(("set_aside", target, c.label))
                continue
            flow = g.give(target, c)
            if flow is not None:
                yield from flow
        if g.round_over or not aside:  # X8: what is pending goes at the round's end
            return
        if tp.status is BUSTED:  # B4b, V7: this sequence's set-aside cards are discarded
            discard_all(g, aside, "bust")
            return
        yield from self.resolve(g, target, aside)

    def __repr__(self) -> str:
        return f"DrawSequence({self.name!r}, {self.count})"


def discard_all(g: Game, cards: list[Card], reason: str) -> None:
    """Discard set-aside cards (each must be in limbo), in order."""
    for c in cards:
        g.to_discard(c, reason)


def assign_then_resolve(g: Game, target: int, aside: list[Card]) -> Flow:
    """B4a: the target assigns each set-aside card, in the order drawn, to an active player;
    then they resolve in that order (nested sequences finish first). A card whose assignee
    is no longer active when its turn comes is discarded."""
    players = g.players
    assigned: list[tuple[Card, int]] = []
    for c in aside:
        targets = g.active_seats()
        if not targets:
            g.to_discard(c, "no_target")
            continue
        idx = yield Decision(CHOOSE_TARGET, target, targets, c.label)
        assigned.append((c, targets[idx]))
        g.ev(("assign", target, c.label, targets[idx]))
    for c, assignee in assigned:
        if g.round_over:
            return
        if players[assignee].status is not ACTIVE:
            g.to_discard(c, "inactive")
            continue
        g.ev(("action", target, c.label, assignee))
        flow = c.type.apply(g, target, assignee, c)
        if flow is not None:
            yield from flow
        g.retire(c)


# B4: Flip Three; Freeze and Flip Three drawn during it are set aside (B4a)
apply_flip_three = DrawSequence("flip_three", 3, assign_then_resolve)


# ---------------------------------------------------------------- scoring (B7)
def scorer_base(p: Player, rules: Ruleset) -> Callable[[int], int]:
    """The line's score as a function of its number sum (modifiers fixed), per B7:
    sum of numbers → ×2 (numbers only) → + modifiers. The Flip 7 bonus is the game's."""
    mult = 1
    add = 0
    for m in p.modifiers:
        if m.type.op == "x2":
            mult *= 2
        else:
            add += m.value
    return lambda s: s * mult + add


def score_base(p: Player, rules: Ruleset, number_sum: int | None = None) -> int:
    return scorer_base(p, rules)(p.sum if number_sum is None else number_sum)


def score_busted(p: Player, rules: Ruleset, number_sum: int | None = None) -> int:
    return 0


# ---------------------------------------------------------------- the deck (B1)
def base_deck() -> list[tuple[CardType, int]]:
    spec: list[tuple[CardType, int]] = [
        (CardType("0", "0", NUMBER, 0, receive_number), 1),
    ]
    for n in range(1, 13):
        spec.append((CardType(str(n), str(n), NUMBER, n, receive_number), n))
    for n in (2, 4, 6, 8, 10):
        spec.append((CardType(f"+{n}", f"+{n}", MODIFIER, n, receive_own_modifier, op="+"), 1))
    spec.append((CardType("x2", "×2", MODIFIER, 0, receive_own_modifier, op="x2"), 1))
    aside = frozenset({"flip_three"})
    spec += [
        (
            CardType(
                "FREEZE",
                "Freeze",
                ACTION,
                receive=receive_targeted,
                apply=apply_freeze,
                targets=Game.active_seats,
                sets_aside_in=aside,
            ),
            3,
        ),
        (
            CardType(
                "FLIP_THREE",
                "Flip Three",
                ACTION,
                receive=receive_targeted,
                apply=apply_flip_three,
                targets=Game.active_seats,
                sets_aside_in=aside,
            ),
            3,
        ),
        (CardType("SECOND_CHANCE", "Second Chance", ACTION, receive=receive_second_chance), 3),
    ]
    return spec
