"""The competition server's build queue: uploads are built by a few worker threads, in a
fair order, never inside the upload's request.

Fairness: a participant has at most one build running at a time, and among the
participants who wait, the one served least recently goes first (round-robin; a
participant's own uploads go oldest first). So one participant's ten uploads, or one slow
build, delay nobody else's by more than one build per worker.

How many builds run side by side is a setting (``arena serve --builds N``); the default is
half the machine's cores, at least one: a build may use a core of its own (the build
sandbox's CPU limit), and its compliance check then plays games on about another one, so
that builds on the other half leave the site and the running event their share.

A queued build can be cancelled (it never starts); a running one is stopped (its build
through the build's watchdog, its check by cancelling the check's task). The log of a
running build is written to the database while it builds (every :data:`FLUSH` seconds),
so its page shows it live.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import shutil
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from arena.store import builds
from arena.store.db import Db

T = TypeVar("T")
FLUSH = 0.5  # seconds between writes of the running builds' logs
POLL = 0.2  # seconds between a running check's looks at its cancel flag
LOG_CAP = 200_000  # characters of build log kept per upload

log = logging.getLogger(__name__)


def default_builders() -> int:
    """Half the cores this process may use, at least one (see the module's docstring)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, cores // 2)


class Cancelled(Exception):
    """The build was cancelled (by its owner, or because the server stops)."""


@dataclass(eq=False)
class Job:
    """One queued upload: its stored build and its build context on disk (``folder`` is
    removed when the build ends)."""

    build_id: int
    participant_id: int
    name: str
    folder: Path
    context: Path
    cancel: threading.Event = field(default_factory=threading.Event)
    stopping: bool = False  # cancelled because the server stops (not by its owner)
    lines: list[str] = field(default_factory=list)
    _size: int = 0
    _dirty: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def line(self, text: str) -> None:
        """One line of the build's log (kept up to :data:`LOG_CAP` characters)."""
        with self._lock:
            if self._size < LOG_CAP:
                self.lines.append(text)
                self._size += len(text) + 1
                self._dirty = True

    def log(self) -> str:
        with self._lock:
            return "\n".join(self.lines)

    def take_dirty(self) -> str | None:
        """The log, if it changed since the last call."""
        with self._lock:
            if not self._dirty:
                return None
            self._dirty = False
            return "\n".join(self.lines)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """``asyncio.run(coro)``, cancelled (:class:`asyncio.CancelledError`) as soon as
        the job is: every ``finally`` of the check runs, so its bots are stopped."""
        if self.cancel.is_set():
            coro.close()
            raise Cancelled("cancelled before the check")

        async def watched() -> T:
            task = asyncio.ensure_future(coro)
            while not task.done():
                if self.cancel.is_set():
                    task.cancel()
                    break
                await asyncio.wait({task}, timeout=POLL)
            return await task

        return asyncio.run(watched())

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


class BuildQueue:
    """Worker threads that run ``build(job)`` for queued jobs in fair order (see the
    module's docstring). ``build`` stores the outcome; the queue stores only what happens
    to a job that never reaches it (cancelled or the server stopping)."""

    def __init__(self, db: Db, build: Callable[[Job], None], workers: int | None = None) -> None:
        self.db = db
        self.build = build
        self.workers = workers or default_builders()
        self._cond = threading.Condition()
        self._waiting: dict[int, list[Job]] = {}  # participant -> their queued jobs, oldest first
        self._running: dict[int, Job] = {}  # build id -> job
        self._busy: set[int] = set()  # participants with a running build
        self._served: dict[int, int] = {}  # participant -> when last served (a counter)
        self._clock = itertools.count(1)
        self._stopping = False
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------ lifecycle
    def start(self) -> None:
        for i in range(self.workers):
            t = threading.Thread(target=self._work, name=f"builder-{i}", daemon=True)
            t.start()
            self._threads.append(t)
        t = threading.Thread(target=self._flush_logs, name="build-logs", daemon=True)
        t.start()
        self._threads.append(t)

    def stop(self, wait: float = 60.0) -> None:
        """Stop: queued builds fail ("upload again"), running ones are stopped and fail
        alike; waits up to ``wait`` seconds for them to clean up."""
        with self._cond:
            self._stopping = True
            waiting = [j for jobs in self._waiting.values() for j in jobs]
            self._waiting.clear()
            for job in self._running.values():
                job.stopping = True
                job.cancel.set()
            self._cond.notify_all()
        for job in waiting:
            self._fail_stopped(job, "before the build")
        for t in self._threads:
            t.join(wait)

    def _fail_stopped(self, job: Job, when: str) -> None:
        from arena.status import BuildStatus

        job.discard()
        with contextlib.suppress(Exception):  # the database may be gone: restart marks it
            builds.finish(
                self.db,
                job.build_id,
                BuildStatus.FAILED,
                builds.STOPPED.format(when=when),
                job.log(),
            )

    # ------------------------------------------------------------ queueing
    def add(self, job: Job) -> None:
        with self._cond:
            if self._stopping:
                raise RuntimeError("the build queue is stopped")
            self._waiting.setdefault(job.participant_id, []).append(job)
            self._cond.notify_all()

    def cancel(self, build_id: int) -> bool:
        """Cancel a queued or running build of this server; False if it is neither."""
        from arena.status import BuildStatus

        with self._cond:
            running = self._running.get(build_id)
            if running is not None:
                running.cancel.set()
                return True
            for pid, jobs in self._waiting.items():
                for job in jobs:
                    if job.build_id == build_id:
                        jobs.remove(job)
                        if not jobs:
                            del self._waiting[pid]
                        job.cancel.set()
                        break
                else:
                    continue
                break
            else:
                return False
        job.discard()
        builds.finish(
            self.db,
            build_id,
            BuildStatus.CANCELLED,
            "cancelled before it started; nothing was registered",
            "",
        )
        return True

    def _order(self) -> list[int]:
        """Participants who wait, in the order they are served: least recently served
        first, then the one whose oldest upload is oldest."""
        return sorted(
            self._waiting,
            key=lambda p: (self._served.get(p, 0), self._waiting[p][0].build_id),
        )

    def positions(self) -> dict[int, int]:
        """Each queued build's place in the queue (1: next), were every builder free:
        round-robin over the participants in :meth:`_order`."""
        with self._cond:
            order = [list(self._waiting[p]) for p in self._order()]
        places: dict[int, int] = {}
        rank = 0
        for k in range(max((len(jobs) for jobs in order), default=0)):
            for jobs in order:
                if k < len(jobs):
                    rank += 1
                    places[jobs[k].build_id] = rank
        return places

    def _next(self) -> Job | None:
        for pid in self._order():
            if pid not in self._busy:
                jobs = self._waiting[pid]
                job = jobs.pop(0)
                if not jobs:
                    del self._waiting[pid]
                self._busy.add(pid)
                self._served[pid] = next(self._clock)
                self._running[job.build_id] = job
                return job
        return None

    # ------------------------------------------------------------ the workers
    def _work(self) -> None:
        while True:
            with self._cond:
                job = None
                while not self._stopping and (job := self._next()) is None:
                    self._cond.wait()
                if job is None:
                    return
            try:
                self.build(job)
            except BaseException:  # a worker outlives any build (the build stored its end)
                log.exception("build %s broke", job.build_id)
            finally:
                job.discard()
                with self._cond:
                    self._running.pop(job.build_id, None)
                    self._busy.discard(job.participant_id)
                    self._cond.notify_all()

    def _flush_logs(self) -> None:
        while True:
            with self._cond:
                if self._stopping and not self._running:
                    return
                self._cond.wait(FLUSH)
                running = list(self._running.values())
            for job in running:
                text = job.take_dirty()
                if text is not None:
                    with contextlib.suppress(Exception):  # the next flush tries again
                        builds.set_log(self.db, job.build_id, text)
