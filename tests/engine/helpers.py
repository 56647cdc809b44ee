"""Small helpers that make the scripted rule tests read like a game transcript.

A *script* is a list of steps. A step is either

* an ``Ask`` built with :func:`hit`, :func:`stay`, :func:`target`, :func:`give` or
  :func:`ask`: it checks who is asked what before answering by option *value*; or
* a bare option value (``"HIT"``, ``"STAY"``, a seat number): answered without checks.

Answers are option values, never indices, so a test says ``target(1, 2)`` ("seat 1 targets
seat 2") instead of an index that depends on the option order.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from engine import (
    CHOOSE_TARGET,
    GIVE_SECOND_CHANCE,
    HIT,
    HIT_OR_STAY,
    RULESETS,
    STAY,
    Decision,
    Game,
)

BASE = RULESETS["base"]
ASK_ALL = BASE.with_options(auto_single=False)


@dataclass(frozen=True)
class Ask:
    """Expect a decision of ``kind`` for ``seat`` (and optionally about ``card``); answer
    it with the option ``value``."""

    kind: str
    seat: int
    value: Any
    card: str | None = None
    options: tuple[Any, ...] | None = None


def ask(kind: str, seat: int, value: Any, card: str | None = None, options=None) -> Ask:
    return Ask(kind, seat, value, card, None if options is None else tuple(options))


def hit(seat: int) -> Ask:
    return Ask(HIT_OR_STAY, seat, HIT)


def stay(seat: int) -> Ask:
    return Ask(HIT_OR_STAY, seat, STAY)


def target(chooser: int, seat: int, card: str | None = None) -> Ask:
    return Ask(CHOOSE_TARGET, chooser, seat, card)


def give(giver: int, to: int) -> Ask:
    return Ask(GIVE_SECOND_CHANCE, giver, to, "SECOND_CHANCE")


def answer(g: Game, value: Any) -> None:
    """Answer the pending decision by option value."""
    d = g.decision
    assert d is not None, f"no decision pending, wanted to answer {value!r}"
    assert value in d.options, f"{value!r} is not an option of {d!r}"
    g.step(list(d.options).index(value))


def play(g: Game, script: Iterable[Any]) -> Game:
    """Answer pending decisions from ``script`` (see the module docstring)."""
    for i, step in enumerate(script):
        d = g.decision
        assert d is not None, f"script step {i} ({step!r}): the game is over"
        if isinstance(step, Ask):
            got = (d.kind, d.seat)
            assert got == (step.kind, step.seat), f"script step {i}: expected {step!r}, got {d!r}"
            if step.card is not None:
                assert d.card == step.card, f"script step {i}: expected {step!r}, got {d!r}"
            if step.options is not None:
                assert tuple(d.options) == step.options, f"step {i}: {d!r} vs {step!r}"
            answer(g, step.value)
        else:
            answer(g, step)
    return g


def expect(g: Game, kind: str, seat: int, options: Iterable[Any] | None = None) -> Decision:
    """Assert the pending decision's kind, seat and (optionally) options."""
    d = g.decision
    assert d is not None, "the game is over"
    assert (d.kind, d.seat) == (kind, seat), f"expected {kind} for seat {seat}, got {d!r}"
    if options is not None:
        assert tuple(d.options) == tuple(options), f"options {d.options!r}"
    return d


def line(g: Game, seat: int) -> list[str]:
    """Labels of a seat's line: numbers, then modifiers, then a held Second Chance."""
    return [c.label for c in g.players[seat].line()]


def labels(cards: Iterable[Any]) -> list[str]:
    return [c.label for c in cards]


def events_of(g: Game, *kinds: str) -> list[tuple[Any, ...]]:
    return [e for e in g.events if e[0] in kinds]


def events_since(g: Game, mark: int) -> list[tuple[Any, ...]]:
    return g.events[mark:]


def round_end(g: Game, rnd: int | None = None) -> tuple[Any, ...]:
    """The ``round_end`` event of round ``rnd`` (default: the last one)."""
    ends = events_of(g, "round_end")
    assert ends, "no round has ended"
    if rnd is None:
        return ends[-1]
    (hit_,) = [e for e in ends if e[1] == rnd]
    return hit_


def is_subsequence(needles: list[Any], hay: list[Any]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needles)


def uids_ok(g: Game) -> bool:
    return sorted(c.uid for c in g.all_cards()) == list(range(g.ruleset.deck_size))


def deck_multiset(g: Game) -> dict[str, int]:
    return dict(Counter(c.label for c in g.deck))


def stay_when_possible(d: Decision) -> Any:
    """A simple policy: stay as soon as allowed, otherwise the first option."""
    if d.kind == HIT_OR_STAY:
        return STAY if STAY in d.options else HIT
    return d.options[0]


def finish(g: Game, policy: Callable[[Decision], Any] = stay_when_possible, limit=100_000):
    """Play the game to its end with a policy returning option values."""
    for _ in range(limit):
        if g.over:
            return g
        answer(g, policy(g.decision))
    raise AssertionError("game did not end")


def random_policy(rng: random.Random, p_hit: float = 0.6) -> Callable[[Decision], Any]:
    def choose(d: Decision) -> Any:
        if d.kind == HIT_OR_STAY and len(d.options) == 2:
            return HIT if rng.random() < p_hit else STAY
        return rng.choice(list(d.options))

    return choose
