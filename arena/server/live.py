"""Server-sent events for the live pages: a ``change`` event whenever what the pages show
has changed, with a running event's progress when the stream follows one.

One poller (:class:`Changes`) looks at the database every
:data:`~arena.limits.LIVE_POLL` seconds while any stream is open, and wakes every stream
when the database has moved on: 300 open pages cost one poll, not 300 (and an event's
progress is read once per change, whatever the number of streams following it).

Streams are capped (:class:`Slots`): at most ``per_address`` from one client address and
``total`` in all; beyond, the stream is refused (429) before it starts. A slot is taken
atomically and given back when the stream ends, however it ends (the client leaving, an
error, the server stopping).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from arena import limits
from arena.server.settings import STREAM_RETRY_AFTER, STREAMS_PER_ADDRESS, STREAMS_TOTAL
from arena.store import changes
from arena.store.db import Db

RETRY_AFTER = STREAM_RETRY_AFTER

log = logging.getLogger(__name__)


def message(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class TooManyStreams(Exception):
    """A stream beyond a cap (its message says which)."""


class Slots:
    """The caps on open streams: counters under one lock, so that no number of
    simultaneous requests can take more slots than there are."""

    def __init__(self, per_address: int = STREAMS_PER_ADDRESS, total: int = STREAMS_TOTAL) -> None:
        self.per_address = per_address
        self.total = total
        self._lock = threading.Lock()
        self._by_address: Counter[str] = Counter()
        self._open = 0

    @property
    def open(self) -> int:
        return self._open

    def take(self, address: str) -> Callable[[], None]:
        """A slot for a stream from ``address`` (TooManyStreams if none is left): the
        function that gives it back (calling it again does nothing)."""
        with self._lock:
            if self._by_address[address] >= self.per_address:
                raise TooManyStreams(
                    f"at most {self.per_address} live streams per address: close a page"
                )
            if self._open >= self.total:
                raise TooManyStreams(f"the server has {self.total} live streams open: try later")
            self._by_address[address] += 1
            self._open += 1
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            with self._lock:
                if given_back:
                    return
                given_back = True
                self._open -= 1
                self._by_address[address] -= 1
                if self._by_address[address] <= 0:
                    del self._by_address[address]

        return give_back


class Changes:
    """The database's version, polled by one task while any stream listens, and each
    followed event's progress at that version (read once, shared by its streams)."""

    def __init__(self, db: Db, poll: float = limits.LIVE_POLL) -> None:
        self.db = db
        self.poll = poll
        self.version: str | None = None
        self.polls = 0  # how many times the database was asked (for tests and benchmarks)
        self._moved = asyncio.Event()
        self._listeners = 0
        self._task: asyncio.Task[None] | None = None
        self._progress: dict[int, asyncio.Future[Any]] = {}

    @property
    def polling(self) -> bool:
        """Whether the poller runs (it does while any stream is open)."""
        return self._task is not None

    @contextmanager
    def listening(self) -> Iterator[None]:
        """While a stream is open: the poller runs (it stops with the last stream)."""
        self._listeners += 1
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())
        try:
            yield
        finally:
            self._listeners -= 1

    async def _run(self) -> None:
        try:
            while self._listeners:
                try:
                    version = await run_in_threadpool(changes.version, self.db)
                    self.polls += 1
                except SQLAlchemyError as e:  # the database is away: streams wait for it
                    log.warning("live updates: the database could not be read: %s", e)
                else:
                    if version != self.version:
                        self.version = version
                        self._progress = {}
                        moved, self._moved = self._moved, asyncio.Event()
                        moved.set()
                await asyncio.sleep(self.poll)
        finally:
            self._task = None  # no await since the last look at the listeners: no race

    async def after(self, last: str | None, timeout: float) -> str | None:
        """The version once it differs from ``last``, or after ``timeout`` seconds (then
        possibly still ``last``)."""
        if self.version is not None and self.version != last:
            return self.version
        moved = self._moved
        try:
            await asyncio.wait_for(moved.wait(), timeout)
        except TimeoutError:
            pass
        return self.version

    async def progress(self, tournament: int) -> Any:
        """A tournament's progress at the current version (None: no such tournament)."""
        found = self._progress.get(tournament)
        if found is None:
            found = self._progress[tournament] = asyncio.ensure_future(
                run_in_threadpool(changes.progress, self.db, tournament)
            )
        return await asyncio.shield(found)  # a stream that leaves cancels only its wait


async def stream(
    hub: Changes,
    since: str | None,
    tournament: int | None,
    keepalive: float = limits.LIVE_KEEPALIVE,
) -> AsyncIterator[str]:
    """``change`` events from the version ``since`` on (the first at once if the database
    has moved on since the page was rendered); a comment keeps an idle stream open."""
    with hub.listening():
        yield "retry: 1000\n\n"
        last = since
        while True:
            version = await hub.after(last, keepalive)
            if version is None or version == last:
                yield ": still here\n\n"
                continue
            last = version
            data: dict[str, Any] = {"version": version}
            if tournament is not None:
                data["tournament"] = await hub.progress(tournament)
            yield message("change", data)


class CappedStream(StreamingResponse):
    """A streaming answer holding a slot of :class:`Slots`, given back when the answer
    ends for any reason (the client gone, an error, cancellation)."""

    def __init__(self, content: AsyncIterator[str], give_back: Callable[[], None], **kw: Any):
        super().__init__(content, **kw)
        self.give_back = give_back

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.give_back()
