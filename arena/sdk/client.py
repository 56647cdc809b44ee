"""The Python bot SDK: connect, say hello, answer requests for many games, reconnect.

A whole bot::

    from arena.sdk import run

    def choose(req):
        if req.kind == "HIT_OR_STAY":
            return req.options.index("STAY") if req.me.sum >= 20 and "STAY" in req.options else 0
        return 0

    run(choose, name="twenty")

``run`` reads ARENA_ADDRESS and ARENA_TOKEN from the environment (the arena sets them).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import grpc

from arena.protocol import PROTOCOL_VERSION, pb, pb_grpc
from arena.protocol.convert import (
    KIND_FROM_PB,
    event_from_pb,
    observation_dict,
    option_values,
    public_game,
)
from engine import Decision, Player
from engine.view import PublicGame

log = logging.getLogger("arena.sdk")


class BotRejected(RuntimeError):
    """The arena refused the connection (bad token, version, ...). Not retried."""


@dataclass
class GameInfo:
    game_id: str
    seat: int
    seats: int
    variant: str
    brutal: bool
    seat_names: list[str]
    bot_seed: int
    deadline: float
    time_bank: float
    state: dict[str, Any] = field(default_factory=dict)  # free space for the bot


class Request:
    """One decision to make. Answer with an index into ``options``.

    The observation, events and ``view`` are decoded only when first used.
    """

    def __init__(self, msg: pb.DecisionRequest, game: GameInfo | None) -> None:
        self.raw = msg
        self.request_id: int = msg.request_id
        self.game_id: str = msg.game_id
        self.seat: int = msg.seat
        self.kind: str = KIND_FROM_PB[msg.kind]
        self.card: str | None = msg.card or None
        self.options: tuple[Any, ...] = option_values(self.kind, msg.options)
        self.deadline: float = msg.deadline_ms / 1000  # seconds
        self.time_bank: float = msg.time_bank_ms / 1000  # seconds
        self.game = game

    @cached_property
    def observation(self) -> dict[str, Any]:
        """The public state, as engine.observation.observe would give it."""
        return observation_dict(self.raw.observation)

    @cached_property
    def events(self) -> list[dict[str, Any]]:
        """Events since this bot last heard from the game, oldest first."""
        return [event_from_pb(e) for e in self.raw.events]

    @cached_property
    def view(self) -> PublicGame:
        """The public game, shaped like engine.Game, for engine.policies."""
        return public_game(self.raw.observation)

    @property
    def decision(self) -> Decision:
        return Decision(self.kind, self.seat, self.options, self.card)

    @property
    def me(self) -> Player:
        return self.view.players[self.seat]


class Bot:
    """Subclass and implement :meth:`choose`; optionally the game hooks."""

    name = "bot"
    version = ""

    def choose(self, req: Request) -> int:
        raise NotImplementedError

    def game_started(self, game: GameInfo) -> None:
        """A game begins (called before its first request)."""

    def game_ended(self, game: GameInfo, end: pb.GameEnd) -> None:
        """A game is over; ``end`` has totals, ranks, winners and the seed."""


class _FunctionBot(Bot):
    def __init__(self, fn: Callable[[Request], int], name: str) -> None:
        self.fn = fn
        self.name = name

    def choose(self, req: Request) -> int:
        return self.fn(req)


class Client:
    """One bot's connection to the arena, with reconnects."""

    def __init__(
        self,
        bot: Bot,
        address: str,
        token: str,
        *,
        max_concurrent_games: int = 0,
        want_forced: bool = False,
        reconnect_for: float = 10.0,
    ) -> None:
        self.bot = bot
        self.address = address
        self.token = token
        self.max_concurrent_games = max_concurrent_games
        self.want_forced = want_forced
        self.reconnect_for = reconnect_for
        self.games: dict[str, GameInfo] = {}
        self.welcome: pb.Welcome | None = None
        self._welcomed = False

    async def run(self) -> str:
        """Play until the arena says goodbye; returns its reason."""
        loop = asyncio.get_running_loop()
        give_up_at: float | None = None
        delay = 0.05
        while True:
            try:
                return await self._session()
            except BotRejected:
                raise
            except (grpc.aio.AioRpcError, ConnectionResetError) as e:
                why = (
                    f"{e.code().name} {e.details()}"
                    if isinstance(e, grpc.aio.AioRpcError)
                    else str(e)
                )
                now = loop.time()
                if self._welcomed:  # that session worked: a fresh reconnect window
                    give_up_at = None
                    delay = 0.05
                if give_up_at is None:
                    give_up_at = now + self.reconnect_for
                if now >= give_up_at:
                    raise ConnectionError(f"lost the arena at {self.address}: {why}") from None
                log.info("stream lost (%s); reconnecting", why)
                await asyncio.sleep(delay)  # back-off between reconnect attempts
                delay = min(delay * 2, 1.0)
            else:
                give_up_at = None

    async def _session(self) -> str:
        self._welcomed = False
        hello = pb.BotMessage(
            hello=pb.Hello(
                token=self.token,
                bot_name=self.bot.name,
                protocol_version=PROTOCOL_VERSION,
                max_concurrent_games=self.max_concurrent_games,
                bot_version=self.bot.version,
                want_forced=self.want_forced,
            )
        )
        async with grpc.aio.insecure_channel(self.address) as channel:
            stub = pb_grpc.ArenaStub(channel)
            call = stub.Play()  # read and write the stream directly: no extra task per message
            await call.write(hello)
            while True:
                msg = await call.read()
                if msg is grpc.aio.EOF:
                    break
                which = msg.WhichOneof("msg")
                if which == "request":
                    index = self._answer(msg.request)
                    await call.write(
                        pb.BotMessage(
                            answer=pb.Answer(request_id=msg.request.request_id, option_index=index)
                        )
                    )
                elif which == "game_start":
                    self._start(msg.game_start)
                elif which == "game_end":
                    info = self.games.pop(msg.game_end.game_id, None)
                    if info is not None:
                        self.bot.game_ended(info, msg.game_end)
                elif which == "welcome":
                    self.welcome = msg.welcome
                    self._welcomed = True
                elif which == "error":
                    why = f"{pb.Error.Code.Name(msg.error.code)}: {msg.error.message}"
                    if msg.error.code == pb.Error.ALREADY_CONNECTED:
                        # our previous stream is not yet noticed as gone: retry
                        raise ConnectionResetError(why)
                    raise BotRejected(why)
                elif which == "goodbye":
                    with contextlib.suppress(Exception):
                        await call.done_writing()
                    return msg.goodbye.reason
        raise ConnectionResetError("the stream ended without a goodbye")

    def _start(self, gs: pb.GameStart) -> None:
        info = GameInfo(
            game_id=gs.game_id,
            seat=gs.seat,
            seats=gs.seats,
            variant=gs.ruleset.variant,
            brutal=gs.ruleset.brutal,
            seat_names=list(gs.seat_names),
            bot_seed=gs.bot_seed,
            deadline=gs.deadline_ms / 1000,
            time_bank=gs.time_bank_ms / 1000,
        )
        self.games[gs.game_id] = info
        self.bot.game_started(info)

    def _answer(self, r: pb.DecisionRequest) -> int:
        req = Request(r, self.games.get(r.game_id))
        try:
            index = int(self.bot.choose(req))
        except Exception:
            log.exception("choose() failed; answering option 0")
            index = 0
        if not 0 <= index < len(req.options):
            log.warning("choose() returned %r for %d options; answering 0", index, len(req.options))
            index = 0
        return index


def run(
    bot: Bot | Callable[[Request], int],
    *,
    name: str | None = None,
    address: str | None = None,
    token: str | None = None,
    max_concurrent_games: int = 0,
    want_forced: bool = False,
    reconnect_for: float = 10.0,
) -> None:
    """Connect to the arena and play until it says goodbye (blocking)."""
    if not isinstance(bot, Bot):
        bot = _FunctionBot(bot, name or getattr(bot, "__name__", "bot"))
    elif name:
        bot.name = name
    address = address or os.environ.get("ARENA_ADDRESS")
    token = token if token is not None else os.environ.get("ARENA_TOKEN")
    if not address or token is None:
        sys.exit("ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them for its bots)")
    logging.basicConfig(level=os.environ.get("ARENA_LOG", "WARNING"), stream=sys.stderr)
    client = Client(
        bot,
        address,
        token,
        max_concurrent_games=max_concurrent_games,
        want_forced=want_forced,
        reconnect_for=reconnect_for,
    )
    # everything imported so far lives as long as the bot: keep it out of the collector's
    # full passes, which otherwise rescan grpc's, protobuf's and the engine's modules
    gc.freeze()
    try:
        asyncio.run(client.run())
    except BotRejected as e:
        sys.exit(f"the arena refused this bot: {e}")
    except ConnectionError as e:
        sys.exit(str(e))
    except KeyboardInterrupt:
        pass
