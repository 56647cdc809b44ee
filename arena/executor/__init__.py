"""Executors: where matches run. A match spec goes in, a match result comes out.

* :class:`~arena.executor.local.LocalExecutor` — in this process (one gateway, the event's
  fleet of bots that stay up, a bound on games at once);
* :class:`~arena.executor.workers.WorkerPool` — over local worker processes, one local
  executor each (all cores);
* :class:`~arena.executor.ray.RayExecutor` — each match a task on a Ray cluster (the
  optional extra ``flip7-arena[ray]``; imported only when asked for);
* :func:`make_executor` picks by name (``EXECUTORS``: ``local``, ``ray``): local with more
  than one worker, or Ray, sends matches to the pool, except matches with remote bots,
  which run in this process (they connect to its TCP listener);
* :func:`runner_executor` is the set-up tournaments, A/B tests and ladders share: the
  limits of the event's stored options, then :func:`make_executor`.

Before an event plays, ``preflight(bots)`` starts each entrant and waits for its hello
(``arena.match.preflight``): every executor can, each in its own way (see theirs).

The caller (a tournament, ``arena match``) alone writes the database.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

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
    """Matches with remote bots on ``local``, the others on ``pool`` (worker processes or
    a Ray cluster)."""

    def __init__(self, local: LocalExecutor | None, pool: Any) -> None:
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


def _local_pool(workers: int, address: str | None, common: dict[str, Any]) -> Any:
    return WorkerPool(workers, **common)


def _ray_pool(workers: int, address: str | None, common: dict[str, Any]) -> Any:
    from arena.executor.ray import RayExecutor

    return RayExecutor(address=address, **common)


# where matches can run, by the name --executor takes: each makes the pool of matches
# without remote bots from (workers, cluster address, the options every executor shares)
EXECUTORS: dict[str, Callable[[int, str | None, dict[str, Any]], Any]] = {
    "local": _local_pool,
    "ray": _ray_pool,
}


def known_executor(kind: str) -> str:
    """``kind`` if it names an executor (a key of ``EXECUTORS``), else a ValueError that
    names the known ones."""
    if kind not in EXECUTORS:
        raise ValueError(f"unknown executor {kind!r} (choose from {', '.join(EXECUTORS)})")
    return kind


def make_executor(
    workers: int,
    *,
    kind: str = "local",
    address: str | None = None,
    faults: FaultPolicy,
    concurrency: int,
    isolation: str = "event",
    listen: str | None = None,
    remote: bool = False,
    event_id: str = "event",
    process_limits: Any = None,
    container_limits: Any = None,
) -> LocalExecutor | Split:
    """The executor ``kind`` (a name in ``EXECUTORS``): local with ``workers`` worker
    processes (1: this process only), or a Ray cluster at ``address``. ``remote``: the event
    has remote bots (then this process also listens for them on ``listen``)."""
    known_executor(kind)
    common: dict[str, Any] = dict(
        faults=faults,
        concurrency=concurrency,
        isolation=isolation,
        event_id=event_id,
        process_limits=process_limits,
        container_limits=container_limits,
    )
    if kind == "local" and workers <= 1:
        return LocalExecutor(listen=listen, **common)
    local = LocalExecutor(listen=listen, **common) if remote else None
    return Split(local, EXECUTORS[kind](workers, address, common))


class RunnerExecutor(NamedTuple):
    """The executor an event's runner plays through, and the limits its options set (the
    runner also puts them in each match spec)."""

    executor: LocalExecutor | Split
    process_limits: Any
    container_limits: Any


async def runner_executor(
    options: Mapping[str, Any],
    *,
    images: bool,
    workers: int,
    kind: str = "local",
    address: str | None = None,
    faults: FaultPolicy,
    concurrency: int,
    event_id: str,
    listen: str | None = None,
    remote: bool = False,
) -> RunnerExecutor:
    """The executor set up as tournaments, A/B tests and ladders do from their stored
    ``options``: the process limits of ``options["process"]``, and when the event has
    container bots (``images``) the containers of a run that was killed reaped and the
    limits of ``options["container"]``; then :func:`make_executor` with the isolation of
    ``options["isolation"]`` (default ``event``)."""
    container_limits = process_limits = None
    if images:
        from arena.runtime.docker import ContainerLimits, reap_stale_containers_async

        await reap_stale_containers_async()  # containers of a run that was killed
        container_limits = ContainerLimits(**(options.get("container") or {}))
    if options.get("process"):
        from arena.runtime.sandbox import ProcessLimits

        process_limits = ProcessLimits(**options["process"])
    executor = make_executor(
        workers,
        kind=kind,
        address=address,
        faults=faults,
        concurrency=concurrency,
        isolation=str(options.get("isolation", "event")),
        listen=listen,
        remote=remote,
        event_id=event_id,
        process_limits=process_limits,
        container_limits=container_limits,
    )
    return RunnerExecutor(executor, process_limits, container_limits)


__all__ = [
    "EXECUTORS",
    "ISOLATIONS",
    "Executor",
    "LocalExecutor",
    "RunnerExecutor",
    "Split",
    "WorkerPool",
    "default_workers",
    "known_executor",
    "make_executor",
    "run_split",
    "runner_executor",
]


async def run_split(
    spec: MatchSpec,
    workers: int,
    on_game: Callable[[], None] | None = None,
    *,
    isolation: str = "event",
    preflight: Callable[[list[Absence]], None] | None = None,
    kind: str = "local",
    address: str | None = None,
) -> MatchResult:
    """One match played in parts over ``workers`` worker processes, or Ray tasks with
    ``kind="ray"`` (0: as many as the cluster has CPUs for): each part plays every
    ``workers``-th game with its own copy of the bots; the same games as in one piece.
    ``preflight`` (as for ``arena.match.MatchRunner``) hears which bots failed to start
    in this process before any part runs; the match goes on without those (marked
    absent) unless it raises."""
    import time
    import uuid
    from dataclasses import replace

    from arena.bots import Policy
    from arena.match.preflight import mark_absent

    if not spec.match_id:
        spec = replace(spec, match_id=uuid.uuid4().hex[:12])  # one id for every part
    n = len(spec.split(workers)) if workers > 0 else 0
    t0 = time.perf_counter()
    common: dict[str, Any] = dict(
        faults=spec.faults,
        concurrency=spec.concurrency,
        isolation=isolation,
        event_id=spec.match_id,
        process_limits=spec.process_limits,
        container_limits=spec.container_limits,
    )
    pool = EXECUTORS[kind](max(1, n), address, common)
    if preflight is not None:
        started = [b for b in spec.bots if not isinstance(b.source, Policy) and b.absent is None]
        absences = await pool.preflight(started)
        preflight(absences)
        spec = replace(spec, bots=mark_absent(spec.bots, absences))
    async with pool:
        parts = spec.split(n or pool.slots())
        results = await asyncio.gather(*(pool.run(p, on_game) for p in parts))
    return MatchResult.merge(spec, list(results), time.perf_counter() - t0)
