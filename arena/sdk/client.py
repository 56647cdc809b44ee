"""The Python bot SDK: connect, say hello, answer requests for many games, reconnect.

A whole bot::

    from arena.sdk import run

    def choose(req):
        if req.kind == "HIT_OR_STAY":
            return req.options.index("STAY") if req.me.sum >= 20 and "STAY" in req.options else 0
        return 0

    run(choose, name="twenty")

``run`` reads ARENA_ADDRESS and ARENA_TOKEN from the environment (the arena sets them).
docs/writing-a-bot.md is the guide: every field of a request with printed examples, the
options of each decision kind, the game hooks, and a strategy guide; docs/rules.md has the
rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import operator
import os
import sys
import traceback
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
    """One game the bot plays a seat in, from the arena's GameStart message.

    The SDK makes one when the game starts, passes it to :meth:`Bot.game_started` and
    :meth:`Bot.game_ended`, and sets it as ``req.game`` on each of the game's requests.

    Fields (example values from a three-seat Brutal Vengeance game):

    * ``game_id`` (str, ``'7e7f77ca616a-4'``): names the game in every message about it;
    * ``seat`` (int, ``2``): the bot's seat; ``seats`` (int, ``3``): seats at the table;
    * ``variant`` (str, ``'base'`` or ``'vengeance'``); ``brutal`` (bool, ``True``);
    * ``seat_names`` (list[str], ``['ev', 'threshold:20', 'mybot']``): each seat's bot;
    * ``bot_seed`` (int): a seed for the bot's own randomness, so that the game can be
      replayed exactly (it tells nothing about the deal);
    * ``deadline``, ``time_bank`` (float, ``1.0``, ``10.0``): seconds per decision, and the
      game's extra time for answers past the deadline;
    * ``state`` (dict, ``{}``): free space for the bot's memory of this game.
    """

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

    Attributes (example values printed by a bot choosing what to steal, at seat 2 of a
    three-seat Brutal Vengeance game):

    * ``kind`` (str, ``'STEAL'``): HIT_OR_STAY, CHOOSE_TARGET, GIVE_SECOND_CHANCE,
      GIVE_MODIFIER, STEAL, DISCARD, SWAP or FLIP7_BONUS;
    * ``options`` (tuple, ``((1, '11'), (1, '9'), (0, '13'), (0, '4'))``): the legal
      options. By kind: HIT_OR_STAY ``'HIT'``/``'STAY'``; CHOOSE_TARGET,
      GIVE_SECOND_CHANCE, GIVE_MODIFIER a seat (int); STEAL, DISCARD ``(seat, label)``;
      SWAP ``((seat, label), (seat, label))``, each card going to the other's seat;
      FLIP7_BONUS ``-1`` for +15 to oneself, else the seat that loses 15;
    * ``card`` (str or None, ``'STEAL'``): label of the card being resolved, None for
      HIT_OR_STAY and FLIP7_BONUS;
    * ``seat`` (int, ``2``): the seat that must choose;
    * ``deadline``, ``time_bank`` (float, ``1.0``, ``10.0``): seconds for this answer, and
      what is left of the seat's time bank in this game;
    * ``game`` (:class:`GameInfo` or None): the game, None only if its start was not seen;
    * ``game_id`` (str), ``request_id`` (int, echoed in the answer by the SDK);
    * ``raw`` (``pb.DecisionRequest``): the protocol message.

    Decoded only when first used: :attr:`observation` (dict), :attr:`events`
    (list[dict]), :attr:`view` (``engine.view.PublicGame``), :attr:`me`
    (``engine.Player``) and :attr:`decision` (``engine.Decision``).
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
        """The public state, as engine.observation.observe would give it.

        Keys: variant, options (variant, brutal, target_score, deck_size), seat, seats,
        round, dealer, order (this round's turn order), target_score, players (per seat:
        seat, status, numbers and modifiers as labels in arrival order, second_chance,
        total before this round, line_score, flip7), discard (oldest first), deck_size,
        pending (cards set aside or being resolved) and unseen: the draw pile as a
        multiset, e.g. ``{'12': 3, '8': 5, 'STEAL': 1, ...}``, whose counts add up to
        deck_size. With an empty draw pile the next card comes from ``discard``.
        """
        return observation_dict(self.raw.observation)

    @cached_property
    def events(self) -> list[dict[str, Any]]:
        """Events since this bot last heard from the game, oldest first, e.g.
        ``[{'kind': 'draw', 'seat': 2, 'card': 'STEAL'}]`` (kinds and fields: docs/rules.md,
        "Events")."""
        return [event_from_pb(e) for e in self.raw.events]

    @cached_property
    def view(self) -> PublicGame:
        """The public game, shaped like engine.Game, for engine.policies: players (list of
        engine.Player by seat), order, round, ruleset, discard, deck_count (the unseen
        multiset by card type) and deck (sized like the draw pile)."""
        return public_game(self.raw.observation)

    @property
    def decision(self) -> Decision:
        """This request as an engine.Decision (kind, seat, options, card), for policies."""
        return Decision(self.kind, self.seat, self.options, self.card)

    @property
    def me(self) -> Player:
        """The choosing seat's line as an engine.Player: seat, status ('active', 'stayed',
        'frozen', 'busted'), numbers and modifiers (cards with .label and .value), extras
        (a held Second Chance), sum (of the number cards), ranks (set of values held),
        total (before this round) and flip7."""
        return self.view.players[self.seat]


class Bot:
    """Subclass and implement :meth:`choose`; optionally the game hooks.

    ``name`` and ``version`` are sent in the hello (the arena's registry name is the one
    used in results). One bot object serves every game of its connection, several at a
    time: keep per-game memory in ``game.state``, not in attributes of the bot.
    """

    name = "bot"
    version = ""

    def choose(self, req: Request) -> int:
        """Return an index into ``req.options``. Called once per request, one at a time, so a
        slow answer delays the bot's other games too."""
        raise NotImplementedError

    def game_started(self, game: GameInfo) -> None:
        """A game begins (called before its first request)."""

    def game_ended(self, game: GameInfo, end: pb.GameEnd) -> None:
        """A game is over. ``end`` (pb.GameEnd) has totals, ranks (1 = first, ties share)
        and winners by seat, rounds, the game's seed, its last events, its faults and its
        status ('completed', or 'void' after an arena failure)."""


# the arena may send up to 16 MiB in one message (a batch, a Swap with many options): more
# than gRPC's default 4 MiB (docs/protocol.md#limits)
CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]


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
        batches: bool = True,
    ) -> None:
        self.bot = bot
        self.batches = batches
        self.address = address
        self.token = token
        self.max_concurrent_games = max_concurrent_games
        self.want_forced = want_forced
        self.reconnect_for = reconnect_for
        self.games: dict[str, GameInfo] = {}
        self._seats: dict[str, set[int]] = {}  # game id -> the seats started in it
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
                batches=self.batches,
            )
        )
        async with grpc.aio.insecure_channel(self.address, options=CHANNEL_OPTIONS) as channel:
            stub = pb_grpc.ArenaStub(channel)
            call = stub.Play()  # read and write the stream directly: no extra task per message
            await call.write(hello)
            while True:
                msg = await call.read()
                if msg is grpc.aio.EOF:
                    break
                which = msg.WhichOneof("msg")
                if which == "batch":  # every request that was ready: one message of answers
                    answers = []
                    for r in msg.batch.requests:
                        index, error = self._answer(r)
                        answers.append(
                            pb.Answer(request_id=r.request_id, option_index=index, error=error)
                        )
                    await call.write(pb.BotMessage(answers=pb.Answers(answers=answers)))
                elif which == "request":
                    index, error = self._answer(msg.request)
                    await call.write(
                        pb.BotMessage(
                            answer=pb.Answer(
                                request_id=msg.request.request_id, option_index=index, error=error
                            )
                        )
                    )
                elif which == "game_start":
                    self._start(msg.game_start)
                elif which == "game_end":
                    self._seats.pop(msg.game_end.game_id, None)
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
        """A game begins -- or, on a new stream after a reconnect, a game in flight is
        announced again: that one is already known and ``game_started`` is not called twice
        (docs/protocol.md#reconnecting)."""
        seats = self._seats.setdefault(gs.game_id, set())
        if gs.seat in seats:
            return
        seats.add(gs.seat)
        info = game_info(gs)
        self.games[gs.game_id] = info
        self.bot.game_started(info)

    def _answer(self, r: pb.DecisionRequest) -> tuple[int, str]:
        return answer(self.bot, Request(r, self.games.get(r.game_id)))


def game_info(gs: pb.GameStart) -> GameInfo:
    """The :class:`GameInfo` of a game, from the arena's GameStart message."""
    return GameInfo(
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


def answer(bot: Bot, req: Request) -> tuple[int, str]:
    """The bot's choice, or (0, what went wrong): an exception in ``choose`` or an index
    that is not one of the options is the bot's fault, and the arena is told so (it
    records a BOT_ERROR strike with the message and plays the safe default)."""
    try:
        index = operator.index(bot.choose(req))
    except Exception as e:
        log.exception("choose() failed on a %s request", req.kind)
        return 0, _describe(e)
    if not 0 <= index < len(req.options):
        error = f"choose() returned {index!r} for {len(req.options)} options"
        log.error("%s", error)
        return 0, error
    return index, ""


def _describe(e: BaseException) -> str:
    """``ValueError: bad card (bot.py:42)``: the exception and where the bot's code raised it."""
    where = ""
    frames = traceback.extract_tb(e.__traceback__)
    if frames:
        last = frames[-1]
        where = f" ({os.path.basename(last.filename)}:{last.lineno})"
    text = str(e) or repr(e)
    return f"{type(e).__name__}: {text}{where}"


def run(
    bot: Bot | Callable[[Request], int],
    *,
    name: str | None = None,
    address: str | None = None,
    token: str | None = None,
    max_concurrent_games: int = 0,
    want_forced: bool = False,
    reconnect_for: float = 10.0,
    batches: bool | None = None,
) -> None:
    """Connect to the arena and play until it says goodbye (blocking).

    ``bot`` is a :class:`Bot` or a plain function ``choose(req) -> int`` (then ``name``,
    or the function's name, names it). ``address`` and ``token`` default to ARENA_ADDRESS
    and ARENA_TOKEN from the environment; without them the process exits with a message.
    ``max_concurrent_games`` is announced in the hello as the most games the bot wants at
    once (0: any number; the arena never has more of its games in flight);
    ``want_forced`` asks for decisions with a single legal option too (they are applied
    for the bot otherwise); a dropped stream is reconnected for up to ``reconnect_for``
    seconds. ``batches`` (default on; ARENA_BATCHES=0 turns it off) asks the arena to send
    every request that is ready at once in one message, answered in one message: the bot
    sees the same requests, at far less cost per decision. ARENA_LOG sets the SDK's log
    level (default WARNING; logs go to stderr).

    While the arena loads the bot's file into its own process (``arena simulate --bot
    FILE``, :func:`arena.sdk.load.load_bot`), ``run`` connects to nothing: it hands the
    bot over and ends the script there, as the end of a network session would.
    """
    if not isinstance(bot, Bot):
        bot = _FunctionBot(bot, name or str(getattr(bot, "__name__", "bot")))
    elif name:
        bot.name = name
    from arena.sdk import load

    if load.loading():
        raise load.Handoff(bot, want_forced=want_forced)
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
        batches=os.environ.get("ARENA_BATCHES", "1") != "0" if batches is None else batches,
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
