"""The match runner: ``run_match(MatchSpec) -> MatchResult``.

It serves the bots through a gateway (its own private Unix socket unless given one),
starts them (:class:`~arena.match.lineup.Lineup`), plays the games
(:class:`~arena.match.referee.Referee`) and returns plain results. It touches no
database, so matches can run in worker processes or on other machines.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena import limits
from arena.faults import Absence, BotGone, Fault, FaultKind
from arena.gateway.link import BotLink
from arena.gateway.server import Gateway
from arena.match.clock import SeatLink
from arena.match.fleet import Fleet
from arena.match.lineup import Lineup
from arena.match.referee import Referee
from arena.match.spec import GameRecord, MatchResult, MatchSpec
from arena.protocol.convert import ruleset_pb
from arena.status import GameStatus
from arena.tasks import all_or_none
from engine import get_ruleset

log = logging.getLogger("arena.match")


class MatchRunner:
    """Runs one MatchSpec. Use :func:`run_match` unless you share a gateway.

    Games are played as a bounded stream: a fixed pool of ``concurrency`` workers takes
    game indices in turn, so no more than that many games exist at once however many are
    asked for. A game also waits for a slot on each of its bots' links, so a bot never has
    more games in flight than its hello's ``max_concurrent_games`` (0 = no limit), even when
    one link serves several matches.
    """

    def __init__(
        self,
        spec: MatchSpec,
        gateway: Gateway | None = None,
        progress: Callable[[int, int], None] | None = None,
        games_semaphore: asyncio.Semaphore | None = None,
        fleet: Fleet | None = None,
        on_link: Callable[[BotLink], None] | None = None,
        preflight: Callable[[list[Absence]], None] | None = None,
    ) -> None:
        """``games_semaphore`` bounds games at once across several matches (tournaments);
        ``fleet`` is the event's fleet, whose bots stay up across matches (the others are
        started for this match and stopped at its end); ``on_link`` sees every link this
        match registers. ``preflight`` hears, once every bot is started and before any
        game, which bots failed to start (an empty list when none did); it may raise
        (``arena.match.preflight.settle``) to stop the match before it plays."""
        limits.check_table_seats(spec.seats, exc=ValueError)
        names = [b.name for b in spec.bots]
        if len(set(names)) != len(names):
            raise ValueError("bot names in a match must be unique")
        self.spec = spec
        self.gateway = gateway
        self.progress = progress
        self.rules = get_ruleset(spec.variant, brutal=spec.brutal, target_score=spec.target_score)
        self.referee = Referee(spec, self.rules, ruleset_pb(self.rules))
        self.match_id = spec.match_id or uuid.uuid4().hex[:12]
        self.done = 0
        self.games_semaphore = games_semaphore
        self.fleet = fleet
        self.on_link = on_link
        self.preflight = preflight
        self.lineup: Lineup | None = None

    @property
    def links(self) -> list[BotLink | None]:
        return self.lineup.links if self.lineup is not None else [None] * self.spec.seats

    async def run(self) -> MatchResult:
        t0 = time.perf_counter()
        own_gateway = self.gateway is None
        tmp: tempfile.TemporaryDirectory[str] | None = None
        if own_gateway:
            tmp = tempfile.TemporaryDirectory(prefix="arena-")
            os.chmod(tmp.name, 0o711)  # container bots (another uid) reach the socket inside
            self.gateway = Gateway(
                tcp=None,
                unix=Path(tmp.name) / "arena.sock",
                reconnect_grace=self.spec.faults.reconnect_grace,
            )
            await self.gateway.start()
        assert self.gateway is not None
        lineup = self.lineup = Lineup(
            self.spec, self.gateway, self.match_id, self.fleet, self.on_link
        )
        try:
            await lineup.start()
            if self.preflight is not None:
                self.preflight(lineup.absences())
            t_ready = time.perf_counter()
            sem = self.games_semaphore or asyncio.Semaphore(max(1, self.spec.concurrency))
            records: list[GameRecord] = []
            wanted = self.spec.indices
            indices = iter(wanted)  # shared: each index goes to one worker

            async def worker() -> None:
                for i in indices:
                    records.append(await self._play_when_free(i, sem))
                    self.done += 1
                    if self.progress is not None:
                        self.progress(self.done, len(wanted))

            n_workers = max(1, min(self.spec.concurrency, len(wanted)))
            await all_or_none([worker() for _ in range(n_workers)])
            records.sort(key=lambda r: r.index)
            play_seconds = time.perf_counter() - t_ready
        finally:
            logs = await lineup.stop()
            if own_gateway:
                await self.gateway.stop()
                if tmp is not None:
                    tmp.cleanup()
        latencies: list[float] = []
        stats: dict[str, dict[str, Any]] = {}
        for entry, link in zip(self.spec.bots, lineup.links, strict=True):
            if link is not None:
                latencies.extend(link.stats.latencies)
                st = link.stats
                stats[entry.name] = {
                    "requests": st.requests,
                    "answers": st.answers,
                    "takes_batches": st.takes_batches,
                    "batches": st.batches,
                    "batched_requests": st.batched_requests,
                    "largest_batch": st.largest_batch,
                }
        return MatchResult(
            self.spec,
            records,
            time.perf_counter() - t0,
            logs,
            latencies,
            play_seconds,
            link_stats=stats,
        )

    async def _play_when_free(self, index: int, sem: asyncio.Semaphore) -> GameRecord:
        """Play game ``index`` once each of its bots' links has a free game slot and the
        arena has room for one more game. Link slots are taken first, in a fixed order, and
        the arena's slot last, so that games waiting for a busy bot hold nothing others need."""
        links = sorted(
            {id(lk): lk for lk in self.links if lk is not None}.values(), key=lambda lk: lk.order
        )
        taken: list[BotLink] = []
        assert self.lineup is not None
        await self.lineup.ready()  # a bot being restarted is back (its games in flight lost)
        try:
            for lk in links:
                await lk.games.acquire()
                taken.append(lk)
            async with sem:
                return await self._play(index)
        finally:
            for lk in taken:
                lk.games.release()

    async def _play(self, index: int) -> GameRecord:
        return await play_game(self.referee, self.match_id, index, self.links)


async def play_game(
    referee: Referee, match_id: str, index: int, links: Sequence[SeatLink | None]
) -> GameRecord:
    """Game ``index`` of the referee's match, its seats' links by bot index: its record,
    void (blaming nobody) when the arena itself failed."""
    spec = referee.spec
    seating = spec.seating(index)
    game_id = f"{match_id}-{index}"
    rec = GameRecord(index, game_id, spec.game_seed(index), [spec.bots[b].name for b in seating])
    try:
        await referee.play(rec, seating, list(links))
    except BotGone as e:  # a link the arena itself could not serve (INFRA)
        log.warning("game %s void: %s", game_id, e.detail)
        rec.status = GameStatus.VOID
        rec.faults.append(Fault(FaultKind.INFRA, None, None, e.detail))
    except Exception as e:  # the arena's own failure: void the game, blame nobody
        log.exception("game %s failed", game_id)
        rec.status = GameStatus.VOID
        rec.faults.append(Fault(FaultKind.INFRA, None, None, f"{type(e).__name__}: {e}"))
    return rec


async def run_match(
    spec: MatchSpec,
    gateway: Gateway | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_link: Callable[[BotLink], None] | None = None,
    preflight: Callable[[list[Absence]], None] | None = None,
) -> MatchResult:
    """Play a match; starts a private Unix-socket gateway unless one is given.
    ``preflight``: see :class:`MatchRunner`."""
    return await MatchRunner(spec, gateway, progress, on_link=on_link, preflight=preflight).run()
