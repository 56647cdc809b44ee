"""The worker-process executor: matches spread over local worker processes (all cores).

Each worker is a process of its own with a :class:`~arena.executor.local.LocalExecutor`:
its own gateway, its own copy of each bot it needs (started once, kept up for the event)
and its share of the games at once. The driver (this process) sends a match spec to the
least busy worker and gets the match result back; only the driver touches the database.
A match is deterministic given its spec, so results equal a single-process run; a match
whose worker died is run again from its start on another worker.

The pre-flight (:meth:`WorkerPool.preflight`) runs in the driver, not in the workers:
each bot is started once here, heard from and stopped; each worker then starts its own
copy when it first needs it. That proves what the pre-flight is for — that the entrant
can start and speak the protocol — because a worker starts the same source through the
same runtime, sandbox, limits and environment on the same machine; only the address of
the socket differs. A copy that still fails in a worker (the machine ran out of memory,
say) is an INIT_FAIL fault of that bot's games, in the fault summary like any other.

Messages over each worker's pipe (pickled): driver → worker ``("run", job, spec)`` and
``("stop",)``; worker → driver ``("game", job)`` after each game, ``("done", job,
result)`` or ``("error", job, text)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from arena.errors import ArenaError
from arena.faults import Absence, FaultPolicy
from arena.match import BotEntry, MatchResult, MatchSpec

log = logging.getLogger("arena.workers")

MAX_RERUNS = 2  # a match whose worker died is run again at most this many times


@dataclass
class WorkerConfig:
    """What a worker needs to build its local executor (picklable)."""

    faults: FaultPolicy
    concurrency: int
    isolation: str
    event_id: str
    process_limits: Any = None
    container_limits: Any = None


@dataclass
class _Job:
    spec: MatchSpec
    on_game: Callable[[], None] | None
    future: asyncio.Future[MatchResult]
    reruns: int = 0
    worker: _Worker | None = None


@dataclass
class _Worker:
    index: int
    process: subprocess.Popen[bytes]
    conn: Connection
    jobs: dict[int, _Job] = field(default_factory=dict)
    games: int = 0  # games of its jobs (the load)
    alive: bool = True
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, msg: Any) -> None:
        with self.lock:
            self.conn.send(msg)


class WorkerPool:
    """``workers`` worker processes (see the module docstring). Use as an async context."""

    def __init__(
        self,
        workers: int,
        *,
        faults: FaultPolicy,
        concurrency: int,
        isolation: str = "event",
        event_id: str = "event",
        process_limits: Any = None,
        container_limits: Any = None,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.n = workers
        per_worker = max(1, math.ceil(concurrency / workers))
        self.config = WorkerConfig(
            faults, per_worker, isolation, event_id, process_limits, container_limits
        )
        self.workers: list[_Worker] = []
        self._ids = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing = False
        self.worker_cpu: dict[int, float] = {}  # CPU seconds each worker used (at its stop)

    async def start(self) -> None:
        """Start the workers: fresh interpreters running ``arena.executor.worker`` (never a
        fork of a process that runs gRPC, and nothing of the caller's main module)."""
        self._loop = asyncio.get_running_loop()
        for i in range(self.n):
            ours, theirs = socket.socketpair()
            p = subprocess.Popen(
                [sys.executable, "-m", "arena.executor.worker", str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
            )
            theirs.close()
            w = _Worker(i, p, Connection(ours.detach()))
            w.send(self.config)
            self.workers.append(w)
            threading.Thread(target=self._read, args=(w,), daemon=True).start()

    def _read(self, w: _Worker) -> None:
        """A thread per worker: hand its messages to the event loop; notice its death."""
        assert self._loop is not None
        while True:
            try:
                msg = w.conn.recv()
            except (EOFError, OSError):
                break
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody listens
                self._loop.call_soon_threadsafe(self._handle, w, msg)
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._died, w)

    def _handle(self, w: _Worker, msg: tuple[Any, ...]) -> None:
        kind, job_id = msg[0], msg[1]
        if kind == "usage":  # its last words: the CPU seconds the worker itself used
            self.worker_cpu[w.index] = float(job_id)
            return
        job = w.jobs.get(job_id)
        if job is None:
            return
        if kind == "game":
            if job.on_game is not None:
                job.on_game()
            return
        del w.jobs[job_id]
        w.games -= job.spec.games
        if job.future.done():
            return
        if kind == "done":
            job.future.set_result(msg[2])
        else:
            job.future.set_exception(ArenaError(f"worker {w.index} failed a match: {msg[2]}"))

    def _died(self, w: _Worker) -> None:
        w.alive = False
        if self._closing:
            return
        jobs, w.jobs, w.games = list(w.jobs.values()), {}, 0
        log.warning("worker %d stopped (exit code %s)", w.index, w.process.poll())
        for job in jobs:
            if job.future.done():
                continue
            if job.reruns >= MAX_RERUNS or not any(x.alive for x in self.workers):
                job.future.set_exception(
                    ArenaError(f"worker {w.index} died while it played a match")
                )
                continue
            job.reruns += 1  # same spec, same seeds: the same games, from the start
            self._submit(next(self._ids), job)

    def _submit(self, job_id: int, job: _Job) -> None:
        alive = [w for w in self.workers if w.alive]
        if not alive:
            raise ArenaError("no worker process is running")
        w = min(alive, key=lambda x: (x.games, x.index))
        w.jobs[job_id] = job
        w.games += job.spec.games
        job.worker = w
        try:
            w.send(("run", job_id, job.spec))
        except (BrokenPipeError, OSError):
            self._died(w)

    async def preflight(self, bots: Sequence[BotEntry]) -> list[Absence]:
        """Start each of ``bots`` once in this process and wait for its hello (see the
        module docstring for why that is enough); the ones that failed. Needs no worker:
        it may run before :meth:`start`."""
        from arena.executor.local import LocalExecutor

        c = self.config
        trial = LocalExecutor(
            faults=c.faults,
            concurrency=1,
            isolation="match",  # nothing kept: every bot is stopped after its hello
            event_id=c.event_id,
            process_limits=c.process_limits,
            container_limits=c.container_limits,
        )
        async with trial:
            return await trial.preflight(bots)

    async def run(self, spec: MatchSpec, on_game: Callable[[], None] | None = None) -> MatchResult:
        assert self._loop is not None, "start the pool first"
        job = _Job(spec, on_game, self._loop.create_future())
        self._submit(next(self._ids), job)
        return await job.future

    async def close(self) -> None:
        self._closing = True
        for w in self.workers:
            if w.alive:
                with contextlib.suppress(BrokenPipeError, OSError):
                    w.send(("stop",))
        loop = asyncio.get_running_loop()
        for w in self.workers:
            try:
                await loop.run_in_executor(None, w.process.wait, 20)
            except subprocess.TimeoutExpired:  # stopping its bots took too long: it goes now
                w.process.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    await loop.run_in_executor(None, w.process.wait, 5)
                if w.process.poll() is None:
                    w.process.kill()
            w.conn.close()
        self.workers = []

    async def __aenter__(self) -> WorkerPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
