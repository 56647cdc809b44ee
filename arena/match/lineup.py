"""A match's bots: each seat-holder's link, from the event's fleet or the match's own.

Built-in policies play in-process and have no link. Every other bot comes from a
:class:`~arena.match.fleet.Fleet`: the event's (``shared``; its bots stay up across
matches) when it holds the bot, otherwise a fleet of this match's own, started with the
match and stopped at its end. A bot marked absent (it failed the event's pre-flight) is not
started: its link is failed from the start, so its seats forfeit every game (INIT_FAIL).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from arena.bots import Policy
from arena.faults import Absence, FaultKind
from arena.gateway.link import BotLink
from arena.gateway.server import Gateway
from arena.match.fleet import DEFAULT_RESTARTS, Fleet
from arena.match.spec import BotEntry, MatchSpec
from arena.runtime import RuntimeContext


class Lineup:
    """The bots of one match (one per seat index of ``spec.bots``)."""

    def __init__(
        self,
        spec: MatchSpec,
        gateway: Gateway,
        match_id: str,
        shared: Fleet | None = None,
        on_link: Callable[[BotLink], None] | None = None,
        restarts: int = DEFAULT_RESTARTS,
    ) -> None:
        """``shared`` is the event's fleet: its members are used as they are (started once,
        not stopped at the end). ``on_link`` sees each link this match's own fleet makes
        (the compliance check uses it)."""
        self.spec = spec
        self.shared = shared
        ctx = RuntimeContext(match_id, spec.process_limits, spec.container_limits)
        self.own = Fleet(
            gateway,
            spec.faults,
            ctx,
            restarts=restarts,
            record_latency=spec.record_latency,
            on_link=on_link,
        )
        self.links: list[BotLink | None] = [None] * spec.seats
        self.fleets: list[Fleet | None] = [None] * spec.seats

    def _fleet_for(self, entry: BotEntry) -> Fleet:
        shared = self.shared
        return shared if shared is not None and shared.takes(entry) else self.own

    async def start(self) -> None:
        async def join(i: int) -> None:
            entry = self.spec.bots[i]
            if entry.absent is not None:  # never started: a link that nobody can use
                link = BotLink(entry.name, b"", self.spec.faults.reconnect_grace)
                link.fail(FaultKind.INIT_FAIL, entry.absent)
                self.links[i] = link
                return
            fleet = self._fleet_for(entry)
            self.fleets[i] = fleet
            self.links[i] = await fleet.join(entry)

        await asyncio.gather(
            *(join(i) for i, e in enumerate(self.spec.bots) if not isinstance(e.source, Policy))
        )

    def absences(self) -> list[Absence]:
        """The bots that did not start (in seat order): each one's failure, after
        :meth:`start` (bots marked absent beforehand are not listed again)."""
        out = []
        for entry, fleet in zip(self.spec.bots, self.fleets, strict=True):
            found = fleet.absence(entry.name) if fleet is not None else None
            if found is not None:
                out.append(found)
        return out

    async def ready(self) -> None:
        """Before a game: every bot that is being restarted is back (or down for good)."""
        for entry, fleet in zip(self.spec.bots, self.fleets, strict=True):
            if fleet is not None:
                await fleet.ready(entry.name)

    async def stop(self) -> dict[str, str]:
        """Stop this match's own bots; every seat-holder's log by name (for the shared
        fleet's bots: their log so far)."""
        logs = await self.own.close()
        for entry, fleet in zip(self.spec.bots, self.fleets, strict=True):
            if fleet is not None and fleet is self.shared:
                logs[entry.name] = fleet.log_of(entry.name)
        return logs
