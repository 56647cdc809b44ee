"""A/B tests (``arena test``): create one, play its units through an executor, store every
unit, stop at the SPRT's verdict, resume after a crash.

A test plays **units**: the games of one deal (:mod:`arena.abtest.design`; the ``swap``
design at every table size: the deal twice, NEW and BASE exchanging seats, the opponents
keeping theirs). Each unit is a :class:`~arena.match.MatchSpec` of its own, whose games
share one deal (``games_per_deal``) and whose seat plans are the design's layouts
(``seatings``); its match seed is derived from the test's deal key, so a unit is the same
games wherever and whenever it is played. Data flows one way, as for tournaments:
executor (plays a unit, no database) → store (the unit with its games and the test's
state, in one transaction) → the SPRT state.

**Where a test stops** is fixed by the units' results alone, not by the order they finish
in, so that a test resumed after a kill ends exactly as an uninterrupted one:

* units are counted in index order (a unit that finishes early waits for the ones before
  it); the verdict is that of the first prefix whose LLR crosses a bound;
* at most ``ahead`` units past the first unfinished one are started (stored with the test);
* a sequential test decided at unit ``d`` plays exactly units ``0 .. d + ahead - 1``:
  the units in flight when it decided finish and count in the estimates (they cannot
  undo the verdict: :class:`~arena.abtest.SprtState` is sticky), and no others start;
  one that does not decide stops at its cap (``max_games``); a fixed-length test plays
  its ``games``.

A unit with a void game (the arena failed) counts for nothing; it is stored as void.
A test's games are stored apart from tournaments' and are not rated on the leaderboard.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from arena import limits
from arena.abtest import SprtSpec, SprtState, Verdict, head_to_head, unit_layouts
from arena.abtest.design import BASE, NEW, RECOMMENDED, base_layout
from arena.bots import BotSource, Image, Remote, source_dict, source_from_dict
from arena.errors import ArenaError, UsageProblem
from arena.executor import known_executor, runner_executor
from arena.faults import FaultPolicy
from arena.match import BotEntry, MatchResult, MatchSpec
from arena.seeds import DealKey
from arena.status import AbTestStatus, GameStatus, UnitStatus
from arena.store import abtests
from arena.store.db import engine_of, explain
from arena.store.locks import EventLock
from arena.store.models import AbGame, AbTest, AbUnit
from arena.store.retry import DatabaseUnavailable, Outage, retry_limit

log = logging.getLogger("arena.abtest")


@dataclass
class Player:
    """A bot of a test: its name at the table and where it runs from."""

    name: str
    source: BotSource
    bot_version_id: int | None = None


@dataclass
class AbTestConfig:
    new: Player
    base: Player
    opponents: list[Player] = field(default_factory=list)  # seats - 2 of them
    seats: int = 2
    sprt: SprtSpec = field(default_factory=SprtSpec)
    games: int | None = None  # a fixed-length test; None: stop at the SPRT's verdict
    max_games: int = limits.DEFAULT_TEST_MAX_GAMES  # the cap of a sequential test
    variant: str = "base"
    brutal: bool = False
    # None: a fresh secret deal key; a number: reproducible (and guessable) deals
    seed: int | None = None
    concurrency: int = limits.DEFAULT_TEST_CONCURRENCY  # games at once
    deadline: float = limits.DEFAULT_DEADLINE
    time_bank: float = limits.DEFAULT_TIME_BANK
    max_strikes: int = limits.DEFAULT_MAX_STRIKES
    container: dict[str, Any] = field(default_factory=dict)  # ContainerLimits overrides
    process: dict[str, Any] = field(default_factory=dict)  # ProcessLimits overrides
    isolation: str = "event"
    design: str = RECOMMENDED

    @property
    def games_per_unit(self) -> int:
        return len(unit_layouts(self.design, self.seats, 0))

    def players(self) -> list[tuple[str, Player]]:
        """(role, player) in the order of the design's roles: NEW, BASE, OPP1, ..."""
        roles = base_layout(self.seats)
        return list(zip(roles, [self.new, self.base, *self.opponents], strict=True))


def default_ahead(concurrency: int, games_per_unit: int) -> int:
    """Units started ahead of the first unfinished one: twice the units at once, so that
    the executor always has the next ones queued."""
    return max(2, 2 * math.ceil(concurrency / games_per_unit))


def check_config(cfg: AbTestConfig) -> None:
    """Everything about a new test that can be checked without the database."""
    from arena.names import check_entry_name

    if not limits.MIN_EVENT_SEATS <= cfg.seats <= limits.MAX_TABLE_SEATS:
        raise UsageProblem(
            f"must be between {limits.MIN_EVENT_SEATS} and {limits.MAX_TABLE_SEATS}, "
            f"got {cfg.seats}",
            param="--seats",
        )
    if len(cfg.opponents) != cfg.seats - 2:
        raise UsageProblem(
            f"a {cfg.seats}-seat test needs {cfg.seats - 2} opponent(s) besides NEW and BASE, "
            f"got {len(cfg.opponents)}",
            param="--opponents",
        )
    players = [p for _, p in cfg.players()]
    names = [p.name for p in players]
    for name in names:
        check_entry_name(name)
    if len(set(names)) != len(names):
        raise UsageProblem("the bots of a test need distinct names")
    if any(isinstance(p.source, Remote) for p in players):
        raise UsageProblem("remote bots cannot take part in a test (it starts its own bots)")
    m = cfg.games_per_unit
    if cfg.games is not None:
        limits.check_count(cfg.games, "--games", m, limits.MAX_TEST_GAMES)
        if cfg.games % m:
            raise UsageProblem(
                f"a test plays whole units of {m} games (one deal each): give a multiple "
                f"of {m}, got {cfg.games}",
                param="--games",
            )
    limits.check_count(cfg.max_games, "--max-games", m, limits.MAX_TEST_GAMES)
    limits.check_deadline(cfg.deadline)
    limits.check_time_bank(cfg.time_bank)
    limits.check_strikes(cfg.max_strikes)
    limits.check_count(cfg.concurrency, "--concurrency", 1, limits.MAX_EVENT_GAMES)


def create_test(cfg: AbTestConfig, db: str | Engine | None = None) -> int:
    """Validate and store a new test; returns its id."""
    check_config(cfg)
    m = cfg.games_per_unit
    test = AbTest(
        new=cfg.new.name,
        base=cfg.base.name,
        bots=[
            {
                "role": role,
                "name": p.name,
                "source": source_dict(p.source),
                "bot_version_id": p.bot_version_id,
            }
            for role, p in cfg.players()
        ],
        seats=cfg.seats,
        variant=cfg.variant,
        brutal=cfg.brutal,
        design=cfg.design,
        sprt=cfg.sprt.as_dict(),
        fixed_games=cfg.games,
        max_games=cfg.max_games,
        ahead=default_ahead(cfg.concurrency, m),
        concurrency=cfg.concurrency,
        seed=cfg.seed,
        secret=DealKey.fresh().hex() if cfg.seed is None else None,
        options={
            "deadline": cfg.deadline,
            "time_bank": cfg.time_bank,
            "max_strikes": cfg.max_strikes,
            "container": cfg.container,
            "process": cfg.process,
            "isolation": cfg.isolation,
        },
        state=SprtState.new(cfg.sprt, m).as_dict(),
    )
    return abtests.create(db, test)


def load(db: str | Engine | None, tid: int) -> AbTest:
    found = abtests.get(db, tid)
    if found is None:
        raise ArenaError(f"no test with id {tid}")
    return found


# ------------------------------------------------------------------ the plan of a test
def games_per_unit(t: AbTest) -> int:
    return len(unit_layouts(t.design, t.seats, 0))


def unit_limit(t: AbTest) -> int:
    """Units a test plays at most: its fixed length, else its cap (whole units)."""
    m = games_per_unit(t)
    return (t.fixed_games if t.fixed_games is not None else t.max_games) // m


@dataclass
class Tally:
    """The units of a test counted in index order (see the module docstring)."""

    state: SprtState
    limit: int  # units to play: shrinks to d + ahead once a sequential test decides at d
    ahead: int
    sequential: bool
    frontier: int = 0  # units 0 .. frontier-1 are counted
    decided_index: int | None = None
    void: int = 0
    counted: list[str] = field(default_factory=list)  # the outcomes, in counting order

    @classmethod
    def start(cls, t: AbTest) -> Tally:
        return cls(
            SprtState.new(SprtSpec.from_dict(t.sprt), games_per_unit(t)),
            unit_limit(t),
            max(1, t.ahead),
            t.fixed_games is None,
        )

    def advance(self, done: dict[int, str | None]) -> None:
        """Count every unit that is next in order and finished (``None``: void)."""
        while self.frontier < self.limit and self.frontier in done:
            outcome = done[self.frontier]
            if outcome:
                self.state.add(outcome)
                self.counted.append(outcome)
            else:
                self.void += 1
            self.frontier += 1
            if self.sequential and self.state.decided and self.decided_index is None:
                self.decided_index = self.frontier - 1
                self.limit = min(self.limit, self.decided_index + self.ahead)

    def wanted(self) -> range:
        """The units that may be started now."""
        return range(self.frontier, min(self.limit, self.frontier + self.ahead))

    @property
    def finished(self) -> bool:
        return self.frontier >= self.limit

    @property
    def stopped_by(self) -> str:
        if not self.sequential:
            return "length"
        return "sprt" if self.decided_index is not None else "cap"


def outcomes_of(units: list[AbUnit]) -> dict[int, str | None]:
    return {u.index: (u.outcome if u.status == UnitStatus.COMPLETED else None) for u in units}


def replay(t: AbTest, units: list[AbUnit]) -> Tally:
    """The tally of a test's stored units, as the run that stored them counted them."""
    tally = Tally.start(t)
    tally.advance(outcomes_of(units))
    return tally


def final_verdict(t: AbTest, state: SprtState) -> str:
    """``H1`` (NEW is better), ``H0``, or, for a finished test that did not decide,
    ``inconclusive`` (``continue`` while it runs)."""
    if state.decided:
        return state.verdict.value
    return "inconclusive" if t.status == AbTestStatus.COMPLETED else Verdict.CONTINUE.value


# ------------------------------------------------------------------ running
@dataclass
class AbOutcome:
    test: AbTest
    state: SprtState
    stopped_by: str  # "sprt", "cap" or "length"
    units_played: int = 0  # in this run (a resumed run counts only its own)
    games_played: int = 0
    seconds: float = 0.0
    void_units: int = 0

    @property
    def verdict(self) -> str:
        return final_verdict(self.test, self.state)

    def as_dict(self) -> dict[str, Any]:
        """The ``--json`` of ``arena test`` (documented in the README)."""
        st = self.state.status()
        e = st.estimate
        t = self.test
        return {
            "id": t.id,
            "status": t.status,
            "verdict": self.verdict,
            "stopped_by": self.stopped_by,
            "llr": st.llr,
            "bounds": [st.lower, st.upper],
            "sprt": {k: _whole(v) for k, v in st.spec.as_dict().items()},
            "elo": _finite(e.elo),
            "ci_low": _finite(e.elo_low),
            "ci_high": _finite(e.elo_high),
            "nelo": _finite(e.nelo),
            "nelo_ci": [_finite(e.nelo_low), _finite(e.nelo_high)],
            "los": e.los,
            "pairs": e.units,
            "games": e.games,
            "games_per_unit": e.games_per_unit,
            "unit_counts": list(e.counts),
            "decided_at": st.decided_at,
            "variance_ratio": e.variance_ratio,
            "variance_ratio_se": e.variance_ratio_se,
            "void_units": self.void_units,
            "new": t.new,
            "base": t.base,
            "opponents": [b["name"] for b in t.bots[2:]],
            "seats": t.seats,
            "design": t.design,
            "variant": t.variant,
            "brutal": t.brutal,
            "seed": t.seed,
        }


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _whole(x: Any) -> Any:
    """A whole number given as a float (``elo0=0``) as the integer it is, for JSON."""
    return int(x) if isinstance(x, float) and x.is_integer() else x


@dataclass
class Progress:
    state: SprtState
    units_done: int  # counted in order
    units_stored: int
    units_total: int  # the most this test can still play
    games_per_unit: int


class AbTestRunner:
    def __init__(
        self,
        db: str | Engine | None,
        tid: int,
        progress: Callable[[Progress], None] | None = None,
        *,
        workers: int = 1,
        db_retry: float | None = None,
        warn: Callable[[str], None] | None = None,
        executor: str = "local",
        address: str | None = None,
    ) -> None:
        """``executor``: where units run (a name in arena.executor.EXECUTORS, else a
        ValueError); ``address``: the Ray cluster's, for ``"ray"`` (None: RAY_ADDRESS, else
        a Ray instance of this machine)."""
        self.eng = engine_of(db)
        self.executor = known_executor(executor)
        self.address = address
        self.tid = tid
        self.progress = progress
        self.workers = max(1, workers)
        self.db_retry = retry_limit(db_retry)
        self.warn = warn or log.warning
        self.outage = Outage(self.eng, self.db_retry, self.warn, "test", lambda: self.lock)
        self.lock: EventLock | None = None
        self.units_played = 0
        self.games_played = 0
        self.container_limits: Any = None
        self.process_limits: Any = None

    async def _db(self, step: Callable[..., Any], *args: Any) -> Any:
        """One database step, retried through a short outage (``db_retry`` seconds)."""
        return await self.outage.step(step, *args)

    async def run(self) -> AbOutcome:
        """Run the test under its lock (one process per test); a failure of the database
        stops it in one line and leaves it resumable."""
        load(self.eng, self.tid)
        hint = f"test {self.tid} stopped; resume it with: arena test resume {self.tid}"
        try:
            with EventLock(self.eng, self.tid, "test") as lock:
                self.lock = lock
                return await self._run()
        except SQLAlchemyError as e:
            raise ArenaError(f"{explain(e)}; {hint}") from None
        except DatabaseUnavailable as e:
            raise DatabaseUnavailable(f"{e}; {hint}") from None
        finally:
            self.lock = None

    def _bots(self, t: AbTest) -> list[BotEntry]:
        return [BotEntry(b["name"], source_from_dict(b["source"])) for b in t.bots]

    def unit_spec(self, t: AbTest, index: int, faults: FaultPolicy) -> MatchSpec:
        """Unit ``index`` of the test as a match: its layouts' games on one deal."""
        layouts = unit_layouts(t.design, t.seats, index)
        role_of = {b["role"]: i for i, b in enumerate(t.bots)}
        return MatchSpec(
            bots=self._bots(t),
            games=len(layouts),
            seed=t.deal_key().seed("unit", index),
            variant=t.variant,
            brutal=t.brutal,
            rotate=False,
            concurrency=t.concurrency,
            faults=faults,
            match_id=f"ab{t.id}-u{index}",
            games_per_deal=len(layouts),
            seatings=tuple(tuple(role_of[r] for r in lay) for lay in layouts),
            container_limits=self.container_limits,
            process_limits=self.process_limits,
        )

    async def _run(self) -> AbOutcome:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        t = load(self.eng, self.tid)
        stored = abtests.units(self.eng, self.tid)
        tally = replay(t, stored)
        done = outcomes_of(stored)
        m = games_per_unit(t)
        if t.status == AbTestStatus.COMPLETED:
            return AbOutcome(t, tally.state, tally.stopped_by, void_units=tally.void)
        try:
            faults = FaultPolicy(
                deadline=float(t.options.get("deadline", limits.DEFAULT_DEADLINE)),
                time_bank=float(t.options.get("time_bank", limits.DEFAULT_TIME_BANK)),
                max_strikes=int(t.options.get("max_strikes", limits.DEFAULT_MAX_STRIKES)),
            )
        except (TypeError, ValueError) as e:
            raise ArenaError(f"test {self.tid} has unusable options: {e}") from None

        def emit() -> None:
            if self.progress is not None:
                self.progress(Progress(tally.state, tally.frontier, len(done), tally.limit, m))

        emit()
        if not tally.finished:
            executor, self.process_limits, self.container_limits = await runner_executor(
                t.options,
                images=any(isinstance(source_from_dict(b["source"]), Image) for b in t.bots),
                workers=self.workers,
                kind=self.executor,
                address=self.address,
                faults=faults,
                concurrency=t.concurrency,
                event_id=f"ab{t.id}",
            )
            async with executor:
                await self._play_all(t, executor, faults, tally, done, emit)
        t = await self._db(
            abtests.mark_completed, self.eng, self.tid, tally.state.as_dict(),
            tally.state.verdict.value,
        )  # fmt: skip
        return AbOutcome(
            t,
            tally.state,
            tally.stopped_by,
            self.units_played,
            self.games_played,
            loop.time() - t0,
            tally.void,
        )

    async def _play_all(
        self,
        t: AbTest,
        executor: Any,
        faults: FaultPolicy,
        tally: Tally,
        done: dict[int, str | None],
        emit: Callable[[], None],
    ) -> None:
        pending: dict[asyncio.Task[MatchResult], int] = {}

        def fill() -> None:
            started = set(pending.values())
            for i in tally.wanted():
                if i not in done and i not in started:
                    task = asyncio.ensure_future(executor.run(self.unit_spec(t, i, faults)))
                    pending[task] = i

        try:
            fill()
            while pending:
                finished, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in sorted(finished, key=lambda x: pending[x]):
                    index = pending.pop(task)
                    result = task.result()  # an executor failure stops the test
                    outcome = score(t, index, result)
                    done[index] = outcome
                    tally.advance(done)
                    await self._db(self._store, t, index, result, outcome, tally)
                    self.units_played += 1
                    self.games_played += len(result.games)
                    emit()
                fill()
        finally:
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)

    def _store(
        self, t: AbTest, index: int, result: MatchResult, outcome: str | None, tally: Tally
    ) -> None:
        """The unit with its games and the test's state, in one transaction."""
        assert t.id is not None
        unit = AbUnit(
            test_id=t.id,
            index=index,
            seed=result.spec.seed or 0,
            outcome=outcome or "",
            status=UnitStatus.COMPLETED if outcome else UnitStatus.VOID,
        )
        rows = [
            AbGame(
                test_id=t.id,
                unit_id=0,  # set on storing
                position=g.index,
                seed=g.seed,
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
            )
            for g in result.games
        ]
        abtests.add_unit(self.eng, unit, rows, tally.state.as_dict(), tally.state.verdict.value)


def score(t: AbTest, index: int, result: MatchResult) -> str | None:
    """NEW's result against BASE in each game of the unit (``"WL"``), or None when a game
    is void."""
    layouts = unit_layouts(t.design, t.seats, index)
    games = sorted(result.games, key=lambda g: g.index)
    if len(games) != len(layouts) or any(g.status != GameStatus.COMPLETED for g in games):
        return None
    return "".join(
        head_to_head(g.ranks, lay.index(NEW), lay.index(BASE))
        for g, lay in zip(games, layouts, strict=True)
    )


async def run_test(
    db: str | Engine | None,
    tid: int,
    progress: Callable[[Progress], None] | None = None,
    *,
    workers: int = 1,
    db_retry: float | None = None,
    warn: Callable[[str], None] | None = None,
    executor: str = "local",
    address: str | None = None,
) -> AbOutcome:
    return await AbTestRunner(
        db, tid, progress, workers=workers, db_retry=db_retry, warn=warn, executor=executor,
        address=address,
    ).run()  # fmt: skip


def outcome_of(db: str | Engine | None, tid: int) -> AbOutcome:
    """A stored test's outcome as it stands (finished or not), from its units."""
    t = load(db, tid)
    tally = replay(t, abtests.units(db, tid))
    return AbOutcome(t, tally.state, tally.stopped_by, void_units=tally.void)


def list_tests(db: str | Engine | None = None) -> list[dict[str, Any]]:
    out = []
    for t, n in abtests.with_counts(db):
        state = SprtState.from_dict(t.state) if t.state else None
        est = state.status().estimate if state is not None else None
        out.append(
            {
                "id": t.id,
                "new": t.new,
                "base": t.base,
                "seats": t.seats,
                "variant": t.variant + (" brutal" if t.brutal else ""),
                "sprt": str(SprtSpec.from_dict(t.sprt)),
                "games": n,
                "elo": None if est is None else _finite(est.elo),
                "llr": None if state is None else state.llr,
                "verdict": final_verdict(t, state) if state is not None else t.verdict,
                "status": t.status,
                "created": t.created.isoformat(timespec="seconds"),
            }
        )
    return out


__all__ = [
    "AbOutcome",
    "AbTestConfig",
    "AbTestRunner",
    "Player",
    "Progress",
    "Tally",
    "create_test",
    "default_ahead",
    "list_tests",
    "load",
    "outcome_of",
    "replay",
    "run_test",
    "score",
]
