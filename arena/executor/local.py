"""The local executor: runs matches in this process.

One gateway (a private Unix socket for the bots it starts, plus a TCP listener for remote
bots when asked), one bound on the games played at once, and one fleet for the event: with
``isolation="event"`` every bot is started once and serves all its matches; with
``"match"`` only remote bots are (the others start and stop with each match).

Its pre-flight (:meth:`LocalExecutor.preflight`) starts the bots that fleet holds in it,
so they are the very processes that then play; the others are started once in a fleet of
the pre-flight's own and stopped again, as each match will start them.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.bots import Remote
from arena.faults import Absence, FaultPolicy
from arena.gateway.server import Gateway
from arena.match import BotEntry, MatchResult, MatchRunner, MatchSpec
from arena.match.fleet import DEFAULT_RESTARTS, Fleet
from arena.runtime import RuntimeContext
from arena.tasks import all_or_none

ISOLATIONS = ("event", "match")


class LocalExecutor:
    """Matches in this process (see the module docstring). Use as an async context."""

    def __init__(
        self,
        *,
        faults: FaultPolicy,
        concurrency: int,
        isolation: str = "event",
        listen: str | None = None,
        event_id: str = "event",
        process_limits: Any = None,
        container_limits: Any = None,
        restarts: int = DEFAULT_RESTARTS,
    ) -> None:
        if isolation not in ISOLATIONS:
            raise ValueError(f"isolation must be one of {', '.join(ISOLATIONS)}")
        self.faults = faults
        self.concurrency = max(1, concurrency)
        self.isolation = isolation
        self.listen = listen
        self.ctx = RuntimeContext(event_id, process_limits, container_limits)
        self.restarts = restarts
        self.gateway: Gateway | None = None
        self.fleet: Fleet | None = None
        self.games = asyncio.Semaphore(self.concurrency)
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    @property
    def tcp_address(self) -> str | None:
        return self.gateway.tcp_address if self.gateway is not None else None

    async def start(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="arena-")
        os.chmod(self._tmp.name, 0o711)  # container bots (another uid) reach the socket
        self.gateway = Gateway(
            tcp=self.listen,
            unix=Path(self._tmp.name) / "arena.sock",
            reconnect_grace=self.faults.reconnect_grace,
        )
        try:
            await self.gateway.start()
        except BaseException:
            self._tmp.cleanup()
            raise
        self.fleet = Fleet(
            self.gateway,
            self.faults,
            self.ctx,
            restarts=self.restarts,
            kinds=None if self.isolation == "event" else (Remote,),
        )

    async def preflight(self, bots: Sequence[BotEntry]) -> list[Absence]:
        """Start each of ``bots`` (no built-in policies) and wait for its hello; the ones
        that failed. The event's fleet keeps those it holds (see the module docstring)."""
        from arena.match.preflight import start_all, trial

        assert self.gateway is not None and self.fleet is not None, "start the executor first"
        fleet = self.fleet
        kept = [b for b in bots if fleet.takes(b)]
        others = [b for b in bots if not fleet.takes(b)]
        ctx = RuntimeContext(
            f"{self.ctx.match_id}-preflight", self.ctx.process_limits, self.ctx.container_limits
        )
        found: list[list[Absence]] = [[], []]

        async def keep() -> None:
            found[0] = await start_all(fleet, kept)

        async def check() -> None:
            assert self.gateway is not None
            found[1] = await trial(self.gateway, self.faults, ctx, others) if others else []

        await all_or_none([keep(), check()])
        failed = {a.bot: a for a in found[0] + found[1]}
        return [failed[b.name] for b in bots if b.name in failed]

    async def run(self, spec: MatchSpec, on_game: Callable[[], None] | None = None) -> MatchResult:
        assert self.gateway is not None, "start the executor first"

        def progress(done: int, total: int) -> None:
            if on_game is not None:
                on_game()

        runner = MatchRunner(
            spec, self.gateway, progress, games_semaphore=self.games, fleet=self.fleet
        )
        return await runner.run()

    async def close(self) -> None:
        try:
            if self.fleet is not None:
                await self.fleet.close()
        finally:
            if self.gateway is not None:
                await self.gateway.stop()
            if self._tmp is not None:
                self._tmp.cleanup()
            self.fleet = self.gateway = self._tmp = None

    async def __aenter__(self) -> LocalExecutor:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
