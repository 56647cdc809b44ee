"""The decisions of a replayed game, for spectators: who chose, among what, what they chose.

:mod:`arena.report.replay` replays a stored game with the engine and records a
:class:`Move` at every decision the stored choices answer: the engine's own decision (its
kind, seat and enumerated options), the option chosen, and — for a hit-or-stay — the
chance that the card a hit draws busts the seat at that moment (:func:`bust_odds`; a Flip
Three it may draw instead can bust the seat later, which is not counted).

A move's ``step`` is the number of events logged before it, so the replay step that shows
the table exactly as the seat saw it when it chose (step 0 is the table before the first
event); its outcome is the next event.

Forfeits. The stored faults say which seat forfeited and in which round of the game (the
fault is recorded at the decision where it happened, or at the game's start for a bot that
was already gone); from there on the arena answered every decision of that seat with the
safe default (:func:`arena.match.clock.default_option`). :func:`mark_forfeits` marks those
moves ``auto``: the seat's moves from its forfeit round on that, like every later one of
that seat, are the default. (A bot's own choice just before it forfeited, in the same
round, that happened to be the default too — e.g. a target choice of option 0 — is marked
with them: the stored record cannot tell them apart.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.match.clock import default_option
from engine import HIT_OR_STAY, Decision, Game
from engine.cards import NUMBER, CardType
from engine.vengeance import is_duplicate


@dataclass(slots=True)
class Move:
    step: int  # events logged before the decision: the step that shows its table
    seat: int
    kind: str
    options: tuple[Any, ...]  # the engine's option values (see engine.Decision)
    card: str | None  # the card being resolved, if any
    chosen: int  # the index answered
    default: int  # the index the arena plays for a seat that cannot answer
    round: int
    bust: tuple[int, int] | None = None  # HIT_OR_STAY: (cards that bust, cards drawn from)
    auto: bool = False  # played by the arena: the seat had forfeited


def bust_odds(game: Game, seat: int) -> tuple[int, int]:
    """(cards that would bust ``seat`` on a hit, cards the hit draws from), from public
    knowledge only: the unseen cards (the draw pile as a multiset, X10), or the discard
    pile when the draw pile is empty (the hit reshuffles it, X4).

    A number card busts when the seat already holds its number, by the game's own rule
    (``engine.vengeance.is_duplicate``: the Unlucky 7 never busts, a Lucky 13 may pair
    with a 13); a held Second Chance absorbs the duplicate (B5), so then nothing busts.
    """
    counts: dict[CardType, int]
    if game.deck:
        counts = game.deck_count
    else:
        counts = {}
        for c in game.discard:
            counts[c.type] = counts.get(c.type, 0) + 1
    pile = sum(counts.values())
    p = game.players[seat]
    if p.extras:  # a held Second Chance: a duplicate is absorbed, not a bust
        return 0, pile
    busting = sum(n for t, n in counts.items() if t.kind == NUMBER and is_duplicate(p, t))
    return busting, pile


def bust_text(odds: tuple[int, int]) -> str:
    """The chance as the page prints it: one decimal, a percent sign."""
    busting, pile = odds
    return f"{100 * busting / pile:.1f} %" if pile else "0.0 %"


def move_of(game: Game, d: Decision, chosen: int) -> Move:
    """The move that answers ``d`` (the game's pending decision) with ``chosen``."""
    return Move(
        step=len(game.events),
        seat=d.seat,
        kind=str(d.kind),
        options=d.options,
        card=d.card,
        chosen=chosen,
        default=default_option(d),
        round=game.round,
        bust=bust_odds(game, d.seat) if d.kind == HIT_OR_STAY else None,
    )


@dataclass(frozen=True)
class Forfeit:
    seat: int
    round: int  # the game's round in which it happened
    kind: str  # the fault's kind (CRASH, TIMEOUT, ...)
    step: int | None  # the step of its first auto-played move (None: it had none)


def mark_forfeits(moves: Sequence[Move], faults: Iterable[dict[str, Any]]) -> list[Forfeit]:
    """Mark the moves the arena played for forfeited seats (see the module's doc)."""
    out = []
    for f in faults:
        seat = f.get("seat")
        if not f.get("forfeit") or not isinstance(seat, int):
            continue
        rnd = int(f.get("round") or 0)
        mine = [m for m in moves if m.seat == seat and m.round >= rnd]
        start = len(mine)
        while start and mine[start - 1].chosen == mine[start - 1].default:
            start -= 1
        for m in mine[start:]:
            m.auto = True
        first = mine[start].step if start < len(mine) else None
        out.append(Forfeit(seat, rnd, str(f.get("kind", "")), first))
    return out


# ---------------------------------------------------------------- words
def _card(label: Any, cards: dict[str, tuple[str, str]]) -> str:
    return cards.get(str(label), (str(label), ""))[0]


def question(m: Move, cards: dict[str, tuple[str, str]]) -> str:
    """What the decision asks, as a short phrase (plain text; the page escapes it)."""
    card = _card(m.card, cards) if m.card else ""
    return {
        "HIT_OR_STAY": "hit or stay?",
        "CHOOSE_TARGET": f"who gets {card}?" if card else "which target?",
        "GIVE_SECOND_CHANCE": "who gets the extra Second Chance?",
        "GIVE_MODIFIER": f"who gets {card}?" if card else "who gets the modifier?",
        "STEAL": "which card to steal?",
        "DISCARD": "which card must be discarded?",
        "SWAP": "which two cards to swap?",
        "FLIP7_BONUS": "Flip 7: +15 points, or 15 points from an opponent?",
    }.get(m.kind, m.kind.replace("_", " ").lower())


def option_texts(m: Move, names: Sequence[str], cards: dict[str, tuple[str, str]]) -> list[str]:
    """Each option of the move in words (plain text; the page escapes it)."""

    def who(seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(names):
            return names[seat] + (" (themselves)" if seat == m.seat else "")
        return f"seat {seat}"

    def held(pair: Any) -> str:
        seat, label = pair
        owner = "their own" if seat == m.seat else f"{who(seat)}'s"
        return f"{owner} {_card(label, cards)}"

    out = []
    for o in m.options:
        try:
            if m.kind == "HIT_OR_STAY":
                out.append(str(o).lower())
            elif m.kind in ("STEAL", "DISCARD"):
                out.append(held(o))
            elif m.kind == "SWAP":
                out.append(f"{held(o[0])} ⇄ {held(o[1])}")
            elif m.kind == "FLIP7_BONUS":
                out.append("+15 for themselves" if o == -1 else f"{who(o)} loses 15")
            else:
                out.append(who(o))
        except (TypeError, ValueError, IndexError):
            out.append(str(o))
    return out


def score_rounds(events: Sequence[dict[str, Any]]) -> list[tuple[int, int, list[int]]]:
    """(round, step, totals after it) for every round scored, from the round_end events;
    ``step`` is the replay step of that event (1-based)."""
    out = []
    for i, e in enumerate(events, 1):
        if e.get("kind") == "round_end":
            try:
                out.append((int(e["round"]), i, [int(t) for t in e["totals"]]))
            except (KeyError, TypeError, ValueError):
                continue
    return out
