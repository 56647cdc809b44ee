"""One registered bot as the gateway sees it: its token, its live stream, its requests.

A :class:`BotLink` outlives individual streams: when a stream drops, pending requests wait
for a reconnect within the grace period; the new stream then gets the GameStart of every
game in flight again, and the pending requests with their original ids
(docs/protocol.md, "Reconnecting").
"""

from __future__ import annotations

import asyncio
import hashlib
import heapq
import itertools
import math
import random
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.faults import BotError, BotGone, FaultKind, IllegalAnswer
from arena.protocol import messages, pb, wire


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class Connection:
    """One live stream: the messages waiting for the gateway's handler to write them.

    Notices (game start, game end, errors) go out as soon as the handler writes. Requests
    go one per message, or, when the bot's hello asked for ``batches``, every request
    waiting at that moment goes in one ArenaMessage{batch}; and while a batch is out and
    nothing of it answered yet, new requests gather for the next one (the bot is busy with
    the last: nothing waits on a timer, and a bot with nothing to do gets its request at
    once). Notices may pass waiting requests: a game's start is queued before its first
    request, and its end only after its last one was answered.
    """

    def __init__(self, session_id: str, peer: str, *, batches: bool = False) -> None:
        self.session_id = session_id
        self.peer = peer
        self.batches = batches
        self._notices: deque[pb.ArenaMessage | bytes | None] = deque()
        self._requests: list[bytes] = []
        self._waiter: asyncio.Future[None] | None = None
        self._loop = asyncio.get_running_loop()
        self.closed = False
        self.kicked = False
        self.holding = False  # a batch is out and nothing of it answered yet
        self.stats: LinkStats | None = None  # the link's, once attached (batch counts)

    def _wake(self) -> None:
        w = self._waiter
        if w is not None:
            self._waiter = None
            if not w.done():
                w.set_result(None)

    def send(self, msg: pb.ArenaMessage | bytes) -> None:
        if not self.closed:
            self._notices.append(msg)
            self._wake()

    def send_request(self, body: bytes) -> None:
        """Queue a decision request (its encoded DecisionRequest)."""
        if not self.closed:
            self._requests.append(body)
            if not self.holding:
                self._wake()

    def release(self) -> None:
        """The bot answered (or a request timed out): the next batch may go."""
        if self.holding:
            self.holding = False
            if self._requests:
                self._wake()

    async def get(self) -> pb.ArenaMessage | bytes | None:
        """The next message to write; None when the stream is to close."""
        while True:
            if self._notices:
                return self._notices.popleft()
            requests = self._requests
            if requests and not self.holding:
                if not self.batches:
                    return wire.request_message(requests.pop(0))
                self._requests = []
                self.holding = True
                if self.stats is not None:
                    self.stats.add_batch(len(requests))
                return wire.batch_message(requests)
            self._waiter = self._loop.create_future()
            await self._waiter

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._notices.append(None)
            self._wake()

    def kick(self) -> None:
        """End the stream with UNAVAILABLE: a well-behaved bot reconnects."""
        self.kicked = True
        self.close()


@dataclass(slots=True)
class Pending:
    """A request sent and not yet settled."""

    request_id: int
    message: bytes  # the encoded DecisionRequest (sent again on a reconnect)
    future: asyncio.Future[int]
    n_options: int
    sent_at: float  # perf_counter, when latencies are recorded


# answers a stream may send beyond one per request it was sent before it counts as a flood
FLOOD_ALLOWANCE = 32
# GameEnds kept for a bot while no stream of its is connected (the latest)
MISSED_ENDS = 256
# characters of a bot's own error report (Answer.error) that are kept
ERROR_CHARS = 1000

# round-trip samples a link keeps (a uniform sample of all of them past this many)
LATENCY_SAMPLES = 65536


def checked_answer(option_index: int, error: str, n_options: int) -> int:
    """A bot's answer to a request of ``n_options`` options as the index it plays; raises
    BotError when the bot reports its own failure (``Answer.error``, cut to
    :data:`ERROR_CHARS`) and IllegalAnswer for an index out of range. Every way a bot
    answers (a stream, or a bot loaded in-process) is judged by this one rule."""
    if error:
        raise BotError(" ".join(error.split())[:ERROR_CHARS])
    if not 0 <= option_index < n_options:
        raise IllegalAnswer(f"option {option_index} of {n_options} options")
    return option_index


@dataclass
class LinkStats:
    requests: int = 0
    answers: int = 0
    unknown_answers: int = 0
    connects: int = 0
    latencies: list[float] = field(default_factory=list)  # at most LATENCY_SAMPLES
    latency_count: int = 0  # round trips measured (latencies holds a sample of them)
    takes_batches: bool = False  # the bot's hello asked for batches
    batches: int = 0  # batch messages written
    batched_requests: int = 0  # requests they carried
    largest_batch: int = 0

    def add_batch(self, size: int) -> None:
        self.batches += 1
        self.batched_requests += size
        self.largest_batch = max(self.largest_batch, size)

    def add_latency(self, seconds: float) -> None:
        """Keep a bounded, uniform sample of round-trip times (reservoir sampling)."""
        self.latency_count += 1
        if len(self.latencies) < LATENCY_SAMPLES:
            self.latencies.append(seconds)
            return
        slot = random.randrange(self.latency_count)
        if slot < LATENCY_SAMPLES:
            self.latencies[slot] = seconds


class GameSlots:
    """Games in flight on one link, bounded by what the bot asked for in its hello
    (``max_concurrent_games``; 0 = no limit). Shared by every match the link serves."""

    def __init__(self) -> None:
        self.limit = 0
        self.busy = 0
        self.peak = 0  # most games in flight at once, for tests and logs
        self._waiters: deque[asyncio.Future[None]] = deque()

    def _free(self) -> bool:
        return not self.limit or self.busy < self.limit

    async def acquire(self) -> None:
        while not self._free():
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            try:
                await fut
            except asyncio.CancelledError:
                if fut in self._waiters:
                    self._waiters.remove(fut)
                elif not fut.cancelled():
                    self._wake()  # woken, then cancelled: pass the turn on
                raise
        self.busy += 1
        self.peak = max(self.peak, self.busy)

    def release(self) -> None:
        self.busy -= 1
        self._wake()

    def set_limit(self, limit: int) -> None:
        self.limit = max(0, limit)
        self._wake()

    def _wake(self) -> None:
        room = len(self._waiters) if not self.limit else self.limit - self.busy
        while room > 0 and self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(None)
                room -= 1


class BotLink:
    """A bot registered with the gateway for a match (one token, its own seats only).

    Request ids are numbered per link (1, 2, ...), so they tell a bot nothing about the
    rest of the arena. A stream may send at most one answer per request it was sent, plus
    :data:`FLOOD_ALLOWANCE`, and at most that many answers to ids that were never issued
    (no honest bot sends one); past either it is cut off and the bot's seats forfeit.
    """

    _order = itertools.count()

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
        # the GameStart of every game in flight, by (game id, seat): sent again on each new
        # stream, so that a bot needs no memory across streams
        self.starts: dict[tuple[str, int], pb.ArenaMessage] = {}
        # the GameEnd of games that ended while no stream was connected: sent on the next
        # (at most MISSED_ENDS, the latest)
        self.missed_ends: deque[pb.ArenaMessage] = deque(maxlen=MISSED_ENDS)
        # hellos to refuse with ALREADY_CONNECTED as if the last stream were still live
        # (`bot check`: a bot must retry a too-quick return)
        self.refuse_next = 0
        # ids are issued in increasing order: an id up to this one that is not pending was
        # settled (answered or timed out) -- no set of settled ids that grows per request
        self.last_request_id = 0
        self.order = next(self._order)  # a fixed order for taking several links' slots
        self.games = GameSlots()
        self.flood_allowance = FLOOD_ALLOWANCE
        self._sent_on_stream = 0  # requests sent on the live stream (resends included)
        self._received_on_stream = 0  # answers received on it
        self._unknown_on_stream = 0  # answers to ids never issued
        self.stats = LinkStats()
        self._grace: asyncio.TimerHandle | None = None
        self.record_latency = False
        self.persistent = False  # the link outlives matches: fleets (arena.match.fleet)
        self.on_connect: Callable[[], None] | None = None  # called after each attach
        # called with each hello that names this link's token and what became of it:
        # "welcome", "already_connected" or "closed" (`bot check` judges reconnects by it)
        self.on_hello: Callable[[str], None] | None = None
        # deadlines: a heap of (expiry, request id) and one timer for the earliest
        self._deadlines: list[tuple[float, int]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf
        self._loop: asyncio.AbstractEventLoop | None = None

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
        self.games.set_limit(hello.max_concurrent_games)
        self.hello_name = hello.bot_name
        self.bot_version = hello.bot_version
        self.ever_connected = True
        self.stats.connects += 1
        self.stats.takes_batches = hello.batches
        conn.stats = self.stats
        self.connected.set()
        self._received_on_stream = 0
        self._unknown_on_stream = 0
        self._sent_on_stream = len(self.pending)
        while self.missed_ends:  # resume: the games that ended meanwhile,
            conn.send(self.missed_ends.popleft())
        for start in self.starts.values():  # the games in flight, then their requests
            conn.send(start)
        for p in self.pending.values():  # ... sent again with their original ids
            conn.send_request(p.message)
        if self.on_connect is not None:
            self.on_connect()

    def heard_hello(self, outcome: str) -> None:
        if self.on_hello is not None:
            self.on_hello(outcome)

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
        self._deadlines.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            self._timer_at = math.inf
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        self.connected.clear()  # a bot that comes back must connect again

    def close(self, reason: str = "match over") -> None:
        """Say goodbye and drop the stream (the match is over)."""
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None
        self.starts.clear()
        self.missed_ends.clear()
        if self.conn is not None:
            self.conn.send(messages.goodbye(reason))
            self.conn.close()
            self.conn = None
        if self.gone is None:
            self.gone = BotGone(FaultKind.DISCONNECT, "closed by the arena")

    # ------------------------------------------------------------ messages
    def send(self, msg: pb.ArenaMessage) -> None:
        """A notice (game start/end): sent if connected. A game's start is also kept until
        its end and sent again on every new stream (before the requests sent again); a
        game's end while no stream is connected is sent on the next one (the latest
        :data:`MISSED_ENDS`); other notices sent while none is connected are dropped."""
        which = msg.WhichOneof("msg")
        if which == "game_start":
            self.starts[(msg.game_start.game_id, msg.game_start.seat)] = msg
        elif which == "game_end":
            game_id = msg.game_end.game_id
            for key in [k for k in self.starts if k[0] == game_id]:
                del self.starts[key]
            if self.conn is None:
                self.missed_ends.append(msg)
        if self.conn is not None:
            self.conn.send(msg)

    def next_request_id(self) -> int:
        """A fresh request id for this link (1, 2, ...)."""
        self.last_request_id += 1
        return self.last_request_id

    def request(
        self, request_id: int, msg: bytes, n_options: int, timeout: float
    ) -> asyncio.Future[int]:
        """Send a decision request (``msg``: the encoded DecisionRequest, see
        arena.protocol.wire); the future gives a legal answer index.

        It fails with TimeoutError (no answer within ``timeout`` seconds), BotGone
        (crash/disconnect) or IllegalAnswer. Raises BotGone at once if the bot is gone.
        """
        if self.gone is not None:
            raise BotGone(self.gone.kind, self.gone.detail)
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        fut: asyncio.Future[int] = loop.create_future()
        self.pending[request_id] = Pending(
            request_id, msg, fut, n_options, time.perf_counter() if self.record_latency else 0.0
        )
        self.last_request_id = max(self.last_request_id, request_id)
        self.stats.requests += 1
        if self.conn is not None:
            self.conn.send_request(msg)
            self._sent_on_stream += 1
        expiry = loop.time() + timeout
        if len(self._deadlines) > 2 * len(self.pending) + 64:
            # answered requests leave their deadline behind until it passes: drop them
            # before they outnumber the open ones (amortised, keeps the heap small)
            self._deadlines = [d for d in self._deadlines if d[1] in self.pending]
            heapq.heapify(self._deadlines)
        heapq.heappush(self._deadlines, (expiry, request_id))
        if expiry < self._timer_at:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_at(expiry, self._expire_due)
            self._timer_at = expiry
        return fut

    def _settle(self, request_id: int) -> Pending | None:
        return self.pending.pop(request_id, None)

    def _expire_due(self) -> None:
        """Time out every open request whose deadline has passed; re-arm for the next."""
        self._timer = None
        self._timer_at = math.inf
        assert self._loop is not None
        now = self._loop.time()
        heap = self._deadlines
        while heap and heap[0][0] <= now:
            _, rid = heapq.heappop(heap)
            p = self._settle(rid)
            if p is not None and not p.future.done():
                p.future.set_exception(TimeoutError())
                if self.conn is not None:
                    self.conn.release()  # do not hold the bot's other games behind it
        while heap and heap[0][1] not in self.pending:  # settled already: drop
            heapq.heappop(heap)
        if heap:
            self._timer_at = heap[0][0]
            self._timer = self._loop.call_at(self._timer_at, self._expire_due)

    def on_answer(self, answer: pb.Answer) -> None:
        if self.gone is not None:
            return  # cut off or closed: what is still buffered is not read
        if self.conn is not None:
            self.conn.release()  # the bot is answering: its next batch may go
        self._received_on_stream += 1
        rid = answer.request_id
        if not 0 < rid <= self.last_request_id:
            self._unknown_on_stream += 1
        detail = ""
        if self._received_on_stream > self._sent_on_stream + self.flood_allowance:
            detail = (
                f"answer flood: {self._received_on_stream} answers to "
                f"{self._sent_on_stream} request(s) sent on this stream "
                f"(allowance {self.flood_allowance}); the stream was closed"
            )
        elif self._unknown_on_stream > self.flood_allowance:
            detail = (
                f"answer flood: {self._unknown_on_stream} answers to request ids this "
                f"arena never issued (allowance {self.flood_allowance}); the stream was closed"
            )
        if detail:
            if self.conn is not None:
                self.conn.send(messages.error(pb.Error.PROTOCOL, detail))
            self.persistent = False  # cut off for good: it does not come back
            self.fail(FaultKind.ILLEGAL, detail)
            return
        p = self._settle(rid)
        if p is None:
            if 0 < rid <= self.last_request_id:
                return  # a late (or repeated) answer to a settled request: just dropped
            self.stats.unknown_answers += 1
            # an answer to no open request: blame the oldest open one (it is what the bot
            # should have answered)
            if self.pending:
                oldest = self._settle(next(iter(self.pending)))
                if oldest is not None and not oldest.future.done():
                    oldest.future.set_exception(
                        IllegalAnswer(f"answer to unknown request id {rid}")
                    )
            return
        if p.future.done():
            return
        self.stats.answers += 1
        if self.record_latency:
            self.stats.add_latency(time.perf_counter() - p.sent_at)
        try:
            p.future.set_result(checked_answer(answer.option_index, answer.error, p.n_options))
        except (BotError, IllegalAnswer) as e:
            p.future.set_exception(e)

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
