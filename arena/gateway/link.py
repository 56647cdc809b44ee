"""One registered bot as the gateway sees it: its token, its live stream, its requests.

A :class:`BotLink` outlives individual streams: when a stream drops, pending requests wait
for a reconnect within the grace period and are then sent again with their original ids.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from arena.faults import BotGone, FaultKind, IllegalAnswer
from arena.protocol import pb


def _expire(fut: asyncio.Future[int]) -> None:
    if not fut.done():
        fut.set_exception(TimeoutError())


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class Connection:
    """One live stream: an outgoing queue drained by the gateway's handler."""

    def __init__(self, session_id: str, peer: str) -> None:
        self.session_id = session_id
        self.peer = peer
        self.queue: asyncio.Queue[pb.ArenaMessage | bytes | None] = asyncio.Queue()
        self.closed = False
        self.kicked = False

    def send(self, msg: pb.ArenaMessage | bytes) -> None:
        if not self.closed:
            self.queue.put_nowait(msg)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)

    def kick(self) -> None:
        """End the stream with UNAVAILABLE: a well-behaved bot reconnects."""
        self.kicked = True
        self.close()


@dataclass
class Pending:
    request_id: int
    message: pb.ArenaMessage | bytes  # bytes: an encoded ArenaMessage
    future: asyncio.Future[int]
    n_options: int
    sent_at: float = 0.0


@dataclass
class LinkStats:
    requests: int = 0
    answers: int = 0
    unknown_answers: int = 0
    connects: int = 0
    latencies: list[float] = field(default_factory=list)


class BotLink:
    """A bot registered with the gateway for a match (one token, its own seats only)."""

    def __init__(self, name: str, digest: bytes, reconnect_grace: float) -> None:
        self.name = name
        self.digest = digest
        self.reconnect_grace = reconnect_grace
        self.conn: Connection | None = None
        self.connected = asyncio.Event()
        self.ever_connected = False
        self.want_forced = False
        self.max_concurrent = 0
        self.hello_name = ""
        self.bot_version = ""
        self.gone: BotGone | None = None
        self.pending: OrderedDict[int, Pending] = OrderedDict()
        self.closed_ids: set[int] = set()  # requests asked and settled (answered or timed out)
        self.stats = LinkStats()
        self._grace: asyncio.TimerHandle | None = None
        self.record_latency = False
        self.kick_after_answers: int | None = None
        self.persistent = False  # remote bots: the link lives for a whole tournament

    # ------------------------------------------------------------ stream lifecycle
    def attach(self, conn: Connection, hello: pb.Hello) -> None:
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None
        self.conn = conn
        if self.persistent:
            self.gone = None  # a remote bot that comes back plays its next games
        self.want_forced = hello.want_forced
        self.max_concurrent = hello.max_concurrent_games
        self.hello_name = hello.bot_name
        self.bot_version = hello.bot_version
        self.ever_connected = True
        self.stats.connects += 1
        self.connected.set()
        for p in self.pending.values():  # resume: send pending requests again
            conn.send(p.message)

    def detach(self, conn: Connection, reason: str) -> None:
        if self.conn is not conn:
            return
        self.conn = None
        self.connected.clear()
        conn.close()
        if self.gone is None:
            loop = asyncio.get_running_loop()
            self._grace = loop.call_later(
                self.reconnect_grace,
                self.fail,
                FaultKind.DISCONNECT,
                f"stream lost ({reason}) and not back within {self.reconnect_grace:g} s",
            )

    def fail(self, kind: FaultKind, detail: str) -> None:
        """The bot is gone for good: every pending and future request fails at once."""
        if self.gone is not None:
            return
        self.gone = BotGone(kind, detail)
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None
        for p in self.pending.values():
            if not p.future.done():
                p.future.set_exception(BotGone(kind, detail))
        self.pending.clear()
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def close(self, reason: str = "match over") -> None:
        """Say goodbye and drop the stream (the match is over)."""
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None
        if self.conn is not None:
            self.conn.send(pb.ArenaMessage(goodbye=pb.Goodbye(reason=reason)))
            self.conn.close()
            self.conn = None
        if self.gone is None:
            self.gone = BotGone(FaultKind.DISCONNECT, "closed by the arena")

    # ------------------------------------------------------------ messages
    def send(self, msg: pb.ArenaMessage) -> None:
        """A notice (game start/end): sent if connected, dropped otherwise."""
        if self.conn is not None:
            self.conn.send(msg)

    async def ask(
        self, request_id: int, msg: pb.ArenaMessage | bytes, n_options: int, timeout: float
    ) -> int:
        """Send a decision request and wait for a legal answer index.

        Raises TimeoutError, BotGone (crash/disconnect), or IllegalAnswer.
        """
        if self.gone is not None:
            raise BotGone(self.gone.kind, self.gone.detail)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[int] = loop.create_future()
        p = Pending(request_id, msg, fut, n_options, time.perf_counter())
        self.pending[request_id] = p
        self.stats.requests += 1
        if self.conn is not None:
            self.conn.send(msg)
        # a plain timer instead of asyncio.wait_for: one callback, no extra task per request
        timer = loop.call_later(timeout, _expire, fut)
        try:
            return await fut
        finally:
            timer.cancel()
            self.pending.pop(request_id, None)
            self.closed_ids.add(request_id)

    def on_answer(self, answer: pb.Answer) -> None:
        p = self.pending.get(answer.request_id)
        if p is None:
            if answer.request_id in self.closed_ids:
                return  # a late (or repeated) answer to a settled request: just dropped
            self.stats.unknown_answers += 1
            # an answer to no open request: blame the oldest open one (it is what the bot
            # should have answered); a late answer to a timed-out request is just dropped
            if self.pending:
                oldest = next(iter(self.pending.values()))
                if not oldest.future.done():
                    oldest.future.set_exception(
                        IllegalAnswer(f"answer to unknown request id {answer.request_id}")
                    )
            return
        if p.future.done():
            return
        self.stats.answers += 1
        if self.record_latency:
            self.stats.latencies.append(time.perf_counter() - p.sent_at)
        if answer.option_index >= p.n_options:
            p.future.set_exception(
                IllegalAnswer(f"option {answer.option_index} of {p.n_options} options")
            )
        else:
            p.future.set_result(answer.option_index)
        if self.kick_after_answers is not None and self.stats.answers == self.kick_after_answers:
            self.kick_after_answers = None
            asyncio.get_running_loop().call_soon(self.kick)

    def kick(self) -> bool:
        """Drop the live stream (tests and `bot check`); False if none is connected."""
        if self.conn is None:
            return False
        self.conn.kick()
        return True

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "connected": self.conn is not None,
            "gone": None if self.gone is None else str(self.gone.kind),
            "requests": self.stats.requests,
            "answers": self.stats.answers,
        }
