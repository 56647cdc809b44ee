"""A ladder run: tables chosen one at a time and played continuously through an executor.

The active bots are each registered bot's latest version (older versions retire, their
games kept; remote bots do not take part). Whenever a table slot is free the matchmaker
(arena.ladder.matchmaker, through arena.ladder.field) chooses the next table from the
current ratings; the table is stored before it is played, and its games land together with
its completion (arena.store.rounds), so a run killed at any moment — Ctrl-C, SIGTERM,
``kill -9`` — loses nothing: the next run replays the tables that were in flight, with
the same seeds, and goes on. After every game the ratings are updated online; the full
Plackett–Luce fit of every ladder game (arena.leaderboard) replaces them periodically. A
bot that crashes too often (arena.ladder.suspension) is suspended until re-enabled; the
bots of a disabled participant (``arena user disable``) sit out until they are enabled.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from arena import limits
from arena.bots import Image, Remote
from arena.errors import ArenaError, UsageProblem
from arena.executor import known_executor, runner_executor
from arena.faults import FaultPolicy
from arena.ladder.field import Field
from arena.ladder.suspension import CrashWindow, crash_of
from arena.leaderboard import ratings
from arena.match import BotEntry, MatchResult, MatchSpec
from arena.names import NAME_MAX
from arena.ratings import GameResult
from arena.registry import source_of
from arena.seeds import DealKey
from arena.status import GameStatus, LadderBotStatus
from arena.store import bots, ladders, participants, rounds, tournaments
from arena.store.db import engine_of, explain
from arena.store.locks import EventLock, EventRunning
from arena.store.models import Entry, Ladder, LadderBot, Match, Tournament, entry_columns
from arena.store.models import entry_source as stored_source
from arena.store.retry import DatabaseUnavailable, Outage, retry_limit
from arena.tournament import game_rows

log = logging.getLogger("arena.ladder")

ROSTER_SECONDS = 1.0  # how often a run looks for new versions and re-enabled bots


@dataclass
class LadderConfig:
    """A ladder's settings, fixed by its first run."""

    variant: str = "base"
    brutal: bool = False
    seats: int = 4
    games: int = 1  # per table
    deadline: float = limits.DEFAULT_DEADLINE
    time_bank: float = limits.DEFAULT_TIME_BANK
    max_strikes: int = limits.DEFAULT_MAX_STRIKES
    isolation: str = "event"
    container: dict[str, Any] = field(default_factory=dict)
    process: dict[str, Any] = field(default_factory=dict)


@dataclass
class Progress:
    games: int = 0  # played in this run
    stored: int = 0  # on the ladder, all runs
    active: int = 0
    refits: int = 0
    note: str = ""


@dataclass
class Outcome:
    ladder: Ladder
    games: int  # played in this run
    seconds: float
    suspended: list[tuple[str, str]]  # (entry, reason) suspended in this run
    admitted: list[str]  # entries that entered in this run


def entry_name(bot: str, version: int) -> str:
    """A bot version's name on a ladder: ``NAME@vN``."""
    suffix = f"@v{version}"
    return bot[: NAME_MAX - len(suffix)] + suffix


def open_ladder(db: str | Engine | None, cfg: LadderConfig) -> Ladder:
    """The ladder of ``cfg``'s variant, Brutal mode and table size, created if new."""
    limits.check_count(cfg.seats, "--seats", limits.MIN_EVENT_SEATS, limits.MAX_TABLE_SEATS)
    limits.check_games(cfg.games)
    limits.check_deadline(cfg.deadline)
    limits.check_time_bank(cfg.time_bank)
    limits.check_strikes(cfg.max_strikes)
    eng = engine_of(db)
    found = ladders.find(eng, cfg.variant, cfg.brutal, cfg.seats)
    if found is not None:
        return found
    t = Tournament(
        name=f"ladder {cfg.variant}{' brutal' if cfg.brutal else ''} {cfg.seats} seats",
        format=limits.LADDER_FORMAT,
        variant=cfg.variant,
        brutal=cfg.brutal,
        seats=cfg.seats,
        rounds=0,
        games_per_match=cfg.games,
        secret=DealKey.fresh().hex(),
        options={
            "deadline": cfg.deadline,
            "time_bank": cfg.time_bank,
            "max_strikes": cfg.max_strikes,
            "container": cfg.container,
            "process": cfg.process,
            "isolation": cfg.isolation,
        },
    )
    return ladders.create(
        eng, t, Ladder(tournament_id=0, variant=cfg.variant, brutal=cfg.brutal, seats=cfg.seats)
    )


def sync_roster(eng: Engine, ladder: Ladder) -> list[str]:
    """Admit every registered bot's latest version that is not on the ladder yet (its
    older versions retire) and retire the versions of removed bots; returns the names of
    the entries admitted."""
    rows = ladders.bots(eng, ladder.id or 0)
    have = {lb.bot_version_id for lb, _ in rows}
    registered = [(b, v) for b, v in bots.registered(eng) if v is not None]
    admitted = []
    for bot, version in registered:
        if bot.runtime == Remote.kind or version.id in have:
            continue
        assert bot.id is not None and version.id is not None
        name = entry_name(bot.name, version.version)
        entry = Entry(
            tournament_id=0,
            name=name,
            bot_version_id=version.id,
            **entry_columns(source_of(bot, version)),
        )
        row = LadderBot(
            ladder_id=0,
            entry_id=0,
            bot_id=bot.id,
            bot_version_id=version.id,
            version=version.version,
        )
        ladders.admit(eng, ladder, entry, row)
        admitted.append(name)
    present = {bot.id for bot, _ in registered}
    for lb, _ in rows:
        if lb.status != LadderBotStatus.RETIRED and lb.bot_id not in present:
            ladders.set_status(eng, lb.id, LadderBotStatus.RETIRED, "removed from the registry")
    return admitted


class LadderRunner:
    def __init__(
        self,
        db: str | Engine | None,
        ladder: Ladder,
        *,
        concurrency: int = 16,
        workers: int = 1,
        max_games: int | None = None,
        progress: Callable[[Progress], None] | None = None,
        warn: Callable[[str], None] | None = None,
        db_retry: float | None = None,
        seed: int | None = None,
        executor: str = "local",
        address: str | None = None,
    ) -> None:
        """``concurrency``: games at once over all tables; ``max_games``: stop once this
        run has played that many (None: until stopped); ``seed``: the matchmaker's draws
        (None: fresh). ``executor``: where tables run (a name in arena.executor.EXECUTORS,
        else a ValueError), locally over ``workers`` worker processes (1: this process)
        or on Ray; ``address``: the Ray cluster's, for ``"ray"`` (None: RAY_ADDRESS, else
        a Ray instance of this machine)."""
        self.eng = engine_of(db)
        self.ladder = ladder
        self.concurrency = max(1, concurrency)
        self.workers = max(1, workers)
        self.executor_kind = known_executor(executor)
        self.address = address
        self.max_games = max_games
        self.progress = progress
        self.warn = warn or log.warning
        self.db_retry = retry_limit(db_retry)
        self.rng = random.Random(seed)
        self.state = Progress()
        self.field = Field(ladder.seats)
        self.rows: dict[str, tuple[LadderBot, Entry]] = {}
        self.windows: dict[str, CrashWindow] = {}
        self.benched: set[int] = set()  # bots of disabled participants: they sit out
        self.suspended: list[tuple[str, str]] = []
        self.admitted: list[str] = []
        self.lock: EventLock | None = None
        self.outage = Outage(self.eng, self.db_retry, self.warn, "ladder", lambda: self.lock)
        self.executor: Any = None
        self.planned_games = 0
        self.last_roster = 0.0
        self.last_refit = 0.0

    # ------------------------------------------------------------------ plumbing
    def _emit(self) -> None:
        if self.progress is not None:
            self.progress(self.state)

    async def _db(self, step: Callable[..., Any], *args: Any) -> Any:
        """One database step, retried through a short outage (``db_retry`` seconds)."""
        return await self.outage.step(step, *args)

    # ------------------------------------------------------------------ the run
    async def run(self) -> Outcome:
        hint = "the ladder stopped; run it again to continue"
        try:
            with EventLock(self.eng, self.ladder.tournament_id) as lock:
                self.lock = lock
                return await self._run()
        except EventRunning:
            raise ArenaError(
                f"the {self.ladder.variant} ladder of {self.ladder.seats} seats is already "
                "running in another process"
            ) from None
        except SQLAlchemyError as e:
            raise ArenaError(f"{explain(e)}; {hint}") from None
        except DatabaseUnavailable as e:
            raise DatabaseUnavailable(f"{e}; {hint}") from None
        finally:
            self.lock = None

    async def _run(self) -> Outcome:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        found = await self._db(tournaments.get, self.eng, self.ladder.tournament_id)
        if found is None:
            raise ArenaError(f"ladder {self.ladder.id} has lost its tournament row")
        t: Tournament = found[0]
        self.admitted = await self._db(sync_roster, self.eng, self.ladder)
        await self._db(self._load_roster)
        following, replays = await self._db(self._rebuild)
        await self._refit()
        faults = FaultPolicy(
            deadline=float(t.options.get("deadline", limits.DEFAULT_DEADLINE)),
            time_bank=float(t.options.get("time_bank", limits.DEFAULT_TIME_BANK)),
            max_strikes=int(t.options.get("max_strikes", limits.DEFAULT_MAX_STRIKES)),
        )
        executor, process_limits, container_limits = await runner_executor(
            t.options,
            images=any(isinstance(stored_source(e), Image) for _, e in self.rows.values()),
            workers=self.workers,
            kind=self.executor_kind,
            address=self.address,
            faults=faults,
            concurrency=self.concurrency,
            event_id=f"l{self.ladder.id}",
        )
        slots = max(1, self.concurrency // max(1, min(t.games_per_match, 4)))
        running: dict[asyncio.Task[MatchResult], Match] = {}
        self.field.tables = following
        try:
            async with executor:
                self.executor = executor
                while True:
                    while len(running) < slots and not self._enough():
                        if replays:
                            _, m = replays.pop(0)
                        else:
                            m = await self._db(
                                self._plan, t, {n for x in running.values() for n in x.seats}
                            )
                            if m is None:
                                break
                        self.planned_games += m.games
                        running[
                            asyncio.create_task(
                                self._play(t, m, faults, process_limits, container_limits)
                            )
                        ] = m
                    if not running:
                        if self._enough():
                            break
                        self.state.note = (
                            f"waiting for {self.ladder.seats} active bots "
                            f"({self.state.active} now): register or re-enable bots"
                        )
                        self._emit()
                        await asyncio.sleep(ROSTER_SECONDS)
                        await self._roster(force=True)
                        continue
                    done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                    for task in done:
                        m = running.pop(task)
                        result = task.result()
                        await self._db(self._store, t, m, result)
                    if self.field.refit_due() or (
                        self.field.since_refit
                        and time.monotonic() - self.last_refit > limits.LADDER_REFIT_SECONDS
                    ):
                        await self._refit()
                    await self._roster()
        finally:
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
            self.executor = None
        return Outcome(
            self.ladder, self.state.games, loop.time() - t0, self.suspended, self.admitted
        )

    def _enough(self) -> bool:
        return self.max_games is not None and self.planned_games >= self.max_games

    # ------------------------------------------------------------------ state
    def _load_roster(self) -> None:
        """The ladder's rows by entry name; a re-enabled bot's crash window starts afresh.
        The bots of a disabled participant sit out (until the participant is enabled)."""
        rows = ladders.bots(self.eng, self.ladder.id or 0)
        self.benched = participants.disabled_bot_ids(self.eng)
        for lb, e in rows:
            before = self.rows.get(e.name)
            if before is not None and before[0].crashes_after != lb.crashes_after:
                self.windows[e.name] = CrashWindow()
            self.rows[e.name] = (lb, e)
        self.state.active = len(self.active())

    def active(self) -> list[str]:
        return [
            n
            for n, (lb, _) in self.rows.items()
            if lb.status == LadderBotStatus.ACTIVE and lb.bot_id not in self.benched
        ]

    async def _roster(self, force: bool = False) -> None:
        if not force and time.monotonic() - self.last_roster < ROSTER_SECONDS:
            return
        self.last_roster = time.monotonic()
        self.admitted += await self._db(sync_roster, self.eng, self.ladder)
        await self._db(self._load_roster)

    def _rebuild(self) -> tuple[int, list[tuple[int, Match]]]:
        """The field and crash windows from the stored games; the next table's number
        and the tables to replay."""
        tid = self.ladder.tournament_id
        for p in ladders.history(self.eng, tid):
            self.field.record(
                GameResult(tuple(p.seating), tuple(p.ranks)),
                completed=p.status == GameStatus.COMPLETED,
                online=False,
            )
            for seat in p.seating:
                self.field.last_table[seat] = p.table
            self._crashes(p.game_id, p.seating, p.faults)
        self.state.stored = self.field.total_games
        return ladders.tables(self.eng, tid)

    def _crashes(self, game_id: int, seating: list[str], faults: list[dict[str, Any]]) -> None:
        for name in seating:
            row = self.rows.get(name)
            if row is None or game_id <= row[0].crashes_after:
                continue
            window = self.windows.setdefault(name, CrashWindow())
            window.add(crash_of(name, faults))

    async def _refit(self) -> None:
        """The full fit of every ladder game replaces the online ratings."""
        board = await asyncio.to_thread(
            ratings,
            self.eng,
            variant=self.ladder.variant,
            brutal=self.ladder.brutal,
            tournament=self.ladder.tournament_id,
        )
        self.field.refit(board.fit)
        self.last_refit = time.monotonic()
        self.state.refits += 1
        self._emit()

    def _plan(self, t: Tournament, busy: set[str]) -> Match | None:
        """Choose and store the next table; None if too few bots are active."""
        active = self.active()
        if len(active) < self.ladder.seats:
            return None
        number = self.field.tables
        seating = self.field.choose(active, self.rng, busy=busy)
        seed = t.deal_key().seed("ladder", number)
        return ladders.plan(self.eng, t.id or 0, number, list(seating), seed, t.games_per_match)

    async def _play(
        self,
        t: Tournament,
        m: Match,
        faults: FaultPolicy,
        process_limits: Any,
        container_limits: Any,
    ) -> MatchResult:
        seats = [BotEntry(name, stored_source(self.rows[name][1])) for name in m.seats]
        spec = MatchSpec(
            bots=seats,
            games=m.games,
            seed=m.seed,
            variant=t.variant,
            brutal=t.brutal,
            concurrency=self.concurrency,
            faults=faults,
            match_id=f"l{self.ladder.id}-m{m.id}",
            container_limits=container_limits,
            process_limits=process_limits,
        )
        await self._db(rounds.start_match, self.eng, m.id)
        assert self.executor is not None
        result: MatchResult = await self.executor.run(spec, None)
        return result

    def _store(self, t: Tournament, m: Match, result: MatchResult) -> None:
        """The table's games and its completion (one transaction), then what they teach:
        online ratings, crash windows, suspensions."""
        if not rounds.match_completed(self.eng, m.id):
            rows = game_rows(t, m, result)
            rounds.complete_match(self.eng, m.id, rows)
        else:  # an attempt whose answer was lost to an outage stored it
            rows = []
        for g, row in zip(result.games, rows, strict=False):
            self.field.record(
                GameResult(tuple(g.seating), tuple(g.ranks)),
                completed=g.status == GameStatus.COMPLETED,
            )
            self._crashes(row.id or 0, g.seating, row.faults)
            self.state.games += 1
            self.state.stored += 1
        for name in dict.fromkeys(m.seats):
            window = self.windows.get(name)
            reason = window.reason() if window is not None else None
            lb = self.rows[name][0]
            if reason is not None and lb.status == LadderBotStatus.ACTIVE:
                ladders.set_status(self.eng, lb.id, LadderBotStatus.SUSPENDED, reason)
                lb.status = LadderBotStatus.SUSPENDED
                self.suspended.append((name, reason))
                self.warn(f"{name} is suspended: {reason}")
        self.state.active = len(self.active())
        self._emit()


def enable(db: str | Engine | None, bot: str) -> list[Ladder]:
    """Re-enable a registered bot's suspended versions on every ladder; its crashes count
    afresh from now. Returns the ladders where it was suspended."""
    eng = engine_of(db)
    found = bots.latest(eng, bot)
    if found is None:
        raise UsageProblem(f"no bot named {bot!r} (see 'arena bot list')")
    out = []
    for ladder in ladders.every(eng):
        for lb, _ in ladders.bots(eng, ladder.id or 0):
            if lb.bot_id == found[0].id and lb.status == LadderBotStatus.SUSPENDED:
                ladders.set_status(
                    eng,
                    lb.id,
                    LadderBotStatus.ACTIVE,
                    "re-enabled",
                    crashes_after=ladders.last_game_id(eng, ladder.tournament_id),
                )
                out.append(ladder)
    return out


__all__ = [
    "LadderConfig",
    "LadderRunner",
    "Outcome",
    "Progress",
    "enable",
    "entry_name",
    "open_ladder",
    "sync_roster",
]
