"""Running coroutines together: all finish, or the first failure stops the rest."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import Any


async def all_or_none(coros: Iterable[Awaitable[Any]]) -> None:
    """Run ``coros`` as tasks until all are done. If one fails (or this is cancelled), the
    others are cancelled and awaited, and the first failure is raised as it is; every
    task's exception is collected, so none is reported later as never retrieved."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    if not tasks:
        return
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    errors = [t.exception() for t in tasks if not t.cancelled()]
    first = next((e for e in errors if e is not None), None)
    if first is not None:
        raise first
