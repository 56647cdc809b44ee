"""A match with bots loaded into this process: the arena's games, no network.

:func:`play_local` plays a :class:`~arena.match.spec.MatchSpec` as :func:`run_match` would —
the same referee, seat clocks and seeds, so the same games, choices and events — except
that each bot that is not a built-in policy is a bot file loaded into this process
(:func:`arena.sdk.load.load_bot`) and reached through a :class:`LocalLink` instead of the
gateway. The bot sees what the SDK shows it over a stream: each request is the
``DecisionRequest`` the arena encodes for the network (:class:`arena.protocol.wire.
RequestEncoder`), parsed into the SDK's :class:`~arena.sdk.client.Request`; its game hooks
get the arena's GameStart and GameEnd messages; its answer is judged by the gateway's rule
(:func:`arena.gateway.link.checked_answer`) and its time by the seat clock.

Where in-process play differs from the network, it says so: an exception in
``game_started`` (which ends a networked bot's process) is a CRASH that forfeits that game
only, as if the bot were restarted for the next; a ``sys.exit`` in ``choose`` is a CRASH
too; an exception in ``game_ended`` is logged. Time is measured around the call itself, with
no network in it; an answer later than the deadline and the time bank is a TIMEOUT.
Games are played one after another (a bot's calls never overlap).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar

from arena.bots import Policy
from arena.faults import BotGone, FaultKind
from arena.gateway.link import checked_answer
from arena.match.clock import SeatLink
from arena.match.referee import Referee
from arena.match.runner import play_game
from arena.match.spec import GameRecord, MatchResult, MatchSpec
from arena.protocol import pb
from arena.protocol.convert import ruleset_pb
from arena.sdk.client import GameInfo, Request, _describe, answer, game_info
from arena.sdk.load import LoadedBot
from engine import get_ruleset

log = logging.getLogger("arena.match")

T = TypeVar("T")


class LocalLink:
    """The referee's link to a bot loaded into this process (see the module docstring)."""

    def __init__(self, loaded: LoadedBot, now: Callable[[], float] = time.perf_counter) -> None:
        self.bot = loaded.bot
        self.want_forced = loaded.want_forced
        self.gone: BotGone | None = None
        self.games: dict[str, GameInfo] = {}
        self.last_request_id = 0
        self.requests = 0
        self.seconds = 0.0  # spent in the bot's choose()
        self.now = now

    def send(self, msg: pb.ArenaMessage) -> None:
        which = msg.WhichOneof("msg")
        if which == "game_start":
            info = game_info(msg.game_start)
            self.games[info.game_id] = info
            try:
                self.bot.game_started(info)
            except Exception as e:
                log.exception("game_started() failed")
                self.gone = BotGone(FaultKind.CRASH, f"game_started() failed: {_describe(e)}")
        elif which == "game_end":
            ended = self.games.pop(msg.game_end.game_id, None)
            if ended is not None:
                try:
                    self.bot.game_ended(ended, msg.game_end)
                except Exception:
                    log.exception("game_ended() failed")
            self.gone = None  # a crash costs its own game: the next one starts afresh

    def next_request_id(self) -> int:
        self.last_request_id += 1
        return self.last_request_id

    async def request(self, request_id: int, msg: bytes, n_options: int, timeout: float) -> int:
        """The bot's answer to the encoded DecisionRequest ``msg``, judged as the gateway
        judges one; raises TimeoutError past ``timeout`` seconds, BotGone once gone."""
        if self.gone is not None:
            raise BotGone(self.gone.kind, self.gone.detail)
        r = pb.DecisionRequest.FromString(msg)
        req = Request(r, self.games.get(r.game_id))
        self.requests += 1
        t0 = self.now()
        try:
            index, error = answer(self.bot, req)
        except SystemExit as e:
            self.gone = BotGone(FaultKind.CRASH, f"the bot exited (exit status {e.code!r})")
            raise self.gone from None
        elapsed = self.now() - t0
        self.seconds += elapsed
        if elapsed > timeout:
            raise TimeoutError
        return checked_answer(index, error, n_options)


def _run_now(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never waits (a game whose links answer at once) to its end,
    without an event loop, so that in-process games run anywhere, inside a loop or not."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError("an in-process game waited for something")  # pragma: no cover


def play_local(
    spec: MatchSpec,
    bots: Mapping[str, LoadedBot],
    progress: Callable[[int, int], None] | None = None,
) -> MatchResult:
    """Play ``spec`` in this process; ``bots`` gives, by entry name, the loaded bot of each
    entry that is not a built-in policy (its source is only what it would run as over the
    network). The result is the one :func:`arena.match.run_match` gives, games in order."""
    t0 = time.perf_counter()
    rules = get_ruleset(spec.variant, brutal=spec.brutal, target_score=spec.target_score)
    referee = Referee(spec, rules, ruleset_pb(rules))
    links: list[SeatLink | None] = []
    for entry in spec.bots:
        if isinstance(entry.source, Policy):
            links.append(None)
            continue
        loaded = bots.get(entry.name)
        if loaded is None:
            raise ValueError(f"no loaded bot for {entry.name!r}")
        links.append(LocalLink(loaded))
    match_id = spec.match_id or uuid.uuid4().hex[:12]
    records: list[GameRecord] = []
    wanted = spec.indices
    for index in wanted:
        records.append(_run_now(play_game(referee, match_id, index, links)))
        if progress is not None:
            progress(len(records), len(wanted))
    seconds = time.perf_counter() - t0
    return MatchResult(spec, records, seconds, play_seconds=seconds)
