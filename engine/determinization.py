"""Determinization from the public record: a possible game behind what a seat has seen.

A search bot (determinized Monte Carlo, ISMCTS, expectimax) needs games to play forward,
but it does not know the order of the draw pile. :func:`determinize` builds a
:class:`~engine.game.Game` from what a bot has — the ruleset, the seat count, its seat and
the public event log it has received (event tuples or the dicts of
:func:`engine.events.event_dict`) — that agrees with every public fact: the same event log,
lines, totals, discard pile, limbo and pending decision. The cards nobody has seen (the draw
pile, as a multiset: the observation's ``unseen``) are shuffled by the given
``random.Random``; later reshuffles use a random source seeded from it.

How: the log names every card drawn, in order, and every reshuffle (X4). A reshuffle happens
only when the draw pile is empty, so every deck before the last one was drawn to its end and
its order is known; only the last deck has an unseen rest. The game is replayed on decks
made of those draws (the rest shuffled), answering each decision with the option that the
log's next event records (:func:`engine.events.answer_from_event`), and checked against the
log event by event. The result depends on the log and ``rng`` only, never on a real deck.

The replay costs as much as the game so far (about a millisecond for a long game). For many
samples of one position, build one and call :meth:`Game.determinized` on it, which costs
one :meth:`Game.clone` and a shuffle and gives the same distribution.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.cards import Card
from engine.events import answer_from_event, event_tuple
from engine.game import DEAL, DRAW, Event, Game, canonical_shuffle
from engine.rulesets import Ruleset

# events that take a card from the draw pile, with its label as second field
DRAWN = frozenset({DEAL, DRAW, "set_aside"})


def determinize(
    ruleset: Ruleset,
    seats: int,
    seat: int,
    events: Iterable[Event | Mapping[str, Any]],
    rng: random.Random,
    *,
    unseen: Mapping[str, int] | None = None,
    single_round: bool = False,
) -> Game:
    """A game consistent with the public event log ``events``, its unseen cards shuffled.

    ``unseen`` (label → count, e.g. the observation's) is the draw pile's multiset; without
    it the draw pile is the ruleset's deck less every card seen (right for every game not
    built with an exact ``deck=``). Raises ValueError when the log does not fit the rules
    (another ruleset or seat count, a truncated log) or ends with the game over. The seat is
    checked; everything but the draw order is public (X10), so it changes nothing else.
    """
    if not 0 <= seat < seats:
        raise ValueError(f"no seat {seat} at a table of {seats}")
    log = [_as_tuple(e) for e in events]
    decks = _draws_per_deck(log)
    seed = rng.getrandbits(64)  # first, as Game.determinized does: the same rng, the same game
    g = Game.__new__(Game)
    g._setup(ruleset, seats, seed, single_round, True, None)
    pool = _Pool(ruleset.cards)
    first = pool.take(decks[0], "the first deck")
    if len(decks) == 1:
        rest = pool.take_counts(unseen) if unseen is not None else pool.take_all()
        g.deck = canonical_shuffle(rest, rng) + first[::-1]
    else:
        g.deck = first[::-1]
        last = len(decks) - 1
        g._replay.reorders = [
            _Arrange(d, rng if k == last else None) for k, d in enumerate(decks) if k
        ]
    g.box = pool.take_all()
    g._count_deck()
    _replay(g, log)
    if unseen is not None and g.unseen() != {k: n for k, n in unseen.items() if n}:
        raise ValueError("the unseen cards do not match the event log")
    return g


def _as_tuple(event: Event | Mapping[str, Any]) -> Event:  # a dict: JSON-shaped
    if isinstance(event, Mapping):
        return event_tuple(event)
    return tuple(tuple(v) if isinstance(v, list) else v for v in event)


def _draws_per_deck(log: Sequence[Event]) -> list[list[str]]:
    """The labels drawn from each deck, in draw order: the first deck, then one per
    reshuffle."""
    decks: list[list[str]] = [[]]
    for e in log:
        if e[0] in DRAWN:
            decks[-1].append(e[2])
        elif e[0] == "reshuffle":
            decks.append([])
    return decks


def _uid(card: Card) -> int:
    return card.uid


class _Pool:
    """Cards to pick by label, lowest uid first."""

    def __init__(self, cards: Iterable[Card]) -> None:
        self.by_label: dict[str, list[Card]] = {}
        for c in sorted(cards, key=_uid, reverse=True):
            self.by_label.setdefault(c.label, []).append(c)

    def take(self, labels: Iterable[str], where: str) -> list[Card]:
        out = []
        for label in labels:
            stock = self.by_label.get(label)
            if not stock:
                raise ValueError(f"the event log draws more {label!r} than {where} holds")
            out.append(stock.pop())
        return out

    def take_counts(self, counts: Mapping[str, int]) -> list[Card]:
        return self.take(
            (label for label, n in counts.items() for _ in range(n)), "the rest of the deck"
        )

    def take_all(self) -> list[Card]:
        out = [c for stock in self.by_label.values() for c in stock]
        self.by_label = {}
        return out


class _Arrange:
    """A reshuffle as the log shows it: the cards drawn from the new deck come first, in
    the order drawn; the rest (only after the last reshuffle) is shuffled by ``rng``."""

    __slots__ = ("labels", "rng")

    def __init__(self, labels: list[str], rng: random.Random | None) -> None:
        self.labels = labels
        self.rng = rng

    def __call__(self, pile: list[Card]) -> list[Card]:
        pool = _Pool(pile)
        top = pool.take(self.labels, "the reshuffled discard pile")
        rest = pool.take_all()
        if self.rng is None:
            if rest:
                raise ValueError("the event log reshuffles before the deck was drawn out")
            return top[::-1]
        return canonical_shuffle(rest, self.rng) + top[::-1]


def _replay(g: Game, log: list[Event]) -> None:
    """Start ``g`` and answer its decisions from ``log`` until it has produced the log."""
    g._start()
    n = len(log)
    checked = 0
    while True:
        events = g.events
        if len(events) > n or events[checked:] != log[checked : len(events)]:
            at = next((i for i in range(checked, len(events)) if i >= n or events[i] != log[i]), n)
            raise ValueError(f"the event log does not fit a game of these rules at event {at}")
        checked = len(events)
        if checked == n:
            break
        d = g.decision
        if d is None:
            raise ValueError("the event log goes on after the game's end")
        g.step(answer_from_event(d, log[checked]))
    if g.decision is None:
        raise ValueError("the game is over: there is nothing to determinize")
    if g._replay.reorders:
        raise ValueError("the event log ends before its own reshuffles")  # pragma: no cover
