"""Card behaviour of Flip 7: With a Vengeance (docs/rules.md section V) and Brutal mode (V8).

Like :mod:`engine.base`, each card type carries its own small receive/apply functions; the
game flow knows nothing about variants. Stayed players stay targetable (V2): every target
list here is "not busted" rather than "active".
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING

from engine.base import DrawSequence, discard_all, receive_targeted
from engine.cards import ACTION, MODIFIER, NUMBER, Card, CardType
from engine.game import (
    ACTIVE,
    BUSTED,
    DISCARD,
    FLIP7_CARDS,
    GIVE_MODIFIER,
    STEAL,
    SWAP,
    Decision,
    Flow,
    Game,
)

if TYPE_CHECKING:
    from engine.game import Player
    from engine.rulesets import Ruleset

LUCKY_13 = "L13"
UNLUCKY_7 = "U7"


# ---------------------------------------------------------------- numbers (V3, V4, V5)
def is_duplicate(p: Player, card: Card | CardType) -> bool:
    """Would receiving this number bust the player? (Unlucky 7 never does; Lucky 13 pair.)"""
    v = card.value
    if v not in p.ranks or card.label == UNLUCKY_7:
        return False
    if v == 13:
        held = [c for c in p.numbers if c.value == 13]
        if len(held) == 1 and LUCKY_13 in (card.label, held[0].label):
            return False
    return True


def has_duplicate(p: Player) -> bool:
    """Does the line break the number rules (checked after a Swap, V7)?"""
    seen: dict[int, list[Card]] = {}
    for c in p.numbers:
        seen.setdefault(c.value, []).append(c)
    for v, cards in seen.items():
        if len(cards) > 1 and not (
            v == 13 and len(cards) == 2 and any(c.label == LUCKY_13 for c in cards)
        ):
            return True
    return False


def receive_number(g: Game, seat: int, card: Card) -> None:
    p = g.players[seat]
    if is_duplicate(p, card):
        g.bust(seat, card)
        return None
    p.add_number(card)
    if len(p.numbers) >= FLIP7_CARDS:
        g.flip7(seat)
    return None


def receive_unlucky7(g: Game, seat: int, card: Card) -> None:
    """V4: every other number and modifier in the line is discarded; never busts."""
    p = g.players[seat]
    wiped = p.numbers + p.modifiers
    p.numbers = []
    p.modifiers = []
    p.recount()
    g.discard.extend(wiped)
    p.add_number(card)
    g.ev(("unlucky7", seat, tuple(c.label for c in wiped)))


def arrive(g: Game, seat: int, card: Card) -> None:
    """A face-up card moved into a line by Steal: it takes effect on arrival (V7)."""
    if card.kind == NUMBER:
        card.receive(g, seat, card)
    else:
        g.players[seat].modifiers.append(card)


# ---------------------------------------------------------------- modifiers (V6)
def receive_modifier(g: Game, seat: int, card: Card) -> Flow:
    """The receiver gives the modifier to any non-busted player (any player in Brutal)."""
    g.limbo.append(card)
    targets = list(g.order) if g.ruleset.brutal else g.unbusted_seats()
    if not targets:
        g.to_discard(card, "no_target")
        return
    idx = yield Decision(GIVE_MODIFIER, seat, targets, card.label)
    to = targets[idx]
    g.limbo.remove(card)
    g.players[to].modifiers.append(card)
    g.ev(("modifier", seat, card.label, to))


# ---------------------------------------------------------------- actions (V7)
def apply_just_one_more(g: Game, chooser: int, target: int, card: Card) -> Flow:
    """The target draws one card (resolved normally), then must stay (beats The Zero)."""
    yield from g.hit(target)
    if not g.round_over and g.players[target].status is ACTIVE:
        g.stay(target)


def resolve_in_order(g: Game, target: int, aside: list[Card]) -> Flow:
    """V7 Flip Four!: the target resolves the set-aside cards in the order drawn, as if just
    received; if the target busts while resolving them, the rest are discarded."""
    tp = g.players[target]
    for i, c in enumerate(aside):
        if g.round_over:
            return  # X8: discarded with the rest of the table
        if tp.status is BUSTED:
            discard_all(g, aside[i:], "bust")
            return
        g.limbo.remove(c)
        g.ev(("resolve", target, c.label))
        flow = c.receive(g, target, c)
        if flow is not None:
            yield from flow


# V7: up to four draws; actions and modifiers are set aside, then resolved by the target
apply_flip_four = DrawSequence("flip_four", 4, resolve_in_order)


def _face_up(g: Game, seats: list[int]) -> list[tuple[int, Card]]:
    players = g.players
    return [(s, c) for s in seats for c in (*players[s].numbers, *players[s].modifiers)]


def _take_face_up(
    g: Game, seat: int, card: Card, kind: str, seats: list[int]
) -> Generator[Decision, int, tuple[int, Card] | None]:
    """Steal and Discard: hold the action card in limbo while the chooser picks one face-up
    card of ``seats``, which then leaves its line; returns (its seat, the card), or None
    when there is none (the action card is discarded: no target, X9)."""
    g.limbo.append(card)
    pool = _face_up(g, seats)
    if not pool:
        g.to_discard(card, "no_target")
        return None
    idx = yield Decision(kind, seat, [(s, c.label) for s, c in pool], card.label)
    victim, taken = pool[idx]
    g.players[victim].remove(taken)
    return victim, taken


def receive_steal(g: Game, seat: int, card: Card) -> Flow:
    """Take a number or modifier from another non-busted player; it takes effect on arrival."""
    others = [s for s in g.unbusted_seats() if s != seat]
    chosen = yield from _take_face_up(g, seat, card, STEAL, others)
    if chosen is None:
        return
    victim, taken = chosen
    g.ev(("steal", seat, victim, taken.label))
    arrive(g, seat, taken)
    g.retire(card)


def receive_discard(g: Game, seat: int, card: Card) -> Flow:
    """A chosen non-busted player discards one face-up card of the chooser's choice."""
    chosen = yield from _take_face_up(g, seat, card, DISCARD, g.unbusted_seats())
    if chosen is None:
        return
    victim, gone = chosen
    g.discard.append(gone)
    g.ev(("discarded", seat, victim, gone.label))
    g.retire(card)


def receive_swap(g: Game, seat: int, card: Card) -> Flow:
    """Exchange two face-up cards of two different non-busted players; then busts, then Flip 7."""
    g.limbo.append(card)
    pool = _face_up(g, g.unbusted_seats())
    pairs = [
        (pool[i], pool[j])
        for i in range(len(pool))
        for j in range(i + 1, len(pool))
        if pool[i][0] != pool[j][0]
    ]
    if not pairs:
        g.to_discard(card, "no_target")
        return
    options = [((a, ca.label), (b, cb.label)) for (a, ca), (b, cb) in pairs]
    idx = yield Decision(SWAP, seat, options, card.label)
    (a, ca), (b, cb) = pairs[idx]
    players = g.players
    pa, pb = players[a], players[b]
    pa.remove(ca)
    pb.remove(cb)
    g.ev(("swap", seat, a, ca.label, b, cb.label))
    for s, p, c in ((a, pa, cb), (b, pb, ca)):  # both arrive at once
        if c.label == UNLUCKY_7:
            receive_unlucky7(g, s, c)
        elif c.kind == NUMBER:
            p.add_number(c)
        else:
            p.modifiers.append(c)
    for s, p in ((a, pa), (b, pb)):  # then busts ...
        if has_duplicate(p):
            g.bust(s, None)
    for s, p in ((a, pa), (b, pb)):  # ... then Flip 7
        if p.status is not BUSTED and len(p.numbers) >= FLIP7_CARDS and not g.round_over:
            g.flip7(s)
    g.retire(card)


# ---------------------------------------------------------------- scoring (V6, V8)
def scorer_vengeance(p: Player, rules: Ruleset) -> Callable[[int], int]:
    """The line's score as a function of its number sum, per V6: numbers → ÷2 rounding
    down → minus cards → not below 0 (unless Brutal) → The Zero makes it 0 unless Flip 7."""
    if 0 in p.ranks and not p.flip7:  # The Zero is this deck's only 0
        return _zero
    halves = 0
    minus = 0
    for m in p.modifiers:
        if m.type.op == "/2":
            halves += 1
        else:
            minus += m.value
    if not halves and not minus:
        return int  # identity on ints, and fast
    if rules.brutal:
        return lambda s: (s >> halves) - minus
    return lambda s: max(0, (s >> halves) - minus)


def _zero(s: int) -> int:
    return 0


def score_vengeance(p: Player, rules: Ruleset, number_sum: int | None = None) -> int:
    return scorer_vengeance(p, rules)(p.sum if number_sum is None else number_sum)


def score_busted_brutal(p: Player, rules: Ruleset, number_sum: int | None = None) -> int:
    """V8: a busted player scores the total of the minus cards in their line (0 otherwise)."""
    if not rules.brutal:
        return 0
    return -sum(m.value for m in p.modifiers if m.type.op == "-")


# ---------------------------------------------------------------- the deck (V1)
def vengeance_deck() -> list[tuple[CardType, int]]:
    spec: list[tuple[CardType, int]] = [
        (CardType("0", "The Zero", NUMBER, 0, receive_number, blocks_stay=True), 1),
    ]
    for n in range(1, 14):
        copies = n
        if n == 7:
            spec.append((CardType(UNLUCKY_7, "Unlucky 7", NUMBER, 7, receive_unlucky7), 1))
            copies -= 1
        if n == 13:
            spec.append((CardType(LUCKY_13, "Lucky 13", NUMBER, 13, receive_number), 1))
            copies -= 1
        spec.append((CardType(str(n), str(n), NUMBER, n, receive_number), copies))
    aside = frozenset({"flip_four"})
    spec.append(
        (CardType("/2", "÷2", MODIFIER, 0, receive_modifier, op="/2", sets_aside_in=aside), 1)
    )
    for n in (2, 4, 6, 8, 10):
        spec.append(
            (
                CardType(
                    f"-{n}", f"−{n}", MODIFIER, n, receive_modifier, op="-", sets_aside_in=aside
                ),
                1,
            )
        )
    spec += [
        (
            CardType(
                "JUST_ONE_MORE",
                "Just One More!",
                ACTION,
                receive=receive_targeted,
                apply=apply_just_one_more,
                targets=Game.unbusted_seats,
                sets_aside_in=aside,
            ),
            2,
        ),
        (
            CardType(
                "FLIP_FOUR",
                "Flip Four!",
                ACTION,
                receive=receive_targeted,
                apply=apply_flip_four,
                targets=Game.unbusted_seats,
                sets_aside_in=aside,
            ),
            2,
        ),
        (CardType("STEAL", "Steal", ACTION, receive=receive_steal, sets_aside_in=aside), 2),
        (CardType("SWAP", "Swap", ACTION, receive=receive_swap, sets_aside_in=aside), 2),
        (CardType("DISCARD", "Discard", ACTION, receive=receive_discard, sets_aside_in=aside), 2),
    ]
    return spec
