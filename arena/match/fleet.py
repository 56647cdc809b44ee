"""A fleet: bots started once and kept up for many games (a match, or a whole event).

Each member is registered with the gateway under one persistent link and started through
its runtime (``arena.runtime``); it then serves every game it is seated at over that one
stream, many at once. A member that exits is restarted with the same token (up to
``restarts`` times): only its games in flight get the fault (CRASH), games that had not
started wait for it to be back. Past the limit it is down for good and forfeits the rest.

A bot that cannot be started, exits before it connects or does not connect in time fails
its link (INIT_FAIL), with the line of its output that says why ("node: not found"). When
the arena itself has run out of file descriptors the failure is INFRA instead (the game is
void, nobody is blamed). An event's pre-flight (``arena.match.preflight``) is a fleet's
``join`` of every entrant before the first game.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from arena import descriptors
from arena.bots import Remote
from arena.faults import Absence, FaultKind, FaultPolicy, telling_line
from arena.gateway.link import BotLink
from arena.gateway.server import Gateway
from arena.match.spec import BotEntry
from arena.runtime import BotRuntime, RuntimeContext, make_runtime, prepare
from arena.runtime.logs import HeadTailLog

log = logging.getLogger("arena.fleet")

DEFAULT_RESTARTS = 3  # restarts of a bot that crashed, per event, before it forfeits the rest
PAST_LOG_CAP = 256 * 1024  # output kept (head and tail) of a member's earlier, crashed runs


@dataclass
class _Member:
    entry: BotEntry
    link: BotLink
    token: str
    runtime: BotRuntime | None = None
    restarts: int = 0
    down: str | None = None  # why it is down for good
    crashed: str | None = None  # how it ended, until it is restarted
    starting: asyncio.Task[None] | None = None
    past: HeadTailLog = field(default_factory=lambda: HeadTailLog(PAST_LOG_CAP))  # earlier runs


class Fleet:
    """The started bots of a match or an event (see the module docstring)."""

    def __init__(
        self,
        gateway: Gateway,
        faults: FaultPolicy,
        ctx: RuntimeContext,
        *,
        restarts: int = DEFAULT_RESTARTS,
        record_latency: bool = False,
        on_link: Callable[[BotLink], None] | None = None,
        kinds: tuple[type, ...] | None = None,
    ) -> None:
        """``kinds`` limits the fleet to bots of these source types (e.g. only the remote
        bots of an event whose other bots start with each match); None: every kind."""
        self.kinds = kinds
        self.gateway = gateway
        self.faults = faults
        self.ctx = ctx
        self.restarts = restarts
        self.record_latency = record_latency
        self.on_link = on_link
        self.members: dict[str, _Member] = {}
        self.closing = False
        self._prepared: dict[type, asyncio.Future[None]] = {}

    def __contains__(self, name: str) -> bool:
        return name in self.members

    def takes(self, entry: BotEntry) -> bool:
        """Does this fleet run ``entry`` (rather than the match starting it itself)?"""
        return self.kinds is None or isinstance(entry.source, self.kinds)

    def link(self, name: str) -> BotLink:
        return self.members[name].link

    def absence(self, name: str) -> Absence | None:
        """Why member ``name`` is down for good (None while it is up or restartable)."""
        m = self.members.get(name)
        if m is None or m.down is None:
            return None
        kind = m.link.gone.kind if m.link.gone is not None else FaultKind.INIT_FAIL
        return Absence(name, m.down, kind)

    # ------------------------------------------------------------ start
    async def join(self, entry: BotEntry) -> BotLink:
        """``entry``'s link, its bot started (the first time) and connected, exited or
        timed out; a failure is recorded on the link (its seats will forfeit)."""
        kind = type(entry.source)
        if kind not in self._prepared:  # once per runtime, and every start waits for it
            self._prepared[kind] = asyncio.ensure_future(prepare([entry.source]))
        await asyncio.shield(self._prepared[kind])
        m = self.members.get(entry.name)
        if m is None:
            m = self._register(entry)
            m.starting = asyncio.ensure_future(self._start(m))
        assert m.starting is not None
        await asyncio.shield(m.starting)
        return m.link

    def _register(self, entry: BotEntry) -> _Member:
        gw = self.gateway
        src = entry.source
        if isinstance(src, Remote) and entry.token is None and src.token_hash:
            # a registered remote bot: the arena knows only its token's hash
            token = ""
            link = gw.register_digest(entry.name, bytes.fromhex(src.token_hash))
        else:
            token, link = gw.register(entry.name, entry.token)
        link.persistent = True  # one stream for all the games: it may reconnect after a loss
        link.record_latency = self.record_latency
        link.reconnect_grace = self.faults.reconnect_grace
        if self.on_link is not None:
            self.on_link(link)
        m = _Member(entry, link, token)
        self.members[entry.name] = m
        return m

    async def _start(self, m: _Member) -> None:
        who = "remote bot" if isinstance(m.entry.source, Remote) else "bot"
        runtime = make_runtime(m.entry.name, m.entry.source, self.ctx)
        m.runtime = runtime
        gone = asyncio.Event()  # it exited: no point waiting for it to connect

        def exited(rt: BotRuntime, code: int) -> None:
            gone.set()
            if self.closing or m.runtime is not rt or not m.link.ever_connected:
                return  # one that never connected: _start says why, with what it wrote
            self._lost(m, rt)

        try:
            await runtime.start(self.gateway.address, m.token, on_exit=exited)
        except OSError as e:
            if descriptors.is_exhaustion(e) or descriptors.short():  # the arena's own shortage
                self._down(m, FaultKind.INFRA, f"the arena ran out of file descriptors: {e}")
            else:
                self._down(m, FaultKind.INIT_FAIL, str(e))
            return
        if await self._connects(m.link, gone):
            return
        if gone.is_set() and m.link.ever_connected:
            return  # a restarted bot that ended again before it was back: see _lost
        await runtime.stop(0.5)  # it never said hello: make sure it is gone, read its output
        said = telling_line(runtime.log.text())
        if gone.is_set():
            detail = f"{who} {runtime.describe_exit()} before it connected"
            self._down(m, FaultKind.INIT_FAIL, f"{detail}: {said}" if said else detail)
            return
        detail = f"{who} did not connect within {self.faults.start_timeout:g} s"
        if descriptors.short():  # it may never have been able to get in
            self._down(m, FaultKind.INFRA, f"{detail}: the arena was out of file descriptors")
        else:
            self._down(m, FaultKind.INIT_FAIL, f"{detail}; it wrote: {said}" if said else detail)

    async def _connects(self, link: BotLink, gone: asyncio.Event) -> bool:
        """Wait for the member to connect (True), for its bot to exit or for the start
        timeout (False)."""
        hello = asyncio.ensure_future(link.connected.wait())
        waiters = {hello, asyncio.ensure_future(gone.wait())}
        try:
            done, _ = await asyncio.wait(
                waiters, timeout=self.faults.start_timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for w in waiters:
                w.cancel()
        return hello in done or link.connected.is_set()

    # ------------------------------------------------------------ faults and restarts
    def _down(self, m: _Member, kind: FaultKind, detail: str) -> None:
        """The member cannot play (now and for the rest of this fleet's games)."""
        m.down = detail
        m.link.fail(kind, detail)
        m.link.persistent = False  # a later stream with its token is refused

    def _lost(self, m: _Member, rt: BotRuntime) -> None:
        """The member's bot exited while it was playing: its games in flight get the fault;
        it is restarted if it has restarts left."""
        how = f"bot {rt.describe_exit()}"
        kind = FaultKind.CRASH if m.link.ever_connected else FaultKind.INIT_FAIL
        if m.restarts >= self.restarts or not m.link.ever_connected or not m.link.persistent:
            # out of restarts, never connected, or cut off by the gateway (a flood)
            why = how if not m.restarts else f"{how}; restarted {m.restarts} time(s), no more"
            self._down(m, kind, why)
            return
        m.link.fail(kind, how)  # fails its requests in flight, at once
        m.crashed = how  # restarted when a game next needs it (see ready)

    async def ready(self, name: str) -> None:
        """Before a game that seats member ``name``: a crashed bot is restarted (it has
        restarts left, see _lost) and the game waits until it is back, or down."""
        m = self.members[name]
        if m.down is not None:
            return
        if m.crashed is not None and (m.starting is None or m.starting.done()):
            m.restarts += 1
            log.warning(
                "%s: %s; restarting it (%d of %d)",
                m.entry.name,
                m.crashed,
                m.restarts,
                self.restarts,
            )
            if m.runtime is not None:  # keep what the crashed run wrote
                m.past.write(m.runtime.log.text().encode())
            m.past.write(f"\n[the arena restarted the bot after: {m.crashed}]\n".encode())
            m.crashed = None
            m.starting = asyncio.ensure_future(self._start(m))
        if m.starting is not None:
            await asyncio.shield(m.starting)

    # ------------------------------------------------------------ logs and stop
    def log_of(self, name: str) -> str:
        m = self.members[name]
        now = m.runtime.log.text() if m.runtime is not None else ""
        if not m.past.size:
            return now
        return m.past.text() + now

    def logs(self) -> dict[str, str]:
        return {name: self.log_of(name) for name in self.members}

    async def close(self) -> dict[str, str]:
        """Stop every member's bot; their logs by name."""
        self.closing = True
        for m in self.members.values():
            if m.starting is not None and not m.starting.done():
                m.starting.cancel()
        for m in self.members.values():
            self.gateway.unregister(m.link)
        stops = [m.runtime.stop() for m in self.members.values() if m.runtime is not None]
        await asyncio.gather(*stops, return_exceptions=True)
        await asyncio.gather(
            *(m.starting for m in self.members.values() if m.starting is not None),
            return_exceptions=True,
        )
        return self.logs()
