"""The referee: drives the engine through one game, asking each seat for its decisions.

A seat is a built-in policy (played in-process) or a bot's link (asked over the gateway,
under its :class:`~arena.match.clock.SeatClock`). The referee sends each connected seat the
game's start, its requests and the game's end; it records the choices, events, faults and
the final ranks (a forfeited seat ranks last) in the game's :class:`GameRecord`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.bots import Policy
from arena.faults import BotGone, FaultKind
from arena.match.clock import SeatClock, SeatLink, default_option
from arena.match.spec import GameRecord, MatchSpec
from arena.protocol import messages, pb
from arena.protocol.convert import KIND_TO_PB
from arena.protocol.wire import RequestEncoder
from engine import Decision, Game, Ruleset
from engine.events import event_dict
from engine.policies import make_policy


@dataclass
class _Seat:
    seat: int
    clock: SeatClock
    link: SeatLink | None
    policy: Callable[[Any, Decision], int] | None
    heard: int = 0  # events already sent to this seat

    @property
    def asks_forced(self) -> bool:
        return self.link is not None and self.link.want_forced


class Referee:
    """Plays games of one match (one ruleset, one table of bots)."""

    def __init__(self, spec: MatchSpec, rules: Ruleset, rules_msg: pb.Ruleset) -> None:
        self.spec = spec
        self.rules = rules
        self.rules_msg = rules_msg

    def _seats(
        self, rec: GameRecord, seating: list[int], links: list[SeatLink | None]
    ) -> list[_Seat]:
        spec = self.spec
        seats = []
        for s, b in enumerate(seating):
            entry = spec.bots[b]
            policy = None
            if isinstance(entry.source, Policy):
                policy = make_policy(entry.source.spec, spec.bot_seed(rec.index, s))
            clock = SeatClock(s, entry.name, spec.faults)
            seats.append(_Seat(s, clock, links[b], policy))
        return seats

    async def play(self, rec: GameRecord, seating: list[int], links: list[SeatLink | None]) -> None:
        """Play game ``rec.index`` with ``seating`` (bot index per seat) into ``rec``.
        Raises BotGone(INFRA) when the arena itself cannot serve a seat."""
        spec = self.spec
        seats = self._seats(rec, seating, links)
        rules = (
            self.rules.with_options(auto_single=False)
            if any(st.asks_forced for st in seats)
            else self.rules
        )
        stack = spec.stacks[rec.index] if spec.stacks else None
        game = Game(rules, spec.seats, rec.seed, stack=stack, single_round=spec.single_round)
        requests = RequestEncoder(game, rec.game_id, self.rules_msg)
        for st in seats:
            if st.link is None:
                continue
            gone = st.link.gone
            if gone is not None:
                if gone.kind == FaultKind.INFRA:
                    raise BotGone(FaultKind.INFRA, gone.detail)
                rec.faults.append(st.clock.give_up(gone.kind, gone.detail, game.round))
                continue
            st.link.send(
                messages.game_start(
                    game_id=rec.game_id,
                    seat=st.seat,
                    seat_names=rec.seating,
                    ruleset=self.rules_msg,
                    deadline=spec.faults.deadline,
                    time_bank=spec.faults.time_bank,
                    bot_seed=spec.bot_seed(rec.index, st.seat),
                )
            )
        decisions = 0
        while not game.over:
            d = game.decision
            assert d is not None
            st = seats[d.seat]
            if st.clock.forfeit:
                idx = default_option(d)
            elif st.policy is not None:
                idx = st.policy(game, d)
            elif len(d.options) == 1 and not st.asks_forced:
                idx = 0
            else:
                rec.asked.append((d.seat, d.kind))
                idx = await self._ask(rec, game, d, st, requests)
                decisions += 1
            game.step(idx)
        rec.decisions = decisions
        rec.rounds = game.round
        rec.totals = [p.total for p in game.players]
        rec.choices = list(game.choices)
        rec.events = [event_dict(e) for e in game.events]
        rec.ranks, rec.winners = final_ranks(rec.totals, [st.clock.forfeit for st in seats])
        for st in seats:
            if st.link is not None:
                st.link.send(
                    messages.game_end(
                        game_id=rec.game_id,
                        totals=rec.totals,
                        ranks=rec.ranks,
                        winners=rec.winners,
                        rounds=rec.rounds,
                        seed=spec.revealed_seed(rec.index),
                        events=game.events[st.heard :],
                        faults=rec.faults,
                        status=str(rec.status),
                    )
                )
                st.heard = len(game.events)

    async def _ask(
        self, rec: GameRecord, game: Game, d: Decision, st: _Seat, requests: RequestEncoder
    ) -> int:
        assert st.link is not None
        heard = st.heard
        kind = KIND_TO_PB[d.kind]

        def encode(rid: int, deadline_ms: int, bank_ms: int) -> bytes:
            return requests.encode(rid, d, kind, heard, deadline_ms, bank_ms)

        st.heard = len(game.events)
        verdict = await st.clock.ask(st.link, encode, d, game.round)
        if verdict.fault is not None:
            rec.faults.append(verdict.fault)
        return verdict.index


def final_ranks(totals: list[int], forfeits: list[bool]) -> tuple[list[int], list[int]]:
    """Ranks by total (ties share); forfeited seats rank last (sharing among themselves)."""
    playing = [t for t, f in zip(totals, forfeits, strict=True) if not f]
    n_playing = len(playing)
    ranks = []
    for t, f in zip(totals, forfeits, strict=True):
        if f:
            ranks.append(n_playing + 1)
        else:
            ranks.append(1 + sum(1 for u in playing if u > t))
    winners = [s for s, r in enumerate(ranks) if r == 1]
    return ranks, winners
