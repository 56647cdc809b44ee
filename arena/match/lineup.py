"""A match's bots from start to stop: register each with the gateway, start it through
its runtime (``arena.runtime``), wait until it connects, and stop it at the end.

A bot that cannot be started, exits before it connects or does not connect in time fails
its link (INIT_FAIL; CRASH if it had connected): its seats forfeit. When the arena itself
has run out of file descriptors the failure is INFRA instead (the game is void, nobody is
blamed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from arena import descriptors
from arena.bots import Policy, Remote
from arena.faults import FaultKind
from arena.gateway.link import BotLink
from arena.gateway.server import Gateway
from arena.match.spec import MatchSpec
from arena.runtime import BotRuntime, RuntimeContext, make_runtime, prepare


class Lineup:
    """The bots of one match (one per seat index of ``spec.bots``)."""

    def __init__(
        self,
        spec: MatchSpec,
        gateway: Gateway,
        match_id: str,
        shared_links: dict[str, BotLink] | None = None,
        on_link: Callable[[BotLink], None] | None = None,
    ) -> None:
        """``shared_links`` are links (by bot name) that live longer than this match, e.g.
        remote bots in a tournament: used as they are, not started, not closed at the end.
        ``on_link`` sees each link this match registers (the compliance check uses it)."""
        self.spec = spec
        self.gateway = gateway
        self.shared = shared_links or {}
        self.on_link = on_link
        self.ctx = RuntimeContext(match_id, spec.process_limits, spec.container_limits)
        self.links: list[BotLink | None] = [None] * spec.seats
        self.runtimes: list[BotRuntime | None] = [None] * spec.seats

    async def start(self) -> None:
        gw = self.gateway
        await prepare([e.source for e in self.spec.bots if e.name not in self.shared])
        starts = []
        for i, entry in enumerate(self.spec.bots):
            if isinstance(entry.source, Policy):
                continue
            shared = self.shared.get(entry.name)
            if shared is not None:
                self.links[i] = shared
                if not shared.connected.is_set():
                    starts.append(self._await(shared, None, "remote bot"))
                continue
            src = entry.source
            if isinstance(src, Remote) and entry.token is None and src.token_hash:
                # a registered remote bot: the arena knows only its token's hash
                token = ""
                link = gw.register_digest(
                    entry.name, bytes.fromhex(src.token_hash), persistent=False
                )
            else:
                token, link = gw.register(entry.name, entry.token)
            link.record_latency = self.spec.record_latency
            link.reconnect_grace = self.spec.faults.reconnect_grace  # a shared gateway too
            if self.on_link is not None:
                self.on_link(link)
            self.links[i] = link
            runtime = make_runtime(entry.name, entry.source, self.ctx)
            self.runtimes[i] = runtime
            who = "remote bot" if isinstance(entry.source, Remote) else "bot"
            starts.append(self._start(runtime, link, token, who))
        await asyncio.gather(*starts)

    async def _start(self, runtime: BotRuntime, link: BotLink, token: str, who: str) -> None:
        gone = asyncio.Event()  # it exited: no point waiting for it to connect

        def exited(rt: BotRuntime, code: int) -> None:
            link.fail(
                FaultKind.CRASH if link.ever_connected else FaultKind.INIT_FAIL,
                f"bot {rt.describe_exit()}",
            )
            gone.set()

        try:
            await runtime.start(self.gateway.address, token, on_exit=exited)
        except OSError as e:
            if descriptors.is_exhaustion(e) or descriptors.short():  # the arena's own shortage
                link.fail(FaultKind.INFRA, f"the arena ran out of file descriptors: {e}")
            else:
                link.fail(FaultKind.INIT_FAIL, str(e))
            return
        await self._await(link, gone, who)
        if link.gone is not None and not link.ever_connected:
            # it exited or never said hello: make sure it is gone
            await runtime.stop(0.5)

    async def _await(self, link: BotLink, gone: asyncio.Event | None, who: str) -> None:
        """Wait for ``link`` to connect, for its bot to exit, or for the start timeout."""
        timeout = self.spec.faults.start_timeout
        waiters = {asyncio.create_task(link.connected.wait())}
        if gone is not None:
            waiters.add(asyncio.create_task(gone.wait()))
        try:
            done, _ = await asyncio.wait(
                waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for w in waiters:
                w.cancel()
        if done:
            return
        detail = f"{who} did not connect within {timeout:g} s"
        if descriptors.short():  # it may never have been able to get in
            link.fail(FaultKind.INFRA, f"{detail}: the arena was out of file descriptors")
        else:
            link.fail(FaultKind.INIT_FAIL, detail)

    async def stop(self) -> dict[str, str]:
        """Close this match's links, stop every bot it started; their logs by name."""
        gw = self.gateway
        for link in self.links:
            if link is not None and not link.persistent:
                gw.unregister(link)
        stops = [rt.stop() for rt in self.runtimes if rt is not None]
        await asyncio.gather(*stops, return_exceptions=True)
        return {
            entry.name: rt.log.text()
            for entry, rt in zip(self.spec.bots, self.runtimes, strict=True)
            if rt is not None
        }
