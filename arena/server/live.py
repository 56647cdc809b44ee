"""Server-sent events for the live pages: the server polls the database (every
:data:`~arena.limits.LIVE_POLL` seconds) and sends a ``change`` event whenever what the
pages show has changed, with a running event's progress when the stream follows one."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.concurrency import run_in_threadpool

from arena import limits
from arena.store import changes
from arena.store.db import Db


def message(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


async def stream(
    db: Db,
    since: str | None,
    tournament: int | None,
    disconnected: Callable[[], Any],
    poll: float = limits.LIVE_POLL,
) -> AsyncIterator[str]:
    """``change`` events from the version ``since`` on (the first at once if the database
    has moved on since the page was rendered); a comment keeps an idle stream open."""
    last = since
    idle = 0.0
    yield "retry: 1000\n\n"
    while not await disconnected():
        version = await run_in_threadpool(changes.version, db)
        if version != last:
            last = version
            data: dict[str, Any] = {"version": version}
            if tournament is not None:
                data["tournament"] = await run_in_threadpool(changes.progress, db, tournament)
            idle = 0.0
            yield message("change", data)
        elif idle >= limits.LIVE_KEEPALIVE:
            idle = 0.0
            yield ": still here\n\n"
        await asyncio.sleep(poll)
        idle += poll
