"""Game replays for the report: the table state after every stored event.

How it works (the report's choice among the two ways the design allows): the state is
*precomputed in Python by replaying the game with the engine*, never re-derived from the
events by a second implementation of the rules. ``Game.replay`` with the stored seed and
choices reproduces the game exactly; a tracing subclass of :class:`engine.Game` takes, for
each event recorded, a snapshot of the public table (every seat's line, status, line value
and total, the discard pile, the cards set aside or being resolved, the size of the draw
pile). The replayed event log is then compared with the stored one: only when they are
identical are the snapshots used, so a page can never show a state that did not happen.

Snapshot timing. An event is often logged before its effect (a ``draw`` is logged, then the
card arrives) and some effects follow without an event of their own (a resolved action card
goes to the discard pile). So the state shown for an event is taken at the next
*checkpoint*: a decision about to be answered, a card about to leave the deck, the round
about to be scored (the table not yet cleared) or just scored, or the end of the game. Each
step therefore shows the table once the event and everything it forced without a new card
or a decision has happened (``draw`` then ``bust``: both steps show the bust; a Swap whose
card wipes a line with the Unlucky 7: both steps show the two lines after the swap). At a
decision the state is exactly the engine's, which the tests check for every decision of many
games.

The snapshots are shipped to the page as *patches* (only the seats that changed, the cards
added to the discard pile) which the page's script expands once at load time, so a game of
a few hundred events costs a few kilobytes and stepping back and forth is instant.

The same replay records every decision the stored choices answer (``Replay.moves``, see
:mod:`arena.report.moves`): the engine's decision, the option chosen and, at a hit-or-stay,
the chance that a hit busts the seat then.

When the stored events cannot be reproduced (a void game without events, a scripted deck),
the page lists the events without the table (``Replay.states is None``, no moves).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.report.moves import Move, move_of
from engine import Game, get_ruleset
from engine.events import event_dict
from engine.rulesets import RULESETS, Ruleset
from engine.scoring import line_value

# One seat's public state: (line labels, status, line value, total, flip7)
SeatState = tuple[tuple[str, ...], str, int, int, bool]


class TableState:
    """The public table after one event.

    The discard pile is stored as a length into a label list shared by every state of the
    same pile (the engine's pile only grows until a reshuffle starts a new one), so a
    snapshot costs nothing per card already discarded.
    """

    __slots__ = ("deck", "pending", "pile", "pile_len", "round", "seats")

    def __init__(
        self,
        seats: tuple[SeatState, ...],
        pile: list[str],
        pile_len: int,
        pending: tuple[str, ...],
        deck: int,
        round: int,
    ) -> None:
        self.seats = seats
        self.pile = pile
        self.pile_len = pile_len
        self.pending = pending  # set aside or being resolved
        self.deck = deck  # cards in the draw pile
        self.round = round

    @property
    def discard(self) -> tuple[str, ...]:
        return tuple(self.pile[: self.pile_len])

    def as_dict(self) -> dict[str, Any]:
        """Plain data, the same shape the page's script builds from the patches."""
        return {
            "seats": [
                {
                    "line": list(line),
                    "status": status,
                    "score": score,
                    "total": total,
                    "flip7": flip7,
                }
                for line, status, score, total, flip7 in self.seats
            ],
            "discard": list(self.discard),
            "pending": list(self.pending),
            "deck": self.deck,
            "round": self.round,
        }


@dataclass
class Replay:
    """A stored game made viewable: its events, and the state after each (or None)."""

    events: list[dict[str, Any]]
    states: list[TableState] | None
    initial: TableState | None
    note: str = ""
    moves: list[Move] = field(default_factory=list)  # every decision answered, in order

    def patches(self) -> list[dict[str, Any]]:
        """The states as differences from the previous one (the first from ``initial``).

        Keys (omitted when nothing changed): ``p`` — changed seats as ``[seat, line,
        status, score, total, flip7]``; ``d`` — cards added on top of the discard pile;
        ``D`` — the whole discard pile (after a reshuffle emptied it); ``q`` — the pending
        cards; ``n`` — the draw pile's size; ``r`` — the round.
        """
        if self.states is None or self.initial is None:
            return []
        out: list[dict[str, Any]] = []
        prev = self.initial
        for st in self.states:
            if st is prev:  # events between two checkpoints share one state
                out.append({})
                continue
            patch: dict[str, Any] = {}
            changed = [
                [i, list(s[0]), s[1], s[2], s[3], s[4]]
                for i, (s, p) in enumerate(zip(st.seats, prev.seats, strict=True))
                if s is not p and s != p
            ]
            if changed:
                patch["p"] = changed
            if st.pile is prev.pile and st.pile_len >= prev.pile_len:
                if st.pile_len > prev.pile_len:
                    patch["d"] = st.pile[prev.pile_len : st.pile_len]
            else:
                patch["D"] = st.pile[: st.pile_len]
            if st.pending != prev.pending:
                patch["q"] = list(st.pending)
            if st.deck != prev.deck:
                patch["n"] = st.deck
            if st.round != prev.round:
                patch["r"] = st.round
            out.append(patch)
            prev = st
        return out

    def initial_dict(self) -> dict[str, Any] | None:
        return None if self.initial is None else self.initial.as_dict()


# ---------------------------------------------------------------- tracing the engine
class _EventLog(list[tuple[Any, ...]]):
    """The engine's event list, telling the tracer about every event appended."""

    __slots__ = ("tracer",)
    tracer: _Tracer

    def append(self, event: tuple[Any, ...]) -> None:
        super().append(event)
        self.tracer.logged(len(self) - 1)


class _Tracer:
    def __init__(self, game: _TracedGame) -> None:
        self.game = game
        self.states: list[TableState | None] = []
        self.moves: list[Move] = []
        self.waiting: list[int] = []  # events logged since the last checkpoint
        self._seat_cache: list[tuple[Any, SeatState] | None] = []
        self._pile_of: list[Any] | None = None  # the engine's discard list ...
        self._pile: list[str] = []  # ... and its labels so far

    def snapshot(self) -> TableState:
        g = self.game
        seats = []
        cache = self._seat_cache
        if len(cache) < len(g.players):
            cache.extend([None] * (len(g.players) - len(cache)))
        for i, p in enumerate(g.players):
            # Cards only enter a line at its end and a line is replaced when cleared, so the
            # lengths and last cards (physical cards, compared by identity) tell a change.
            nums, mods, extra = p.numbers, p.modifiers, p.extras
            key = (
                len(nums),
                nums[-1] if nums else None,
                len(mods),
                mods[-1] if mods else None,
                len(extra),
                extra[-1] if extra else None,
                p.status,
                p.total,
                p.flip7,
            )
            hit = cache[i]
            if hit is not None and hit[0] == key:
                seats.append(hit[1])
                continue
            line = tuple(
                [c.label for c in nums] + [c.label for c in mods] + [c.label for c in extra]
            )
            state: SeatState = (line, p.status, line_value(g, p), p.total, p.flip7)
            cache[i] = (key, state)
            seats.append(state)
        d = g.discard
        pile = self._pile
        if d is not self._pile_of or len(d) < len(pile):  # a new pile (after a reshuffle)
            self._pile_of = d
            pile = self._pile = [c.label for c in d]
        elif len(d) > len(pile):
            pile.extend(c.label for c in d[len(pile) :])
        return TableState(
            seats=tuple(seats),
            pile=pile,
            pile_len=len(pile),
            pending=tuple(c.label for c in g.limbo),
            deck=len(g.deck),
            round=g.round,
        )

    def checkpoint(self) -> None:
        if self.waiting:
            st = self.snapshot()
            for k in self.waiting:
                self.states[k] = st
            self.waiting.clear()

    def logged(self, index: int) -> None:
        self.states.append(None)
        self.waiting.append(index)


class _TracedGame(Game):
    """A Game whose event log reports to a tracer; rules and flow are the engine's own."""

    _tracer: _Tracer

    @property
    def events(self) -> list[tuple[Any, ...]]:
        return self.__dict__["_events"]

    @events.setter
    def events(self, value: list[tuple[Any, ...]]) -> None:
        log = _EventLog(value)
        log.tracer = self._tracer
        self.__dict__["_events"] = log

    def step(self, index: int) -> None:
        self._tracer.checkpoint()  # a decision: nothing of its outcome has happened yet
        d = self.decision
        if d is not None:
            self._tracer.moves.append(move_of(self, d, index))
        super().step(index)

    def draw(self) -> Any:
        self._tracer.checkpoint()  # the next card has not left the deck yet
        return super().draw()

    def _finish_round(self) -> bool:
        self._tracer.checkpoint()  # the last cards of the round, before the table is cleared
        over = super()._finish_round()
        self._tracer.checkpoint()
        return over


def _initial_state(rules: Ruleset, seats: int) -> TableState:
    return TableState(
        seats=tuple(((), "active", 0, 0, False) for _ in range(seats)),
        pile=[],
        pile_len=0,
        pending=(),
        deck=rules.deck_size,
        round=0,
    )


def _same_events(replayed: list[dict[str, Any]], stored: list[Any]) -> bool:
    """Do the replayed events equal the stored ones (as they look after a trip through JSON)?"""
    if replayed == stored:  # event_dict already gives JSON-shaped values
        return True
    return json.loads(json.dumps(replayed)) == stored


def trace(rules: Ruleset, seats: int, seed: int, choices: Sequence[int]) -> tuple[list, list]:
    """Replay a game; returns (event dicts, state after each event)."""
    events, states, _ = trace_moves(rules, seats, seed, choices)
    return events, states


def trace_moves(
    rules: Ruleset, seats: int, seed: int, choices: Sequence[int]
) -> tuple[list[dict[str, Any]], list[TableState | None], list[Move]]:
    """Replay a game; returns (event dicts, state after each event, the moves)."""
    g = _TracedGame.__new__(_TracedGame)
    g._tracer = _Tracer(g)
    Game.__init__(g, rules, seats, seed)
    for c in choices:
        g.step(c)
    g._tracer.checkpoint()
    return [event_dict(e) for e in g.events], list(g._tracer.states), g._tracer.moves


def build_replay(
    variant: str,
    brutal: bool,
    seats: int,
    seed: int,
    choices: Sequence[int],
    events: list[dict[str, Any]],
    target_score: int | None = None,
) -> Replay:
    """The replay of a stored game, checked against its stored events."""
    if not events:
        return Replay(events, None, None, "no events were recorded for this game")
    if variant not in RULESETS:
        return Replay(events, None, None, f"unknown variant {variant!r}")
    options: dict[str, Any] = {"brutal": brutal}
    if target_score:
        options["target_score"] = int(target_score)
    rules = get_ruleset(variant, **options)
    # Bots may ask to be consulted on forced decisions too; their choices then include the
    # single-option answers, which the game replays with auto_single off.
    for candidate in (rules, rules.with_options(auto_single=False)):
        try:
            replayed, states, moves = trace_moves(candidate, seats, seed, choices)
        except Exception:  # a choice that does not fit: not this ruleset
            continue
        shown = [s for s in states if s is not None]
        if _same_events(replayed, events) and len(shown) == len(states):
            return Replay(events, shown, _initial_state(candidate, seats), moves=moves)
    return Replay(events, None, None, "the stored choices do not reproduce the stored events")


# ---------------------------------------------------------------- describing events
def card_names(variant: str) -> dict[str, tuple[str, str]]:
    """label → (display name, kind letter n/m/a) for a variant's cards."""
    rules = RULESETS.get(variant)
    out: dict[str, tuple[str, str]] = {}
    for v in (rules,) if rules is not None else tuple(RULESETS.values()):
        for t in v.types:
            out.setdefault(t.label, (t.name, t.kind[0]))
    return out


def describe(ev: dict[str, Any], names: Sequence[str], cards: dict[str, tuple[str, str]]) -> str:
    """One event as a sentence (plain text; the templates escape it)."""

    def who(seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(names):
            return names[seat]
        return f"seat {seat}"

    def card(label: Any) -> str:
        if label is None:
            return "?"
        return cards.get(label, (str(label), ""))[0]

    def on(seat: Any, target: Any) -> str:
        return "themselves" if seat == target else who(target)

    k = ev.get("kind")
    s = ev.get("seat")
    try:
        if k == "round_start":
            return f"Round {ev['round']} starts; {who(s)} deals"
        if k == "deal":
            return f"{who(s)} is dealt {card(ev['card'])}"
        if k == "draw":
            return f"{who(s)} draws {card(ev['card'])}"
        if k == "reshuffle":
            return f"The discard pile ({ev['count']} cards) is shuffled into a new deck"
        if k == "stay":
            return f"{who(s)} stays"
        if k == "frozen":
            return f"{who(s)} is frozen"
        if k == "bust":
            return f"{who(s)} busts" + (f" on {card(ev['card'])}" if ev.get("card") else "")
        if k == "flip7":
            return f"{who(s)} makes Flip 7!"
        if k == "action":
            return f"{who(s)} plays {card(ev['card'])} on {on(s, ev['target'])}"
        if k == "set_aside":
            return f"{who(s)} sets {card(ev['card'])} aside"
        if k == "assign":
            return f"{who(s)} assigns {card(ev['card'])} to {on(s, ev['target'])}"
        if k == "resolve":
            return f"{who(s)} resolves {card(ev['card'])}"
        if k == "discard":
            reason = str(ev.get("reason", "")).replace("_", " ")
            return f"{card(ev['card'])} is discarded ({reason})"
        if k == "second_chance_used":
            return f"{who(s)} uses a Second Chance against the duplicate {card(ev['card'])}"
        if k == "second_chance_given":
            return f"{who(s)} gives a Second Chance to {who(ev['target'])}"
        if k == "modifier":
            return f"{who(s)} gives {card(ev['card'])} to {on(s, ev['target'])}"
        if k == "steal":
            return f"{who(s)} steals {card(ev['card'])} from {who(ev['target'])}"
        if k == "discarded":
            return f"{who(s)} makes {on(s, ev['target'])} discard {card(ev['card'])}"
        if k == "swap":
            (a, b), (ca, cb) = ev["seats"], ev["cards"]
            return f"{who(s)} swaps {who(a)}'s {card(ca)} with {who(b)}'s {card(cb)}"
        if k == "unlucky7":
            gone = ", ".join(card(c) for c in ev["cards"]) or "nothing"
            return f"Unlucky 7: {who(s)} discards {gone}"
        if k == "flip7_penalty":
            return f"{who(s)} takes 15 points from {who(ev['target'])} instead of the bonus"
        if k == "round_end":
            parts = [
                f"{who(i)} {sc:+d} → {tot}"
                for i, (sc, tot) in enumerate(zip(ev["scores"], ev["totals"], strict=False))
            ]
            return f"Round {ev['round']} scored: " + "; ".join(parts)
        if k == "tie_continue":
            return "Tied leaders (" + ", ".join(who(x) for x in ev["seats"]) + ") play on"
        if k == "game_over":
            won = ", ".join(who(x) for x in ev["seats"])
            return f"Game over: {won} {'wins' if len(ev['seats']) == 1 else 'share the win'}"
    except (KeyError, TypeError, ValueError):
        pass
    return json.dumps(ev, ensure_ascii=False)
