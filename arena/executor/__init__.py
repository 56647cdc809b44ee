"""Executors: where matches run. A match spec goes in, a match result comes out.

* :class:`~arena.executor.local.LocalExecutor` — in this process (one gateway, the event's
  fleet of bots that stay up, a bound on games at once);
* :class:`~arena.executor.workers.WorkerPool` — over local worker processes, one local
  executor each (all cores);
* :func:`make_executor` picks: with more than one worker, matches go to the pool, except
  matches with remote bots, which run in this process (they connect to its TCP listener);
* :data:`EXECUTORS` — the executors by name (``--executor``): ``local`` is
  :func:`make_executor`; another executor is one more entry with the same signature.

Before an event plays, ``preflight(bots)`` starts each entrant and waits for its hello
(``arena.match.preflight``): every executor can, each in its own way (see theirs).

The caller (a tournament, ``arena match``) alone writes the database.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from arena.bots import Remote
from arena.executor.local import ISOLATIONS, LocalExecutor
from arena.executor.workers import WorkerPool
from arena.faults import Absence, FaultPolicy
from arena.match import BotEntry, MatchResult, MatchSpec
from arena.tasks import all_or_none


class Executor(Protocol):
    async def start(self) -> None: ...

    async def preflight(self, bots: Sequence[BotEntry]) -> list[Absence]: ...

    async def run(
        self, spec: MatchSpec, on_game: Callable[[], None] | None = None
    ) -> MatchResult: ...

    async def close(self) -> None: ...

    @property
    def tcp_address(self) -> str | None: ...

    async def __aenter__(self) -> Any: ...

    async def __aexit__(self, *exc: object) -> None: ...


def default_workers() -> int:
    """The machine's cores (what this process may use)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


class Split:
    """Matches with remote bots on ``local``, the others on ``pool``."""

    def __init__(self, local: LocalExecutor | None, pool: WorkerPool) -> None:
        self.local = local
        self.pool = pool

    @property
    def tcp_address(self) -> str | None:
        return self.local.tcp_address if self.local is not None else None

    async def start(self) -> None:
        if self.local is not None:
            await self.local.start()
        try:
            await self.pool.start()
        except BaseException:
            if self.local is not None:
                await self.local.close()
            raise

    async def preflight(self, bots: Sequence[BotEntry]) -> list[Absence]:
        """Remote bots on ``local`` (they stay connected to it for the event), the others
        in the pool's pre-flight (in this process)."""
        remote = [b for b in bots if self.local is not None and isinstance(b.source, Remote)]
        others = [b for b in bots if b not in remote]
        found: list[list[Absence]] = [[], []]

        async def on_local() -> None:
            if remote and self.local is not None:
                found[0] = await self.local.preflight(remote)

        async def on_pool() -> None:
            if others:
                found[1] = await self.pool.preflight(others)

        await all_or_none([on_local(), on_pool()])
        failed = {a.bot: a for a in found[0] + found[1]}
        return [failed[b.name] for b in bots if b.name in failed]

    async def run(self, spec: MatchSpec, on_game: Callable[[], None] | None = None) -> MatchResult:
        if self.local is not None and any(isinstance(b.source, Remote) for b in spec.bots):
            return await self.local.run(spec, on_game)
        return await self.pool.run(spec, on_game)

    async def close(self) -> None:
        try:
            await self.pool.close()
        finally:
            if self.local is not None:
                await self.local.close()

    async def __aenter__(self) -> Split:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def make_executor(
    workers: int,
    *,
    faults: FaultPolicy,
    concurrency: int,
    isolation: str = "event",
    listen: str | None = None,
    remote: bool = False,
    event_id: str = "event",
    process_limits: Any = None,
    container_limits: Any = None,
) -> LocalExecutor | Split:
    """The executor for ``workers`` worker processes (1: this process only). ``remote``:
    the event has remote bots (then this process also listens for them on ``listen``)."""
    common: dict[str, Any] = dict(
        faults=faults,
        concurrency=concurrency,
        isolation=isolation,
        event_id=event_id,
        process_limits=process_limits,
        container_limits=container_limits,
    )
    if workers <= 1:
        return LocalExecutor(listen=listen, **common)
    local = LocalExecutor(listen=listen, **common) if remote else None
    return Split(local, WorkerPool(workers, **common))


ExecutorFactory = Callable[..., Executor]

# the executors by name, as --executor takes them; each takes make_executor's arguments
EXECUTORS: dict[str, ExecutorFactory] = {"local": make_executor}


def executor_factory(name: str) -> ExecutorFactory:
    """The executor registered as ``name`` (a ValueError names the known ones)."""
    try:
        return EXECUTORS[name]
    except KeyError:
        raise ValueError(
            f"unknown executor {name!r} (available: {', '.join(sorted(EXECUTORS))})"
        ) from None


__all__ = [
    "EXECUTORS",
    "ISOLATIONS",
    "Executor",
    "LocalExecutor",
    "Split",
    "WorkerPool",
    "default_workers",
    "executor_factory",
    "make_executor",
    "run_split",
]


async def run_split(
    spec: MatchSpec,
    workers: int,
    on_game: Callable[[], None] | None = None,
    *,
    isolation: str = "event",
    preflight: Callable[[list[Absence]], None] | None = None,
) -> MatchResult:
    """One match played over ``workers`` worker processes (each plays every
    ``workers``-th game with its own copy of the bots); the same games as on one.
    ``preflight`` (as for ``arena.match.MatchRunner``) hears which bots failed to start
    in this process before any worker exists; the match goes on without those (marked
    absent) unless it raises."""
    import time
    import uuid
    from dataclasses import replace

    from arena.bots import Policy
    from arena.match.preflight import mark_absent

    if not spec.match_id:
        spec = replace(spec, match_id=uuid.uuid4().hex[:12])  # one id for every part
    t0 = time.perf_counter()
    pool = WorkerPool(
        max(1, min(workers, len(spec.indices))),  # as many as spec.split makes parts
        faults=spec.faults,
        concurrency=spec.concurrency,
        isolation=isolation,
        event_id=spec.match_id,
        process_limits=spec.process_limits,
        container_limits=spec.container_limits,
    )
    if preflight is not None:
        started = [b for b in spec.bots if not isinstance(b.source, Policy) and b.absent is None]
        absences = await pool.preflight(started)
        preflight(absences)
        spec = replace(spec, bots=mark_absent(spec.bots, absences))
    parts = spec.split(workers)
    async with pool:
        results = await asyncio.gather(*(pool.run(p, on_game) for p in parts))
    return MatchResult.merge(spec, list(results), time.perf_counter() - t0)
