"""Every message the arena sends a bot, built in one place (besides the hand-assembled
decision requests of :mod:`arena.protocol.wire`, which this module's messages match)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from arena.faults import Fault
from arena.protocol import pb
from arena.protocol.convert import event_pb


def error(code: pb.Error.Code, message: str) -> pb.ArenaMessage:
    return pb.ArenaMessage(error=pb.Error(code=code, message=message))


def goodbye(reason: str) -> pb.ArenaMessage:
    return pb.ArenaMessage(goodbye=pb.Goodbye(reason=reason))


def welcome(
    *,
    bot_name: str,
    protocol_version: int,
    session_id: str,
    max_message_bytes: int,
    reconnect_grace: float,
    arena_version: str,
    batches: bool = False,
) -> pb.ArenaMessage:
    return pb.ArenaMessage(
        welcome=pb.Welcome(
            bot_name=bot_name,
            protocol_version=protocol_version,
            session_id=session_id,
            max_message_bytes=max_message_bytes,
            reconnect_grace_ms=int(reconnect_grace * 1000),
            arena_version=arena_version,
            batches=batches,
        )
    )


def game_start(
    *,
    game_id: str,
    seat: int,
    seat_names: Sequence[str],
    ruleset: pb.Ruleset,
    deadline: float,
    time_bank: float,
    bot_seed: int,
) -> pb.ArenaMessage:
    return pb.ArenaMessage(
        game_start=pb.GameStart(
            game_id=game_id,
            seat=seat,
            seats=len(seat_names),
            ruleset=ruleset,
            seat_names=list(seat_names),
            deadline_ms=int(deadline * 1000),
            time_bank_ms=int(time_bank * 1000),
            bot_seed=bot_seed,
        )
    )


def fault(f: Fault) -> pb.Fault:
    return pb.Fault(kind=str(f.kind), seat=f.seat or 0, detail=f.detail, forfeit=f.forfeit)


def game_end(
    *,
    game_id: str,
    totals: Sequence[int],
    ranks: Sequence[int],
    winners: Sequence[int],
    rounds: int,
    seed: int,
    events: Iterable[tuple[Any, ...]],
    faults: Iterable[Fault],
    status: str,
) -> pb.ArenaMessage:
    """The end of a game for one seat: its result, the events that seat has not heard yet,
    every seat's faults, and the game's seed (the game is over: its deal is its own), or 0
    when the deal is shared with other games (:meth:`MatchSpec.revealed_seed`)."""
    return pb.ArenaMessage(
        game_end=pb.GameEnd(
            game_id=game_id,
            totals=list(totals),
            ranks=list(ranks),
            winners=list(winners),
            rounds=rounds,
            seed=seed,
            events=[event_pb(e) for e in events],
            faults=[fault(f) for f in faults if f.seat is not None],
            status=status,
        )
    )
