"""The events the server runs: one at a time, in a thread of their own (each with its own
event loop, so the pages stay responsive), with the server's gRPC address for remote
bots. At start the server resumes every unfinished event whose lock is free: a server
killed mid-event loses no stored game (arena.tournament stores each match atomically) and
carries on where it stopped.

An event that cannot run ends "failed" with its reason (arena.store.tournaments.failure;
``errors`` holds it for the API), rather than staying "running" to fail again at every
start of the server: one whose stored settings do not pass the checks of a new event
(arena.tournament marks it), and one whose run failed in an unexpected way before it
played a game. A failure the arena may get over (the database away, the event run by
another process) leaves it resumable."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from typing import Any

from arena.errors import ArenaError
from arena.status import TournamentStatus
from arena.store import tournaments
from arena.store.db import Db, engine_of
from arena.store.locks import EventLock
from arena.tournament import TournamentRunner

log = logging.getLogger("arena.server")


class EventRunner:
    def __init__(self, db: Db, listen: str | None) -> None:
        self.db = db
        self.listen = listen
        self.queue: queue.Queue[int | None] = queue.Queue()
        self.current: int | None = None
        self.errors: dict[int, str] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._work, name="arena-events", daemon=True)

    def start(self) -> None:
        for t, _games in tournaments.with_game_counts(self.db):
            if t.id is None:
                continue
            reason = tournaments.failure(t)
            if reason is not None:
                self.errors[t.id] = reason
            elif t.status == TournamentStatus.RUNNING and self._free(t.id):
                self.queue.put(t.id)
        self._thread.start()

    def _free(self, tid: int) -> bool:
        """The event is run by nobody else (a CLI run holds its lock)."""
        try:
            with EventLock(engine_of(self.db), tid):
                return True
        except ArenaError:
            return False

    def add(self, tid: int) -> None:
        self.queue.put(tid)

    def stop(self, wait: float = 30.0) -> None:
        """Stop the running event as Ctrl-C would (its bots stopped, its games kept)."""
        self._stopping.set()
        self.queue.put(None)
        loop, task = self._loop, self._task
        if loop is not None and task is not None:
            loop.call_soon_threadsafe(task.cancel)
        self._thread.join(wait)

    def _work(self) -> None:
        while not self._stopping.is_set():
            tid = self.queue.get()
            if tid is None:
                return
            self.current = tid
            runner = TournamentRunner(self.db, tid, listen=self.listen, allow_absent=True)
            try:
                asyncio.run(self._run(runner))
            except asyncio.CancelledError:
                return
            except ArenaError as e:  # resumable unless the runner marked it failed
                self.errors[tid] = str(e)
                log.warning("tournament %s stopped: %s", tid, e)
            except Exception as e:  # the arena's own failure: it would recur at every start
                reason = f"{type(e).__name__}: {e}".splitlines()[0][:500]
                self.errors[tid] = reason
                log.exception("tournament %s failed", tid)
                if runner.played == 0:
                    self._fail(tid, reason)
            finally:
                self.current = None

    def _fail(self, tid: int, reason: str) -> None:
        try:
            tournaments.mark_failed(self.db, tid, reason)
        except Exception as e:  # the database itself is away: it stays resumable
            log.warning("tournament %s could not be marked failed: %s", tid, e)

    async def _run(self, runner: TournamentRunner) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        try:
            # on a server, one participant's bot that does not start must not hold up the
            # event: it passes the pre-flight absent and forfeits every game, visibly (its
            # owner sees why on its page)
            await runner.run()
        finally:
            self._task = None
