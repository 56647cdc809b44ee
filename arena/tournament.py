"""Tournaments: plan rounds, run their matches, store every game, resume after a crash.

Data flows one way: scheduler (plans a round from stored standings) → match runner (plays
a table, no database) → store (a match's games are written together with the match's
completion, in one transaction) → standings and ratings. Because a match's games land
atomically, a run killed at any moment resumes with no completed game lost or counted
twice; a match that was running is replayed from its start with the same seeds.

Before its first game, a run (a new event or a resumed one) holds a pre-flight
(``arena.match.preflight``): every entrant that is not a built-in policy is started
through the executor and must say hello (remote bots: connect) within the start timeout.
If one fails, the run stops before it plays anything and the event stays resumable —
unless absent bots are allowed: then they are not started again and forfeit every game
of the run, and those games do not count for their ratings (``Fault.absent``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from arena import limits
from arena.bots import BotSource, Image, Remote, is_builtin
from arena.errors import ArenaError, UsageProblem
from arena.executor import runner_executor
from arena.faults import Absence, FaultLine, FaultPolicy, summarize
from arena.leaderboard import Board, ratings, winner_los
from arena.match import BotEntry, MatchResult, MatchSpec
from arena.seeds import DealKey
from arena.standings import GameRow, StandingRow, bye_credits, compute_standings
from arena.status import MatchStatus, TournamentStatus
from arena.store import bots, games, rounds, tournaments
from arena.store.db import engine_of, explain
from arena.store.locks import EventLock
from arena.store.models import (
    Entry,
    Game,
    Match,
    Round,
    Tournament,
    entry_columns,
    entry_source,
)
from arena.store.retry import DatabaseUnavailable, Outage, retry_limit
from arena.tasks import all_or_none
from arena.winner_odds import WinnerOdds, winner_odds

log = logging.getLogger("arena.tournament")

FORMATS = limits.FORMATS


@dataclass
class EntrySpec:
    """An entrant: its name in the event and where it runs from (a remote entry must be a
    registered bot: its version holds the token hash)."""

    name: str
    source: BotSource
    challenger: bool = False
    bot_version_id: int | None = None

    @property
    def remote(self) -> bool:
        return isinstance(self.source, Remote)


@dataclass
class TournamentConfig:
    format: str
    entries: list[EntrySpec]
    seats: int = 4
    rounds: int | None = None
    games: int = 4  # per match (table)
    concurrency: int = 16  # games at once, over all tables
    variant: str = "base"
    brutal: bool = False
    # None: a fresh secret deal key (nobody can predict a card); a number: a reproducible
    # event (same seed, same games) whose deals anyone who knows the seed can predict
    seed: int | None = None
    name: str = ""
    deadline: float = limits.DEFAULT_DEADLINE
    time_bank: float = limits.DEFAULT_TIME_BANK
    max_strikes: int = limits.DEFAULT_MAX_STRIKES
    # seconds for each entrant to start and say hello (remote bots: to connect), in the
    # pre-flight and whenever a bot is started again
    start_timeout: float = limits.DEFAULT_START_TIMEOUT
    container: dict[str, Any] = field(default_factory=dict)  # ContainerLimits overrides
    process: dict[str, Any] = field(default_factory=dict)  # ProcessLimits overrides
    # "event": every bot is started once and stays up for all its matches (restarted if
    # it crashes); "match": bots start and stop with each match (remote bots stay up)
    isolation: str = "event"
    # duplicate deals: a table's games come in sets of one game per rotation of its seats
    # that share one deal (--games a multiple of --seats)
    duplicate: bool = False


@dataclass
class Progress:
    """What a progress display needs: games done / expected, and the current round."""

    round: int = 0
    rounds: int = 0
    games_done: int = 0
    games_total: int = 0
    note: str = ""


@dataclass
class Outcome:
    tournament: Tournament
    standings: list[StandingRow]
    games_played: int = 0  # in this run (a resumed run counts only its own)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    ratings: Board | None = None  # the fit of the event's games (standings' Elo)
    faults: list[FaultLine] = field(default_factory=list)  # of all the event's games
    games: int = 0  # stored games of the event (all runs)
    absent: list[Absence] = field(default_factory=list)  # allowed absences of this run
    challengers: list[str] = field(default_factory=list)  # of a gauntlet

    def winner_los(self) -> tuple[str, str, float] | None:
        """(winner, runner-up, likelihood that the winner is the stronger of the two),
        from the event's fitted ratings; None unless both have rated games."""
        return None if self.ratings is None else winner_los(self.standings, self.ratings)

    def winner_odds(self) -> WinnerOdds | None:
        """How often an event of this length names the strongest bot its winner, if the
        fitted ratings were the bots' true strengths (arena.winner_odds: a simulation of
        a second or so, computed when asked); None without two rated bots."""
        if self.ratings is None:
            return None
        t = self.tournament
        return winner_odds(
            t.format,
            [r.bot for r in self.standings],
            t.seats,
            t.rounds,
            t.games_per_match,
            self.ratings.ratings,
            challengers=self.challengers,
            seed=t.deal_key().seed("winner odds"),
        )


def _scheduler(t: Tournament, entries: list[Entry]) -> Any:
    from arena.schedule import make_scheduler

    names = [e.name for e in entries]
    challengers = [e.name for e in entries if e.challenger] or None
    return make_scheduler(
        t.format,
        names,
        t.seats,
        rounds=t.rounds or None,
        challengers=challengers,
        seed=t.deal_key().seed("schedule"),
    )


Option = Callable[[str], str]  # how a caller names a setting (a TournamentConfig field)

# the fields whose option is not the field's name
_CLI_NAMES = {"entries": "--bots", "challengers": "--challenger"}


def cli_option(field: str) -> str:
    """How ``arena tournament`` names a setting: ``time_bank`` → ``--time-bank``."""
    return _CLI_NAMES.get(field) or "--" + field.replace("_", "-")


def api_option(field: str) -> str:
    """How the server's API (POST /api/tournaments) names a setting: its JSON field."""
    return {"entries": "bots"}.get(field, field)


def check_settings(cfg: TournamentConfig, option: Option = api_option) -> None:
    """Every setting of a new event but its entries, checked one way for every caller —
    the CLI (``option``: cli_option), the server's API and the Python API (api_option) —
    so that none accepts what another refuses: the format, the bounds of arena.limits
    (seats, rounds, games, concurrency, times, strikes), the rules, the event's name, the
    isolation, the bots' resource limits and the seed. Raises UsageProblem naming the
    setting; reads and stores nothing."""
    from arena.executor import ISOLATIONS
    from arena.names import check_event_name
    from arena.seeds import MAX_SEED
    from engine import RULESETS

    if cfg.format not in FORMATS:
        raise UsageProblem(
            f"unknown format {cfg.format!r} (choose from {', '.join(FORMATS)})",
            param=option("format"),
        )
    limits.check_count(cfg.seats, option("seats"), limits.MIN_EVENT_SEATS, limits.MAX_TABLE_SEATS)
    limits.check_rounds(cfg.rounds, option("rounds"))
    limits.check_count(cfg.games, option("games"), 1, limits.MAX_MATCH_GAMES)
    limits.check_concurrency(cfg.concurrency, option("concurrency"))
    if not isinstance(cfg.variant, str) or cfg.variant not in RULESETS:
        raise UsageProblem(
            f"unknown variant {cfg.variant!r} (choose from {', '.join(RULESETS)})",
            param=option("variant"),
        )
    check_event_name(cfg.name, option("name"))
    limits.check_deadline(cfg.deadline, option("deadline"))
    limits.check_time_bank(cfg.time_bank, option("time_bank"))
    limits.check_strikes(cfg.max_strikes, option("max_strikes"))
    limits.check_start_timeout(cfg.start_timeout, option("start_timeout"))
    if cfg.isolation not in ISOLATIONS:
        raise UsageProblem(
            f"unknown isolation {cfg.isolation!r} (choose from {', '.join(ISOLATIONS)})",
            param=option("isolation"),
        )
    if cfg.duplicate:
        limits.check_duplicate_games(cfg.games, cfg.seats, option("seats"), option("games"))
    if cfg.seed is not None and (
        isinstance(cfg.seed, bool) or not isinstance(cfg.seed, int) or not 0 <= cfg.seed <= MAX_SEED
    ):
        raise UsageProblem(f"bad seed {cfg.seed!r}: must be between 0 and 2^63-1", option("seed"))
    try:
        if cfg.container:
            from arena.runtime.docker import ContainerLimits

            ContainerLimits(**cfg.container)
        if cfg.process:
            from arena.runtime.sandbox import ProcessLimits

            ProcessLimits(**cfg.process)
    except (TypeError, ValueError) as e:
        raise UsageProblem(str(e)) from None


def check_config(cfg: TournamentConfig, option: Option = api_option) -> int:
    """Everything about a new event that can be checked without the database: its
    settings (:func:`check_settings`), its entries (names, at least two, a remote bot
    once), its schedule (a gauntlet's challengers) and its size in games. Raises
    UsageProblem (ArenaError for a remote entry that is not registered); stores nothing.
    Returns the event's rounds (the format's default when none is given)."""
    from arena.names import check_entry_name
    from arena.schedule import make_scheduler

    check_settings(cfg, option)
    names = [e.name for e in cfg.entries]
    for name in names:
        check_entry_name(name, option("entries"))
    if len(names) < 2:
        raise UsageProblem("a tournament needs at least two bots", param=option("entries"))
    if len(set(names)) != len(names):
        raise UsageProblem("entry names must be unique", param=option("entries"))
    remote: dict[int, str] = {}
    for e in cfg.entries:
        if e.remote and e.bot_version_id is None:
            raise ArenaError(f"remote entry {e.name!r} must be a registered bot")
        if e.remote and e.bot_version_id is not None:
            if e.bot_version_id in remote:
                raise UsageProblem(
                    f"remote bot {remote[e.bot_version_id]!r} is entered twice: a remote bot "
                    "has one connection and plays one seat per table; enter it once",
                    param=option("entries"),
                )
            remote[e.bot_version_id] = e.name
    challengers = [e.name for e in cfg.entries if e.challenger]
    if cfg.format == "gauntlet" and not challengers:
        raise UsageProblem("a gauntlet needs at least one challenger", param=option("challengers"))
    try:
        sched = make_scheduler(
            cfg.format, names, cfg.seats, rounds=cfg.rounds, challengers=challengers or None
        )
    except ValueError as e:
        raise UsageProblem(str(e), param=option("challengers") if challengers else None) from None
    rounds = int(sched.total_rounds())
    limits.check_event_games(
        len(names), cfg.seats, rounds, cfg.games, (option("rounds"), option("games"))
    )
    return rounds


def create_tournament(
    cfg: TournamentConfig, db: str | Engine | None = None, option: Option = api_option
) -> int:
    """Validate (:func:`check_config`) and store a new tournament; returns its id.
    Nothing is stored unless every check passes."""
    rounds = check_config(cfg, option)
    t = Tournament(
        name=cfg.name,
        format=cfg.format,
        variant=cfg.variant,
        brutal=cfg.brutal,
        seats=cfg.seats,
        rounds=rounds,
        games_per_match=cfg.games,
        concurrency=cfg.concurrency,
        seed=cfg.seed,
        secret=DealKey.fresh().hex() if cfg.seed is None else None,
        options={
            "deadline": cfg.deadline,
            "time_bank": cfg.time_bank,
            "max_strikes": cfg.max_strikes,
            "start_timeout": cfg.start_timeout,
            "container": cfg.container,
            "process": cfg.process,
            "isolation": cfg.isolation,
            "duplicate": cfg.duplicate,
        },
    )
    entries = [
        Entry(
            name=e.name,
            challenger=e.challenger,
            bot_version_id=e.bot_version_id,
            **entry_columns(e.source),
        )
        for e in cfg.entries
    ]
    return tournaments.create(db, t, entries)  # the database is opened once all is checked


def stored_config(t: Tournament, entries: list[Entry]) -> TournamentConfig:
    """The settings a stored event was created with, as :func:`check_config` checks them
    (an event stored before a check existed, or by another program, is checked again
    before it runs)."""
    o = t.options or {}
    return TournamentConfig(
        format=t.format,
        entries=[
            EntrySpec(e.name, entry_source(e), e.challenger, e.bot_version_id) for e in entries
        ],
        seats=t.seats,
        rounds=t.rounds or None,
        games=t.games_per_match,
        concurrency=t.concurrency,
        variant=t.variant,
        brutal=t.brutal,
        seed=t.seed,
        name=t.name,
        deadline=o.get("deadline", limits.DEFAULT_DEADLINE),
        time_bank=o.get("time_bank", limits.DEFAULT_TIME_BANK),
        max_strikes=o.get("max_strikes", limits.DEFAULT_MAX_STRIKES),
        start_timeout=o.get("start_timeout", limits.DEFAULT_START_TIMEOUT),
        container=o.get("container") or {},
        process=o.get("process") or {},
        isolation=o.get("isolation", "event"),
        duplicate=bool(o.get("duplicate")),
    )


def load(db: str | Engine | None, tid: int) -> tuple[Tournament, list[Entry]]:
    found = tournaments.get(db, tid)
    if found is None:
        raise ArenaError(f"no tournament with id {tid}")
    return found


def event_ratings(db: str | Engine | None, t: Tournament) -> Board:
    """The fitted ratings of the event's completed games (arena.leaderboard)."""
    return ratings(db, variant=t.variant, brutal=t.brutal, tournament=t.id)


def standings_of(
    db: str | Engine | None, tid: int, board: Board | None = None
) -> list[StandingRow]:
    """The event's standings, with the fitted ratings of its games (``board``, computed
    if not given) as the last tie-break and their rank next to the points."""
    t, entries = load(db, tid)
    if board is None:
        board = event_ratings(db, t)
    credits = bye_credits(
        rounds.byes(db, tid),
        t.games_per_match,
        format=t.format,
        challengers=[e.name for e in entries if e.challenger],
    )
    return compute_standings(
        [e.name for e in entries],
        (GameRow(*row) for row in games.placements(db, tid)),
        table_size=t.seats,
        byes=credits,
        elo=board.ratings,
    )


class TournamentRunner:
    def __init__(
        self,
        db: str | Engine | None,
        tid: int,
        progress: Callable[[Progress], None] | None = None,
        listen: str | None = None,
        *,
        db_retry: float | None = None,
        warn: Callable[[str], None] | None = None,
        workers: int = 1,
        allow_absent: bool = False,
        say: Callable[[str], None] | None = None,
        executor: str = "local",
        address: str | None = None,
    ) -> None:
        """``listen`` (host:port) also serves the gateway on TCP, for remote bots.
        ``db_retry``: seconds to ride through a database outage (store/retry.py);
        ``warn(message)`` hears about such an outage and about absent bots (default: the
        log); ``say(message)`` about the pre-flight. ``workers``: worker processes that
        play the matches (arena.executor; 1: this process). ``allow_absent``: entrants
        that fail the pre-flight forfeit every game instead of stopping the run.
        ``executor``: where matches run (a name in arena.executor.EXECUTORS); ``address``:
        the Ray cluster's, for ``"ray"``."""
        self.listen = listen
        self.allow_absent = allow_absent
        self.say = say or log.info
        self.absent: dict[str, str] = {}
        self.workers = max(1, workers)
        self.executor_kind = executor
        self.address = address
        self.db_retry = retry_limit(db_retry)
        self.warn = warn or log.warning
        self.lock: EventLock | None = None
        self.eng = engine_of(db)
        self.outage = Outage(self.eng, self.db_retry, self.warn, "event", lambda: self.lock)
        self.tid = tid
        self.progress = progress
        self.state = Progress()
        self.played = 0
        self.container_limits: Any = None
        self.process_limits: Any = None
        self.remote_links: dict[str, str] = {}
        self.executor: Any = None

    def _emit(self) -> None:
        if self.progress is not None:
            self.progress(self.state)

    async def _db(self, step: Callable[..., Any], *args: Any) -> Any:
        """One database step, retried through a short outage (``db_retry`` seconds)."""
        return await self.outage.step(step, *args)

    async def run(self) -> Outcome:
        """Run the event under its lock (one process per event); a failure of the database
        or of the listener stops it in one line and leaves it resumable."""
        t, _ = load(self.eng, self.tid)  # an unknown id is an error before anything is locked
        if t.format == limits.LADDER_FORMAT:
            raise ArenaError(
                f"tournament {self.tid} holds a ladder's games; run the ladder with: "
                f"arena ladder run --variant {t.variant} --seats {t.seats}"
            )
        hint = f"tournament {self.tid} stopped; resume it with: arena tournament resume {self.tid}"
        try:
            with EventLock(self.eng, self.tid) as lock:
                self.lock = lock
                return await self._run()
        except SQLAlchemyError as e:
            raise ArenaError(f"{explain(e)}; {hint}") from None
        except DatabaseUnavailable as e:
            raise DatabaseUnavailable(f"{e}; {hint}") from None
        except (OSError, RuntimeError) as e:
            if self.listen is None or not ("bind" in str(e) or "listen" in str(e)):
                raise
            raise ArenaError(
                f"cannot listen on {self.listen}: the address is in use or not available "
                f"here; {hint}"
            ) from None
        finally:
            self.lock = None

    async def _run(self) -> Outcome:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        t, entries = load(self.eng, self.tid)
        reason = tournaments.failure(t)
        if reason is not None:
            raise ArenaError(f"tournament {self.tid} failed and cannot be resumed: {reason}")
        if t.status != TournamentStatus.COMPLETED:
            try:
                check_config(stored_config(t, entries))
            except ArenaError as e:  # it would fail again at every try: it ends here
                await self._db(tournaments.mark_failed, self.eng, self.tid, str(e))
                raise ArenaError(
                    f"tournament {self.tid} cannot run ({e}): it is marked failed"
                ) from None
        if t.status == TournamentStatus.COMPLETED:
            board = event_ratings(self.eng, t)
            lines, n = self._faults()
            return Outcome(
                t,
                standings_of(self.eng, self.tid, board),
                ratings=board,
                faults=lines,
                games=n,
                challengers=[e.name for e in entries if e.challenger],
            )
        by_name = {e.name: e for e in entries}
        sched = _scheduler(t, entries)
        total_rounds = sched.total_rounds()
        per_round = max(1, len(entries) // t.seats) * t.games_per_match
        self.state = Progress(rounds=total_rounds, games_total=total_rounds * per_round)
        self.state.games_done = games.count(self.eng, self.tid)
        self._emit()
        notes: list[str] = []
        try:
            faults = FaultPolicy(
                deadline=float(t.options.get("deadline", limits.DEFAULT_DEADLINE)),
                time_bank=float(t.options.get("time_bank", limits.DEFAULT_TIME_BANK)),
                max_strikes=int(t.options.get("max_strikes", limits.DEFAULT_MAX_STRIKES)),
                start_timeout=float(t.options.get("start_timeout", limits.DEFAULT_START_TIMEOUT)),
            )
        except (TypeError, ValueError) as e:
            raise ArenaError(f"tournament {self.tid} has unusable options: {e}") from None
        table_slots = asyncio.Semaphore(max(1, t.concurrency // max(1, min(t.games_per_match, 4))))
        self.remote_links = self._remote_links(entries)
        if self.remote_links and not self.listen:
            raise ArenaError("remote bots need a TCP listener: give --listen HOST:PORT")
        executor, self.process_limits, self.container_limits = await runner_executor(
            t.options,
            images=any(isinstance(entry_source(e), Image) for e in entries),
            workers=self.workers,
            kind=self.executor_kind,
            address=self.address,
            faults=faults,
            concurrency=t.concurrency,
            listen=self.listen,
            remote=bool(self.remote_links),
            event_id=f"t{t.id}",
        )
        async with executor:
            self.executor = executor
            if self.remote_links and self.progress is not None:
                self.state.note = f"remote bots connect to {executor.tcp_address}"
                self._emit()
            absent = await self._preflight(executor, entries, faults)
            for r in range(total_rounds):
                self.state.round = r + 1
                rnd, matches = await self._db(self._round, t, sched, r)
                if rnd.note:
                    notes.append(f"round {r + 1}: {rnd.note}")
                todo = [m for m in matches if m.status != MatchStatus.COMPLETED]
                self.state.games_total += len(matches) * t.games_per_match - per_round
                self._emit()
                await all_or_none(self._play(t, m, by_name, faults, table_slots) for m in todo)
                await self._db(self._round_done, rnd.id)
        t = await self._db(tournaments.mark_completed, self.eng, self.tid)
        board = await self._db(event_ratings, self.eng, t)
        standings = await self._db(standings_of, self.eng, self.tid, board)
        lines, n = await self._db(self._faults)
        challengers = [e.name for e in entries if e.challenger]
        return Outcome(
            t, standings, self.played, loop.time() - t0, notes, board, lines, n, absent, challengers
        )

    def _faults(self) -> tuple[list[FaultLine], int]:
        """The fault summary of the event's stored games, and how many there are."""
        counted = [0]

        def each() -> Any:
            for faults in games.faults(self.eng, self.tid):
                counted[0] += 1
                yield faults

        lines = summarize(each())
        return lines, counted[0]

    async def _preflight(
        self, executor: Any, entries: list[Entry], faults: FaultPolicy
    ) -> list[Absence]:
        """Start every entrant that is not a built-in policy and hear its hello before
        the first game (arena.match.preflight); raises PreflightFailed unless the run may
        go on without the ones that failed, which are then marked absent."""
        from arena.match.preflight import settle

        started = [self._entry(e) for e in entries if not is_builtin(entry_source(e))]
        if not started:
            return []
        remote = sum(isinstance(b.source, Remote) for b in started)
        self.say(
            f"pre-flight: starting {len(started)} bot(s); each must say hello within "
            f"{faults.start_timeout:g} s"
            + (f" (remote bots: connect to {executor.tcp_address})" if remote else "")
        )
        found = await executor.preflight(started)
        played = self.state.games_done  # stored games of the event, counted at the start
        hint = (
            f"tournament {self.tid} was not started: no game was played"
            if not played
            else f"tournament {self.tid} was not resumed: no further game was played"
        ) + (
            f"; fix the bot(s) and resume it with: arena tournament resume {self.tid} "
            "(--allow-absent plays on without them: they forfeit every game)"
        )
        absent = settle(found, self.allow_absent, hint)
        self.absent = {a.bot: a.reason for a in absent}
        for a in absent:
            self.warn(f"{a.bot} is absent ({a.reason}): it forfeits every game of this run")
        if not absent:
            self.say(f"pre-flight: all {len(started)} bot(s) said hello")
        return absent

    def _entry(self, e: Entry) -> BotEntry:
        """The match runner's entry of an entrant (a remote one by its token's hash: its
        link is the event's), marked absent if it failed this run's pre-flight."""
        source = entry_source(e)
        if isinstance(source, Remote):
            source = Remote(self.remote_links[e.name])
        return BotEntry(e.name, source, absent=self.absent.get(e.name))

    def _round_done(self, round_id: int | None) -> None:
        rounds.mark_completed(self.eng, round_id)

    def _remote_links(self, entries: list[Entry]) -> dict[str, str]:
        """The stored token hash of each remote entry (its link lives for the whole event,
        in the event's fleet)."""
        hashes = {}
        for e in entries:
            if not e.remote:
                continue
            version = bots.version(self.eng, e.bot_version_id)
            if version is None or not version.token_hash:
                raise ArenaError(f"remote entry {e.name!r} has no registered token")
            hashes[e.name] = version.token_hash
        return hashes

    def _round(self, t: Tournament, sched: Any, index: int) -> tuple[Round, list[Match]]:
        """The stored plan of round ``index``, planning and storing it if it is new."""
        stored = rounds.planned(self.eng, self.tid, index)
        if stored is not None:
            return stored
        from arena.schedule import RoundPlan, Standing, Table

        # the standings so far, their Elo the current fit of the event's games
        standings = standings_of(self.eng, self.tid)
        history = [
            RoundPlan(tables=[Table(tuple(m.seats)) for m in ms], byes=list(r.byes))
            for r, ms in rounds.plans(self.eng, self.tid)
        ]
        plan = sched.plan_round(
            index,
            [
                Standing(r.bot, r.points, r.games, 1500.0 if r.elo is None else r.elo)
                for r in standings
            ],
            history,
        )
        key = t.deal_key()
        rnd = Round(tournament_id=self.tid, index=index, byes=list(plan.byes), note=plan.note)
        matches = [
            {
                "tournament_id": self.tid,
                "table": i,
                "seats": list(table.seats),
                "seed": key.seed("round", index, "table", i),
                "games": t.games_per_match,
            }
            for i, table in enumerate(plan.tables)
        ]
        return rounds.add(self.eng, rnd, matches)

    async def _play(
        self,
        t: Tournament,
        m: Match,
        by_name: dict[str, Entry],
        faults: FaultPolicy,
        table_slots: asyncio.Semaphore,
    ) -> None:
        bots = [self._entry(by_name[name]) for name in m.seats]
        spec = MatchSpec(
            bots=bots,
            games=m.games,
            seed=m.seed,
            variant=t.variant,
            brutal=t.brutal,
            concurrency=t.concurrency,
            faults=faults,
            match_id=f"t{t.id}-m{m.id}",
            # a set per rotation of this table (a smaller table of an odd field has
            # smaller sets; its last set may be partial)
            games_per_deal=len(m.seats) if t.options.get("duplicate") else 1,
            container_limits=self.container_limits,
            process_limits=self.process_limits,
        )
        async with table_slots:
            await self._db(self._match_started, m.id)

            def tick() -> None:
                self.state.games_done += 1
                self._emit()

            assert self.executor is not None
            result = await self.executor.run(spec, tick)
        await self._db(self._store_once, t, m, result)

    def _store_once(self, t: Tournament, m: Match, result: MatchResult) -> None:
        """``_store``, unless an attempt whose answer was lost to an outage stored it."""
        if rounds.match_completed(self.eng, m.id):
            return
        self._store(t, m, result)

    def _match_started(self, match_id: int | None) -> None:
        rounds.start_match(self.eng, match_id)

    def _store(self, t: Tournament, m: Match, result: MatchResult) -> None:
        """The match's games and its completion, in one transaction."""
        rounds.complete_match(self.eng, m.id, game_rows(t, m, result))
        self.played += len(result.games)


def game_rows(t: Tournament, m: Match, result: MatchResult) -> list[Game]:
    """The rows that store a played match's games (each fault with its bot's log tail)."""
    return [
        Game(
            match_id=m.id,  # type: ignore[arg-type]
            tournament_id=t.id,  # type: ignore[arg-type]
            index=g.index,
            seed=g.seed,
            variant=t.variant,
            seating=g.seating,
            ranks=g.ranks,
            totals=g.totals,
            rounds=g.rounds,
            status=g.status,
            faults=[
                {**f.as_dict(), "log_tail": result.logs.get(f.bot or "", "")[-4000:]}
                for f in g.faults
            ],
            choices=g.choices,
            events=g.events,
        )
        for g in result.games
    ]


async def run_tournament(
    db: str | Engine | None,
    tid: int,
    progress: Callable[[Progress], None] | None = None,
    listen: str | None = None,
    *,
    db_retry: float | None = None,
    warn: Callable[[str], None] | None = None,
    workers: int = 1,
    allow_absent: bool = False,
    say: Callable[[str], None] | None = None,
    executor: str = "local",
    address: str | None = None,
) -> Outcome:
    return await TournamentRunner(
        db,
        tid,
        progress,
        listen,
        db_retry=db_retry,
        warn=warn,
        workers=workers,
        allow_absent=allow_absent,
        say=say,
        executor=executor,
        address=address,
    ).run()


def list_tournaments(db: str | Engine | None = None) -> list[dict[str, Any]]:
    return [
        {
            "id": t.id,
            "name": t.name,
            "format": t.format,
            "variant": t.variant + (" brutal" if t.brutal else ""),
            "seats": t.seats,
            "rounds": t.rounds,
            "status": t.status,
            "games": n,
            "created": t.created.isoformat(timespec="seconds"),
        }
        for t, n in tournaments.with_game_counts(db)
    ]
