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


def apply_flip_three(g: Game, chooser: int, target: int, card: Card) -> Flow:
    """B4: the target draws three cards; Freeze / Flip Three drawn are set aside (B4a)."""
    players = g.players
    tp = players[target]
    aside: list[Card] = []
    for _ in range(3):
        if g.round_over or tp.status is BUSTED:
            break
        c = g.draw()
        if c is None:  # X4 ruling: an exhausted deck ends the sequence early
            break
        if "flip_three" in c.type.sets_aside_in:
            aside.append(c)
            g.limbo.append(c)
            g.ev(("set_aside", target, c.label))
            continue
        flow = g.give(target, c)
        if flow is not None:
            yield from flow
    if g.round_over:
        return  # X8: everything pending is discarded at the round's end
    if tp.status is BUSTED:  # B4b: this sequence's unassigned cards are discarded
        for c in aside:
            g.to_discard(c, "bust")
        return
    # B4a: assign each set-aside card, in the order drawn, to an active player ...
    assigned: list[tuple[Card, int]] = []
    for c in aside:
        targets = g.active_seats()
        if not targets:
            g.to_discard(c, "no_target")
            continue
        idx = yield Decision(CHOOSE_TARGET, target, targets, c.label)
        assigned.append((c, targets[idx]))
        g.ev(("assign", target, c.label, targets[idx]))
    # ... then resolve them in that order; nested sequences finish first.
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
