"""Riding through short database outages (a PostgreSQL restart, a dropped connection).

A long-running command wraps each database step (one transaction) in :func:`with_retry`:
when the step fails because the server cannot be reached, it is tried again with a
growing pause (asynchronously, so games keep being played meanwhile) until it succeeds
or the retry limit (``--db-retry``, ``ARENA_DB_RETRY``, default 60 s) has passed; then
:class:`DatabaseUnavailable` says so in one line. Pooled connections are checked before
use (``pool_pre_ping``), so the first step after the server is back gets a live one.

SQLite steps are never retried: a local file that fails (disk full, read-only) does not
heal by waiting.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from arena.errors import ArenaError, UsageProblem
from arena.store.db import describe, one_line

T = TypeVar("T")

DEFAULT_DB_RETRY = 60.0  # seconds
MAX_DB_RETRY = 86400.0
ENV = "ARENA_DB_RETRY"
FIRST_PAUSE = 0.2
MAX_PAUSE = 5.0


class DatabaseUnavailable(ArenaError):
    """The database could not be reached for longer than the retry limit."""


def retry_limit(value: float | None = None) -> float:
    """The retry limit in seconds: ``value``, else ``ARENA_DB_RETRY``, else 60."""
    source = "--db-retry"
    if value is None:
        raw = os.environ.get(ENV)
        if raw is None or not raw.strip():
            return DEFAULT_DB_RETRY
        source = ENV
        try:
            value = float(raw)
        except ValueError:
            raise UsageProblem(f"give a number of seconds, got {raw!r}", param=source) from None
    if not math.isfinite(value) or not 0 <= value <= MAX_DB_RETRY:
        raise UsageProblem(
            f"must be between 0 and {MAX_DB_RETRY:g} seconds, got {value:g}", param=source
        )
    return float(value)


def is_transient(exc: BaseException, eng: Engine) -> bool:
    """Whether ``exc`` is the server being out of reach (worth waiting for)."""
    if eng.dialect.name == "sqlite":
        return False
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(exc, OperationalError | InterfaceError)


async def with_retry(
    eng: Engine,
    step: Callable[[], T],
    *,
    limit: float,
    on_wait: Callable[[str], None] | None = None,
    on_back: Callable[[], None] | None = None,
) -> T:
    """Run ``step()`` (one database transaction), retrying it through an outage of at most
    ``limit`` seconds. ``on_wait(message)`` is told once when waiting starts, ``on_back()``
    when a step succeeds again after failures."""
    started = time.monotonic()
    pause = FIRST_PAUSE
    failed = False
    while True:
        try:
            result = step()
        except (OperationalError, InterfaceError, DBAPIError) as e:
            if not is_transient(e, eng):
                raise
            waited = time.monotonic() - started
            if waited >= limit:
                raise DatabaseUnavailable(
                    f"database {describe(eng.url)} unreachable for {waited:.0f} s "
                    f"(--db-retry {limit:g}): {one_line(e)}"
                ) from None
            if not failed and on_wait is not None:
                on_wait(
                    f"database {describe(eng.url)} unreachable ({one_line(e)}); "
                    f"retrying for up to {limit:g} s"
                )
            failed = True
            await asyncio.sleep(min(pause, max(0.0, limit - waited)))
            pause = min(pause * 2, MAX_PAUSE)
            continue
        if failed and on_back is not None:
            on_back()
        return result


class Outage:
    """The database steps of one long run (an event, a test, a ladder), each retried through
    a short outage: concurrent steps share one outage, so ``warn`` hears once that it began
    and once that it ended (``"database reachable again; the <run> continues"``), and the
    run's lock, once it holds one (``lock()``), is refreshed when the database is back."""

    def __init__(
        self,
        eng: Engine,
        limit: float,
        warn: Callable[[str], None],
        run: str,
        lock: Callable[[], Any],
    ) -> None:
        self.eng, self.limit, self.warn, self.run, self.lock = eng, limit, warn, run, lock
        self.active = False

    async def step(self, step: Callable[..., T], *args: Any) -> T:
        return await with_retry(
            self.eng, lambda: step(*args), limit=self.limit, on_wait=self._wait, on_back=self._back
        )

    def _wait(self, message: str) -> None:
        if not self.active:
            self.active = True
            self.warn(message)

    def _back(self) -> None:
        if self.active:
            self.active = False
            self.warn(f"database reachable again; the {self.run} continues")
        held = self.lock()
        if held is not None:
            held.refresh()
