"""Engine values ⇄ protocol messages.

Arena side: build Observation / Event / Option messages straight from a game (no detour
through dicts, this is on every decision). Bot side: turn messages back into the plain
values the engine uses, so bots can run the built-in policies (engine.view.PublicGame).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Any, overload

from arena.protocol import pb
from engine import Decision, DecisionKind, Game, Ruleset
from engine.cards import Card, CardType
from engine.events import EVENT_FIELDS
from engine.game import FLIP7_BONUS, HIT, HIT_OR_STAY, STAY, Event, Option, Player
from engine.observation import Observation
from engine.scoring import line_value
from engine.view import PublicGame, cards_by_label, make_player, ruleset_for

STATUS_TO_PB = {
    "active": pb.ACTIVE,
    "stayed": pb.STAYED,
    "frozen": pb.FROZEN,
    "busted": pb.BUSTED,
}
STATUS_FROM_PB = {v: k for k, v in STATUS_TO_PB.items()}
KIND_TO_PB = dict(pb.DecisionKind.items())
KIND_FROM_PB = {v: k for k, v in KIND_TO_PB.items()}
_MOVE = {HIT: pb.Option(move=pb.HIT), STAY: pb.Option(move=pb.STAY)}
SEAT_KINDS = frozenset(
    {DecisionKind.CHOOSE_TARGET, DecisionKind.GIVE_SECOND_CHANCE, DecisionKind.GIVE_MODIFIER}
)
CARD_KINDS = frozenset({DecisionKind.STEAL, DecisionKind.DISCARD})


# ---------------------------------------------------------------- arena side
def ruleset_pb(rules: Ruleset) -> pb.Ruleset:
    return pb.Ruleset(
        variant=rules.name,
        brutal=rules.brutal,
        target_score=rules.target_score,
        deck_size=rules.deck_size,
    )


def observation_pb(game: Game, seat: int, rules_msg: pb.Ruleset | None = None) -> pb.Observation:
    """The public state for ``seat`` (same content as engine.observation.observe)."""
    unseen: dict[str, int] = {}
    for ctype, n in game.deck_count.items():
        if n:
            unseen[ctype.label] = unseen.get(ctype.label, 0) + n
    players = [
        pb.PlayerView(
            seat=p.seat,
            status=STATUS_TO_PB[p.status],
            numbers=[c.label for c in p.numbers],
            modifiers=[c.label for c in p.modifiers],
            second_chances=len(p.extras),
            total=p.total,
            line_score=line_value(game, p),
            flip7=p.flip7,
        )
        for p in game.players
    ]
    return pb.Observation(
        variant=game.ruleset.name,
        ruleset=rules_msg if rules_msg is not None else ruleset_pb(game.ruleset),
        seat=seat,
        seats=game.n,
        round=game.round,
        dealer=game.dealer,
        order=game.order,
        players=players,
        discard=[c.label for c in game.discard],
        deck_size=len(game.deck),
        unseen=unseen,
        pending=[c.label for c in game.limbo],
    )


def event_pb(event: Event) -> pb.Event:
    kind = event[0]
    msg = pb.Event(kind=kind)
    for name, value in zip(EVENT_FIELDS[kind], event[1:], strict=True):
        if name in ("seat", "target"):
            if value is not None:
                setattr(msg, name, value)
        elif name == "card":
            msg.card = value if value is not None else ""
        elif name in ("round", "count", "reason"):
            setattr(msg, name, value)
        elif name in ("scores", "totals", "seats", "cards"):
            getattr(msg, name).extend(value)
        elif name in ("a", "b"):
            msg.seats.append(value)
        elif name in ("card_a", "card_b"):
            msg.cards.append(value)
    return msg


def events_pb(events: Iterable[Event]) -> list[pb.Event]:
    return [event_pb(e) for e in events]


def option_pb(kind: str, value: Option) -> pb.Option:
    if kind == HIT_OR_STAY:
        return _MOVE[value]
    if kind in SEAT_KINDS:
        return pb.Option(seat=value)
    if kind in CARD_KINDS:
        seat, label = value
        return pb.Option(card=pb.CardRef(seat=seat, label=label))
    if kind == DecisionKind.SWAP:
        (a, la), (b, lb) = value
        return pb.Option(
            swap=pb.SwapPair(
                first=pb.CardRef(seat=a, label=la), second=pb.CardRef(seat=b, label=lb)
            )
        )
    if kind == FLIP7_BONUS:
        if value < 0:
            return pb.Option(flip7=pb.Flip7Choice(bonus_to_self=True))
        return pb.Option(flip7=pb.Flip7Choice(bonus_to_self=False, penalty_seat=value))
    raise ValueError(f"unknown decision kind {kind!r}")


def options_pb(d: Decision) -> list[pb.Option]:
    return [option_pb(d.kind, v) for v in d.options]


# ---------------------------------------------------------------- bot side
def option_value(kind: str, opt: pb.Option) -> Option:
    """A protocol Option as the engine's option value."""
    which = opt.WhichOneof("option")
    if which == "move":
        return HIT if opt.move == pb.HIT else STAY
    if which == "seat":
        return opt.seat
    if which == "card":
        return (opt.card.seat, opt.card.label)
    if which == "swap":
        s = opt.swap
        return ((s.first.seat, s.first.label), (s.second.seat, s.second.label))
    if which == "flip7":
        return -1 if opt.flip7.bonus_to_self else opt.flip7.penalty_seat
    raise ValueError(f"empty option in a {kind} request")


def option_values(kind: str, options: Sequence[pb.Option]) -> tuple[Option, ...]:
    return tuple(option_value(kind, o) for o in options)


def observation_dict(obs: pb.Observation) -> Observation:
    """A protocol Observation as the dict engine.observation.observe returns."""
    r = obs.ruleset
    return {
        "variant": obs.variant,
        "options": {
            "variant": r.variant,
            "brutal": r.brutal,
            "target_score": r.target_score,
            "deck_size": r.deck_size,
        },
        "seat": obs.seat,
        "seats": obs.seats,
        "round": obs.round,
        "dealer": obs.dealer,
        "order": list(obs.order),
        "target_score": r.target_score,
        "players": [
            {
                "seat": p.seat,
                "status": STATUS_FROM_PB[p.status],
                "numbers": list(p.numbers),
                "modifiers": list(p.modifiers),
                "second_chance": p.second_chances,
                "total": p.total,
                "line_score": p.line_score,
                "flip7": p.flip7,
            }
            for p in obs.players
        ],
        "discard": list(obs.discard),
        "deck_size": obs.deck_size,
        "pending": list(obs.pending),
        "unseen": dict(sorted(obs.unseen.items())),
    }


class _LazyPlayers(Sequence[Player]):
    """The observation's player views, each turned into a Player when first read."""

    __slots__ = ("_views", "_built", "_by_label", "_sc")

    def __init__(self, views: Sequence[pb.PlayerView], by_label: dict[str, Card]) -> None:
        self._views = views
        self._built: list[Player | None] = [None] * len(views)
        self._by_label = by_label
        self._sc = by_label.get("SECOND_CHANCE")

    def __len__(self) -> int:
        return len(self._built)

    @overload
    def __getitem__(self, i: int) -> Player: ...

    @overload
    def __getitem__(self, i: slice) -> list[Player]: ...

    def __getitem__(self, i: int | slice) -> Player | list[Player]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self._built)))]
        p = self._built[i]
        if p is None:
            v = self._views[i]
            p = self._built[i] = make_player(
                self._by_label,
                self._sc,
                v.seat,
                STATUS_FROM_PB[v.status],
                v.numbers,
                v.modifiers,
                v.second_chances,
                v.total,
                v.flip7,
            )
        return p


class ObservationGame(PublicGame):
    """A :class:`~engine.view.PublicGame` over a protocol Observation, decoded on demand.

    A policy deciding HIT_OR_STAY reads one line and perhaps the unseen counts; building
    every seat's line, the discard pile and the deck for each request would cost a bot more
    than the rest of its turn. Each part is built the first time it is read, then kept.
    """

    def __init__(self, obs: pb.Observation) -> None:  # no PublicGame.__init__: all lazy
        r = obs.ruleset
        self.ruleset = ruleset_for(r.variant or obs.variant, r.brutal, r.target_score)
        self.n = obs.seats
        self.round = obs.round
        self._obs = obs
        self._by_label = cards_by_label(self.ruleset)

    # Each part below is a plain attribute of PublicGame, computed here on first read:
    # mypy calls a cached_property in place of an attribute an override, hence the ignores.

    @cached_property
    def order(self) -> list[int]:  # type: ignore[override]
        return list(self._obs.order)

    @cached_property
    def players(self) -> Sequence[Player]:  # type: ignore[override]
        views = self._obs.players
        if all(v.seat == i for i, v in enumerate(views)):
            return _LazyPlayers(views, self._by_label)
        lazy = _LazyPlayers(sorted(views, key=lambda v: v.seat), self._by_label)
        return list(lazy)  # not in seat order (the arena sends them in order): all at once

    @cached_property
    def discard(self) -> list[Card]:  # type: ignore[override]
        return [self._by_label[label] for label in self._obs.discard]

    @cached_property
    def deck_count(self) -> dict[CardType, int]:  # type: ignore[override]
        by_label = self._by_label
        return {by_label[label].type: n for label, n in self._obs.unseen.items() if n}

    @cached_property
    def deck(self) -> Sequence[None]:  # type: ignore[override]
        return [None] * self._obs.deck_size


def public_game(obs: pb.Observation) -> PublicGame:
    """A protocol Observation as a PublicGame for the built-in policies (lazily decoded)."""
    return ObservationGame(obs)


def event_from_pb(msg: pb.Event) -> dict[str, Any]:
    """A protocol Event as the dict engine.events.event_dict returns."""
    out: dict[str, Any] = {"kind": msg.kind}  # field values by kind, as in event_dict
    names = EVENT_FIELDS.get(msg.kind, ())
    for name in names:
        if name in ("seat", "target"):
            out[name] = getattr(msg, name) if msg.HasField(name) else None
        elif name in ("scores", "totals", "seats", "cards"):
            out[name] = list(getattr(msg, name))
        elif name in ("a", "b", "card_a", "card_b"):
            continue
        elif name == "card":
            out[name] = msg.card or None
        else:
            out[name] = getattr(msg, name)
    if msg.kind == "swap":
        out["seats"] = list(msg.seats)
        out["cards"] = list(msg.cards)
    return out
