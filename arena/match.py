"""The match runner: one table of bots plays a series of games.

``run_match(MatchSpec) -> MatchResult``. It starts the bots (process runtime), serves them
through a gateway, referees every game with the engine, enforces the fault policy, and
returns plain results. It touches no database, so matches can run on worker machines.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import descriptors
from arena.faults import BotGone, Fault, FaultKind, FaultPolicy, IllegalAnswer
from arena.gateway.link import BotLink
from arena.gateway.server import Gateway
from arena.protocol import pb
from arena.protocol.convert import KIND_TO_PB, event_pb, ruleset_pb
from arena.protocol.wire import RequestEncoder
from arena.runtime.process import ProcessBot
from arena.seeds import bot_seed, fresh_match_seed, game_seed
from engine import STAY, Decision, Game, get_ruleset
from engine.events import event_dict
from engine.policies import make_policy

log = logging.getLogger("arena.match")

COMPLETED = "completed"
VOID = "void"


@dataclass
class BotEntry:
    """One seat-holder, one of three kinds:

    * ``command``: a local process the runner starts (ARENA_ADDRESS/ARENA_TOKEN in its env);
    * ``policy``: a built-in policy played in-process (no network), e.g. as a reference;
    * ``remote=True``: a bot started elsewhere that connects with ``token``;
    * ``image``: a Docker image, run sandboxed in a container per match (runtime/docker.py).

    ``token`` fixes the token for a command bot too (random otherwise); ``env`` adds
    environment variables for a command bot; ``share`` lists host paths a command bot may
    write (everything else it sees read-only where it is sandboxed: runtime/sandbox.py).
    """

    name: str
    command: str | None = None
    policy: str | None = None
    remote: bool = False
    image: str | None = None
    token: str | None = None
    cwd: str | None = None
    env: dict[str, str] | None = None
    share: list[str] | None = None

    def __post_init__(self) -> None:
        kinds = (
            (self.command is not None)
            + (self.policy is not None)
            + self.remote
            + (self.image is not None)
        )
        if kinds != 1:
            raise ValueError(
                f"bot {self.name!r}: give exactly one of command, policy, image or remote"
            )
        if self.remote and not self.token:
            raise ValueError(f"remote bot {self.name!r} needs a token")


@dataclass
class MatchSpec:
    bots: list[BotEntry]  # one per seat
    games: int = 1
    # the match's deal seed: every game's deal and bot seed derive from it with a keyed
    # function (arena.seeds). None: a fresh secret, so nobody can predict a card; give a
    # number only for a reproducible run (anyone who knows it can predict every deal).
    seed: int | None = None
    variant: str = "base"
    brutal: bool = False
    target_score: int = 200
    rotate: bool = True  # game i seats bot (s + i) % n at seat s
    concurrency: int = 16
    faults: FaultPolicy = field(default_factory=FaultPolicy)
    match_id: str = ""
    record_latency: bool = False
    # scripted games (compliance checks, tests): game i draws stacks[i] first
    stacks: list[list[str]] | None = None
    single_round: bool = False
    # compliance checks: drop each bot's stream once, after it has given this many answers
    kick_after_answers: int | None = None
    # resource limits for container bots (runtime/docker.py ContainerLimits; None: defaults)
    container_limits: Any = None
    # resource limits for process bots (runtime/sandbox.py ProcessLimits; None: defaults)
    process_limits: Any = None

    def __post_init__(self) -> None:
        if self.seed is None:
            self.seed = fresh_match_seed()

    @property
    def seats(self) -> int:
        return len(self.bots)

    def seating(self, index: int) -> list[int]:
        """Which bot (index into ``bots``) sits at each seat in game ``index``."""
        n = self.seats
        shift = index % n if self.rotate else 0
        return [(s + shift) % n for s in range(n)]

    def game_seed(self, index: int) -> int:
        """The deal of game ``index``."""
        assert self.seed is not None
        return game_seed(self.seed, index)

    def bot_seed(self, index: int, seat: int) -> int:
        """The seed for the randomness of the bot at ``seat`` in game ``index``."""
        assert self.seed is not None
        return bot_seed(self.seed, index, seat)


@dataclass
class GameRecord:
    index: int
    game_id: str
    seed: int
    seating: list[str]  # bot name at each seat
    status: str = COMPLETED
    ranks: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    rounds: int = 0
    decisions: int = 0
    choices: list[int] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    asked: list[tuple[int, str]] = field(default_factory=list)  # (seat, kind) sent to bots

    def as_dict(self, events: bool = True) -> dict[str, Any]:
        d = {
            "index": self.index,
            "game_id": self.game_id,
            "seed": self.seed,
            "seating": self.seating,
            "status": self.status,
            "ranks": self.ranks,
            "totals": self.totals,
            "winners": self.winners,
            "rounds": self.rounds,
            "decisions": self.decisions,
            "faults": [f.as_dict() for f in self.faults],
        }
        if events:
            d["events"] = self.events
        return d


@dataclass
class MatchResult:
    spec: MatchSpec
    games: list[GameRecord]
    seconds: float
    logs: dict[str, str] = field(default_factory=dict)  # bot name -> captured output
    latencies: list[float] = field(default_factory=list)
    play_seconds: float = 0.0  # from every bot being ready to the last game's end

    @property
    def decisions(self) -> int:
        return sum(g.decisions for g in self.games)

    def seat_summary(self) -> list[dict[str, Any]]:
        """Per bot: wins (shared wins split), mean total, faults by kind."""
        rows = []
        for entry in self.spec.bots:
            wins = 0.0
            totals = []
            faults: dict[str, int] = {}
            for g in self.games:
                for seat, name in enumerate(g.seating):
                    if name != entry.name:
                        continue
                    if g.status == COMPLETED:
                        totals.append(g.totals[seat])
                        if seat in g.winners:
                            wins += 1 / len(g.winners)
                    for f in g.faults:
                        if f.seat == seat:
                            faults[str(f.kind)] = faults.get(str(f.kind), 0) + 1
            rows.append(
                {
                    "bot": entry.name,
                    "wins": round(wins, 4),
                    "mean_total": round(sum(totals) / len(totals), 3) if totals else 0.0,
                    "faults": faults,
                }
            )
        return rows


def default_option(d: Decision) -> int:
    """The safe default: STAY where legal, else the first option."""
    if d.kind == "HIT_OR_STAY" and STAY in d.options:
        return d.options.index(STAY)
    return 0


@dataclass
class _Seat:
    seat: int
    bot: int
    name: str
    link: BotLink | None
    policy: Callable[[Any, Decision], int] | None
    bank: float
    strikes: int = 0
    forfeit: bool = False
    heard: int = 0  # events already sent to this seat


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
        shared_links: dict[str, BotLink] | None = None,
    ) -> None:
        """``games_semaphore`` bounds games at once across several matches (tournaments);
        ``shared_links`` are links of remote bots that live longer than this match (by bot
        name): they are used as they are and not closed at the end."""
        if not 1 <= spec.seats <= 18:
            raise ValueError(f"a table has 1 to 18 seats, got {spec.seats}")
        names = [b.name for b in spec.bots]
        if len(set(names)) != len(names):
            raise ValueError("bot names in a match must be unique")
        self.spec = spec
        self.gateway = gateway
        self.progress = progress
        self.rules = get_ruleset(spec.variant, brutal=spec.brutal, target_score=spec.target_score)
        self.rules_msg = ruleset_pb(self.rules)
        self.match_id = spec.match_id or uuid.uuid4().hex[:12]
        self.links: list[BotLink | None] = [None] * spec.seats
        self.procs: list[Any] = [None] * spec.seats  # ProcessBot or ContainerBot
        self.done = 0
        self.games_semaphore = games_semaphore
        self.shared_links = shared_links or {}

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
        try:
            await self._start_bots()
            t_ready = time.perf_counter()
            sem = self.games_semaphore or asyncio.Semaphore(max(1, self.spec.concurrency))
            records: list[GameRecord] = []
            indices = iter(range(self.spec.games))  # shared: each index goes to one worker

            async def worker() -> None:
                for i in indices:
                    records.append(await self._play_when_free(i, sem))
                    self.done += 1
                    if self.progress is not None:
                        self.progress(self.done, self.spec.games)

            n_workers = max(1, min(self.spec.concurrency, self.spec.games))
            await _all_or_none([worker() for _ in range(n_workers)])
            records.sort(key=lambda r: r.index)
            games = records
            play_seconds = time.perf_counter() - t_ready
        finally:
            logs = await self._stop_bots()
            if own_gateway:
                assert self.gateway is not None
                await self.gateway.stop()
                if tmp is not None:
                    tmp.cleanup()
        latencies: list[float] = []
        for link in self.links:
            if link is not None:
                latencies.extend(link.stats.latencies)
        return MatchResult(
            self.spec, games, time.perf_counter() - t0, logs, latencies, play_seconds
        )

    # ------------------------------------------------------------ bots
    async def _start_bots(self) -> None:
        gw = self.gateway
        assert gw is not None
        if any(e.image for e in self.spec.bots):
            from arena.runtime.docker import reap_stale_containers_async

            await reap_stale_containers_async()  # containers of an arena that was killed
        starts = []
        for i, entry in enumerate(self.spec.bots):
            if entry.policy is not None:
                continue
            shared = self.shared_links.get(entry.name)
            if shared is not None:
                self.links[i] = shared
                if not shared.connected.is_set():
                    starts.append(self._await_remote(shared))
                continue
            token, link = gw.register(entry.name, entry.token)
            link.record_latency = self.spec.record_latency
            link.reconnect_grace = self.spec.faults.reconnect_grace  # a shared gateway too
            link.kick_after_answers = self.spec.kick_after_answers
            self.links[i] = link
            if entry.remote:
                starts.append(self._await_remote(link))
                continue
            if entry.image is not None:
                from arena.runtime.docker import ContainerBot

                proc: Any = ContainerBot(
                    entry.name,
                    entry.image,
                    limits=self.spec.container_limits,
                    labels={"flip7-arena.match": self.match_id},
                )
            else:
                proc = ProcessBot(
                    entry.name,
                    entry.command or "",
                    cwd=entry.cwd,
                    env=entry.env,
                    limits=self.spec.process_limits,
                    share=entry.share or (),
                )
            self.procs[i] = proc
            starts.append(self._start_one(proc, link, token))
        await asyncio.gather(*starts)

    async def _await_remote(self, link: BotLink) -> None:
        try:
            await asyncio.wait_for(link.connected.wait(), self.spec.faults.start_timeout)
        except TimeoutError:
            _fail_to_connect(
                link, f"remote bot did not connect within {self.spec.faults.start_timeout:g} s"
            )

    async def _start_one(self, proc: ProcessBot, link: BotLink, token: str) -> None:
        gw = self.gateway
        assert gw is not None

        gone = asyncio.Event()  # the process exited: no point waiting for it to connect

        def exited(p: ProcessBot, code: int) -> None:
            link.fail(
                FaultKind.CRASH if link.ever_connected else FaultKind.INIT_FAIL,
                f"bot {p.describe_exit()}",
            )
            gone.set()

        try:
            await proc.start(gw.address, token, on_exit=exited)
        except OSError as e:
            if descriptors.is_exhaustion(e) or descriptors.short():  # the arena's own shortage
                link.fail(FaultKind.INFRA, f"the arena ran out of file descriptors: {e}")
            else:
                link.fail(FaultKind.INIT_FAIL, str(e))
            return
        waiters = {
            asyncio.create_task(link.connected.wait()),
            asyncio.create_task(gone.wait()),
        }
        try:
            done, _ = await asyncio.wait(
                waiters, timeout=self.spec.faults.start_timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if not done:
                _fail_to_connect(
                    link, f"did not connect within {self.spec.faults.start_timeout:g} s"
                )
        finally:
            for w in waiters:
                w.cancel()
        if link.gone is not None and not link.ever_connected:
            # it exited or never said hello: make sure the process is gone
            await proc.stop(0.5)

    async def _stop_bots(self) -> dict[str, str]:
        logs: dict[str, str] = {}
        gw = self.gateway
        for link in self.links:
            if link is not None and gw is not None and not link.persistent:
                gw.unregister(link)
        stops = [p.stop() for p in self.procs if p is not None]
        await asyncio.gather(*stops, return_exceptions=True)
        for entry, p in zip(self.spec.bots, self.procs, strict=True):
            if p is not None:
                logs[entry.name] = p.log.text()
        return logs

    # ------------------------------------------------------------ one game
    async def _play_when_free(self, index: int, sem: asyncio.Semaphore) -> GameRecord:
        """Play game ``index`` once each of its bots' links has a free game slot and the
        arena has room for one more game. Link slots are taken first, in a fixed order, and
        the arena's slot last, so that games waiting for a busy bot hold nothing others need."""
        links = sorted({id(lk): lk for lk in self.links if lk is not None}.values(), key=_order)
        taken: list[BotLink] = []
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
        spec = self.spec
        seed = spec.game_seed(index)
        seating = spec.seating(index)
        game_id = f"{self.match_id}-{index}"
        rec = GameRecord(index, game_id, seed, [spec.bots[b].name for b in seating])
        try:
            await self._referee(rec, seating)
        except BotGone as e:  # a link the arena itself could not serve (INFRA)
            log.warning("game %s void: %s", game_id, e.detail)
            rec.status = VOID
            rec.faults.append(Fault(FaultKind.INFRA, None, None, e.detail))
        except Exception as e:  # the arena's own failure: void the game, blame nobody
            log.exception("game %s failed", game_id)
            rec.status = VOID
            rec.faults.append(Fault(FaultKind.INFRA, None, None, f"{type(e).__name__}: {e}"))
        return rec

    async def _referee(self, rec: GameRecord, seating: list[int]) -> None:
        spec = self.spec
        pol_cfg = spec.faults
        seats: list[_Seat] = []
        for s, b in enumerate(seating):
            entry = spec.bots[b]
            policy = None
            if entry.policy is not None:
                policy = make_policy(entry.policy, spec.bot_seed(rec.index, s))
            seats.append(_Seat(s, b, entry.name, self.links[b], policy, pol_cfg.time_bank))
        ask_forced = any(st.link is not None and st.link.want_forced for st in seats)
        rules = self.rules.with_options(auto_single=False) if ask_forced else self.rules
        stack = spec.stacks[rec.index] if spec.stacks else None
        game = Game(rules, spec.seats, rec.seed, stack=stack, single_round=spec.single_round)
        requests = RequestEncoder(game, rec.game_id, self.rules_msg)

        def events_for(st: _Seat) -> list[pb.Event]:
            """The events this seat has not heard yet (for GameEnd)."""
            out = [event_pb(e) for e in game.events[st.heard :]]
            st.heard = len(game.events)
            return out

        names = rec.seating
        for st in seats:
            if st.link is not None:
                if st.link.gone is not None:
                    if st.link.gone.kind == FaultKind.INFRA:
                        raise BotGone(FaultKind.INFRA, st.link.gone.detail)
                    self._forfeit(rec, st, st.link.gone.kind, st.link.gone.detail, game.round)
                    continue
                st.link.send(
                    pb.ArenaMessage(
                        game_start=pb.GameStart(
                            game_id=rec.game_id,
                            seat=st.seat,
                            seats=spec.seats,
                            ruleset=self.rules_msg,
                            seat_names=names,
                            deadline_ms=int(pol_cfg.deadline * 1000),
                            time_bank_ms=int(pol_cfg.time_bank * 1000),
                            bot_seed=spec.bot_seed(rec.index, st.seat),
                        )
                    )
                )
        decisions = 0
        while not game.over:
            d = game.decision
            assert d is not None
            st = seats[d.seat]
            if st.forfeit:
                idx = default_option(d)
            elif st.policy is not None:
                idx = st.policy(game, d)
            elif len(d.options) == 1 and not (st.link is not None and st.link.want_forced):
                idx = 0
            else:
                rec.asked.append((d.seat, d.kind))
                idx = await self._ask(rec, game, d, st, requests)
                decisions += 1
            game.step(idx)
        rec.decisions = decisions
        rec.rounds = game.round
        rec.totals = [p.total for p in game.players]
        rec.choices = list(game.choices)
        rec.events = [event_dict(e) for e in game.events]
        rec.ranks, rec.winners = _final_ranks(rec.totals, [st.forfeit for st in seats])
        for st in seats:
            if st.link is not None:
                st.link.send(
                    pb.ArenaMessage(
                        game_end=pb.GameEnd(
                            game_id=rec.game_id,
                            totals=rec.totals,
                            ranks=rec.ranks,
                            winners=rec.winners,
                            rounds=rec.rounds,
                            # the game is over and its deal is its own (keyed seeds):
                            # revealing it cannot help predict another game
                            seed=rec.seed,
                            events=events_for(st),
                            faults=[
                                pb.Fault(
                                    kind=pb.FaultKind.Value(str(f.kind)),
                                    seat=f.seat or 0,
                                    detail=f.detail,
                                    forfeit=f.forfeit,
                                )
                                for f in rec.faults
                                if f.seat is not None
                            ],
                            status=rec.status,
                        )
                    )
                )

    async def _ask(
        self, rec: GameRecord, game: Game, d: Decision, st: _Seat, requests: RequestEncoder
    ) -> int:
        link = st.link
        assert link is not None
        deadline = self.spec.faults.deadline
        rid = link.next_request_id()
        msg = requests.encode(
            rid, d, KIND_TO_PB[d.kind], st.heard, int(deadline * 1000), int(st.bank * 1000)
        )
        st.heard = len(game.events)
        t0 = time.perf_counter()
        try:
            idx = await link.request(rid, msg, len(d.options), deadline + st.bank)
        except TimeoutError:
            st.bank = 0.0
            self._strike(
                rec,
                st,
                FaultKind.TIMEOUT,
                f"no answer to {d.kind} within {deadline:g} s + time bank",
                game.round,
            )
            return default_option(d)
        except IllegalAnswer as e:
            self._spend(st, time.perf_counter() - t0)
            self._strike(rec, st, FaultKind.ILLEGAL, f"{d.kind}: {e}", game.round)
            return default_option(d)
        except BotGone as e:
            if e.kind == FaultKind.INFRA:
                raise  # the arena's failure, not the bot's: the game is void
            self._forfeit(rec, st, e.kind, e.detail, game.round)
            return default_option(d)
        self._spend(st, time.perf_counter() - t0)
        return idx

    def _spend(self, st: _Seat, elapsed: float) -> None:
        over = elapsed - self.spec.faults.deadline
        if over > 0:
            st.bank = max(0.0, st.bank - over)

    def _strike(self, rec: GameRecord, st: _Seat, kind: FaultKind, detail: str, rnd: int) -> None:
        st.strikes += 1
        forfeit = st.strikes >= self.spec.faults.max_strikes
        rec.faults.append(Fault(kind, st.seat, st.name, detail, forfeit, rnd))
        if forfeit:
            st.forfeit = True

    def _forfeit(self, rec: GameRecord, st: _Seat, kind: FaultKind, detail: str, rnd: int) -> None:
        st.forfeit = True
        rec.faults.append(Fault(kind, st.seat, st.name, detail, True, rnd))


async def _all_or_none(coros: list[Any]) -> None:
    """Run ``coros`` as tasks until all are done; if one fails (or this is cancelled),
    cancel the others, wait for them, and raise that failure as it is."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for t in done:
        if not t.cancelled() and t.exception() is not None:
            raise t.exception()  # type: ignore[misc]


def _order(link: BotLink) -> int:
    return link.order


def _fail_to_connect(link: BotLink, detail: str) -> None:
    """A bot that did not connect in time: its fault, unless the arena was out of file
    descriptors (then it may never have been able to accept the connection)."""
    if descriptors.short():
        link.fail(FaultKind.INFRA, f"{detail}: the arena was out of file descriptors")
    else:
        link.fail(FaultKind.INIT_FAIL, detail)


def _final_ranks(totals: list[int], forfeits: list[bool]) -> tuple[list[int], list[int]]:
    """Ranks by total (ties share); forfeited seats rank last (sharing among themselves)."""
    playing = [t for t, f in zip(totals, forfeits, strict=True) if not f]
    n_playing = len(playing)
    ranks = []
    for t, f in zip(totals, forfeits, strict=True):
        if f:
            ranks.append(n_playing + 1)
        else:
            ranks.append(1 + sum(1 for u in playing if u > t))
    winners = [s for s, r in enumerate(ranks) if r == 1]
    return ranks, winners


async def run_match(
    spec: MatchSpec,
    gateway: Gateway | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> MatchResult:
    """Play a match; starts a private Unix-socket gateway unless one is given."""
    return await MatchRunner(spec, gateway, progress).run()
