"""The pre-flight: before an event plays its first game, every entrant is started and heard
from, so that a bot that cannot run is named at once instead of forfeiting in silence.

Each entrant that is not a built-in policy joins a :class:`~arena.match.fleet.Fleet`: its
bot is started through its runtime and the pre-flight waits until it has said hello, has
exited, or has not connected within the fault policy's start timeout (remote bots: until
they connect by themselves within it). What failed comes back as an
:class:`~arena.faults.Absence` with its reason (the line of the bot's output that says
why, e.g. ``node: not found``). The executors decide which fleet a bot joins
(``arena.executor``): the event's own when its bots stay up, so the processes that passed
the pre-flight are the ones that play; a fleet of the pre-flight's own, stopped again,
when bots are started per match or in worker processes.

:func:`settle` is the rule: any absence refuses the event (:class:`PreflightFailed`,
one line per bot) unless the operator allowed absent bots; then they are recorded as
absent (``BotEntry.absent``) and forfeit every game. A failure of the arena's own (INFRA)
refuses the event in any case: it is no bot's fault.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from arena import limits
from arena.bots import Remote
from arena.errors import ArenaError
from arena.faults import Absence, FaultPolicy
from arena.gateway.server import Gateway
from arena.match.fleet import Fleet
from arena.match.spec import BotEntry
from arena.runtime import RuntimeContext
from arena.tasks import all_or_none


class PreflightFailed(ArenaError):
    """Entrants did not start: the event was not started (or resumed)."""

    def __init__(self, absences: Sequence[Absence], hint: str = "") -> None:
        self.absences = list(absences)
        self.hint = hint
        super().__init__("; ".join(self.problems))

    @property
    def problems(self) -> list[str]:
        return [f"{a.bot} did not start: {a.reason}" for a in self.absences]


async def start_all(
    fleet: Fleet, bots: Sequence[BotEntry], parallel: int = limits.PREFLIGHT_STARTS
) -> list[Absence]:
    """Join every bot of ``bots`` to ``fleet`` (at most ``parallel`` starting at once;
    remote bots, which only wait for their connection, are not counted) and return those
    that failed, in the order given. Those that started stay in the fleet."""
    slots = asyncio.Semaphore(max(1, parallel))
    found: dict[str, Absence] = {}

    async def one(entry: BotEntry) -> None:
        if isinstance(entry.source, Remote):
            await fleet.join(entry)
        else:
            async with slots:
                await fleet.join(entry)
        absence = fleet.absence(entry.name)
        if absence is not None:
            found[entry.name] = absence

    await all_or_none(one(b) for b in bots)
    return [found[b.name] for b in bots if b.name in found]


async def trial(
    gateway: Gateway, faults: FaultPolicy, ctx: RuntimeContext, bots: Sequence[BotEntry]
) -> list[Absence]:
    """:func:`start_all` in a fleet of its own that is stopped again: for bots that are
    started anew by each match (or by each worker process)."""
    fleet = Fleet(gateway, faults, ctx, restarts=0)
    try:
        return await start_all(fleet, bots)
    finally:
        await fleet.close()


def settle(absences: Sequence[Absence], allow_absent: bool, hint: str = "") -> list[Absence]:
    """The absences the event goes on without, or :class:`PreflightFailed` (with every
    absence, or with the arena's own failures only when absent bots are allowed)."""
    if not allow_absent and absences:
        raise PreflightFailed(absences, hint)
    infra = [a for a in absences if a.blames_the_arena]
    if infra:
        raise PreflightFailed(infra, hint)
    return list(absences)


def mark_absent(bots: Sequence[BotEntry], absences: Sequence[Absence]) -> list[BotEntry]:
    """``bots`` with each absent one marked (``BotEntry.absent``: it is not started)."""
    from dataclasses import replace

    why = {a.bot: a.reason for a in absences}
    return [replace(b, absent=why[b.name]) if b.name in why else b for b in bots]
