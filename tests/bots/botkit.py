"""Plumbing shared by the deliberately broken test bots in this folder.

The bots talk raw gRPC (no SDK safety nets) so that they can misbehave on purpose: send
bytes that are not a BotMessage, answer with any id or index, drop the stream, flood.
They are run as ``python tests/bots/NAME.py`` with ARENA_ADDRESS and ARENA_TOKEN in the
environment, like any process bot. A bot reports what it saw as JSON lines appended to the
file named by ``BOT_LOG`` (if set), one ``open``/``close`` per line so that nothing is lost
when the bot dies abruptly.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from arena.protocol import PROTOCOL_VERSION, pb

ADDRESS = os.environ.get("ARENA_ADDRESS", "")
TOKEN = os.environ.get("ARENA_TOKEN", "")
PLAY_METHOD = "/arena.v1.Arena/Play"
# while waiting for an arena that is not listening yet: try again every 0.1 s to 1 s (gRPC's
# own back-off grows to two minutes, longer than an arena waits for a bot's hello)
RETRY_QUICKLY = [
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
]


def note(**fields: Any) -> None:
    """Append one JSON line to $BOT_LOG (no-op without it)."""
    path = os.environ.get("BOT_LOG")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(fields, sort_keys=True) + "\n")
        f.flush()


def hello(token: str | None = None, name: str = "broken", **kw: Any) -> pb.BotMessage:
    return pb.BotMessage(
        hello=pb.Hello(
            token=TOKEN if token is None else token,
            bot_name=name,
            protocol_version=kw.pop("protocol_version", PROTOCOL_VERSION),
            **kw,
        )
    )


def answer(request_id: int, index: int) -> pb.BotMessage:
    return pb.BotMessage(answer=pb.Answer(request_id=request_id, option_index=index))


def safe_index(req: pb.DecisionRequest) -> int:
    """A legal, boring choice: STAY where legal, else the first option."""
    for i, opt in enumerate(req.options):
        if opt.WhichOneof("option") == "move" and opt.move == pb.STAY:
            return i
    return 0


def sensible_index(req: pb.DecisionRequest) -> int:
    """HIT below a line of 20, else STAY; option 0 for every other kind."""
    if req.kind != pb.HIT_OR_STAY:
        return 0
    me = req.observation.players[req.seat]
    want = pb.HIT if me.line_score < 20 else pb.STAY
    for i, opt in enumerate(req.options):
        if opt.move == want:
            return i
    return 0


class Stream:
    """One Arena.Play call. ``send`` takes a BotMessage or raw bytes (sent as they are);
    iterate for ArenaMessages. Built on a bytes serializer so that anything can be sent."""

    def __init__(self, channel: grpc.aio.Channel, *, wait_for_ready: bool = False) -> None:
        self.outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        play = channel.stream_stream(
            PLAY_METHOD,
            request_serializer=lambda b: b,
            response_deserializer=pb.ArenaMessage.FromString,
        )
        # wait_for_ready: a bot started before its arena listens waits for it (as a remote
        # bot started by hand does) instead of failing at once with UNAVAILABLE
        self.call = play(self._outgoing(), wait_for_ready=wait_for_ready)

    async def _outgoing(self) -> AsyncIterator[bytes]:
        while True:
            item = await self.outbox.get()
            if item is None:
                return
            yield item

    def send(self, msg: pb.BotMessage | bytes) -> None:
        self.outbox.put_nowait(msg if isinstance(msg, bytes) else msg.SerializeToString())

    def end(self) -> None:
        """Half-close: no more messages from the bot."""
        self.outbox.put_nowait(None)

    def cancel(self) -> None:
        """Drop the stream abruptly."""
        self.call.cancel()

    def __aiter__(self) -> AsyncIterator[pb.ArenaMessage]:
        return self.call.__aiter__()


async def first_reply(
    token: str | None = None, first: pb.BotMessage | bytes | None = None, name: str = "probe"
) -> dict[str, Any]:
    """Open a stream, send one first message (a hello by default) and report the reply:
    ``{"reply": "welcome"|"error"|..., "code": ..., "status": ...}``."""
    async with grpc.aio.insecure_channel(ADDRESS) as channel:
        s = Stream(channel)
        s.send(first if first is not None else hello(token, name))
        out: dict[str, Any] = {"reply": None}
        try:
            async for msg in s:
                which = msg.WhichOneof("msg")
                out["reply"] = which
                if which == "error":
                    out["code"] = pb.Error.Code.Name(msg.error.code)
                    out["message"] = msg.error.message
                break
            out["status"] = "OK"
        except grpc.aio.AioRpcError as e:
            out["status"] = e.code().name
            out["details"] = e.details()
        s.cancel()
        return out


OnRequest = Callable[[pb.DecisionRequest, Stream], Awaitable[None] | None]


async def play(
    on_request: OnRequest,
    *,
    token: str | None = None,
    name: str = "broken",
    on_message: Callable[[pb.ArenaMessage], None] | None = None,
    **hello_fields: Any,
) -> str:
    """Say hello (with any further Hello fields given) and serve requests until goodbye.
    ``on_request`` may be a coroutine function: each request then runs in its own task (so
    slow answers do not block other games). Returns why the session ended."""
    tasks: set[asyncio.Task[None]] = set()
    async with grpc.aio.insecure_channel(ADDRESS, options=RETRY_QUICKLY) as channel:
        s = Stream(channel, wait_for_ready=True)
        s.send(hello(token, name, **hello_fields))
        async for msg in s:
            if on_message is not None:
                on_message(msg)
            which = msg.WhichOneof("msg")
            if which == "request":
                result = on_request(msg.request, s)
                if asyncio.iscoroutine(result):
                    task = asyncio.ensure_future(result)
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
            elif which == "error":
                return "error " + pb.Error.Code.Name(msg.error.code)
            elif which == "goodbye":
                s.end()
                return "goodbye"
    return "stream ended"


def run(coro: Awaitable[Any]) -> None:
    asyncio.run(coro)  # type: ignore[arg-type]


async def idle_forever() -> None:
    """Stay alive (and silent) until the arena stops the process."""
    while True:
        await asyncio.sleep(3600)
