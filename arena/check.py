"""The protocol compliance suite behind ``arena bot check``.

It plays scripted games (stacked decks) that put every decision kind of both variants in
front of the bot, then a burst of concurrent games, then a match in which the arena drops
the bot's stream once with requests pending and refuses its first returns with
ALREADY_CONNECTED. Each check says what it saw; a failed check names the rule the bot broke
and the section of docs/protocol.md that states it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena import limits
from arena.bots import BotSource, Command, Image, Policy
from arena.faults import FaultKind, FaultPolicy
from arena.gateway.link import BotLink
from arena.match import BotEntry, MatchResult, MatchSpec, run_match
from arena.protocol import pb
from arena.status import GameStatus
from engine import DECISION_KINDS

OPPONENT = "threshold:0"  # stays at its first chance: keeps scripted draws in order

# the reconnect rules (docs/protocol.md): the drop comes with the check's N-th request, the
# first REFUSED returns hear ALREADY_CONNECTED, and the bot has GRACE seconds to come back
DROP_AT_REQUEST = 5
REFUSED_RETURNS = 2
RECONNECT_GRACE = 5.0
PROTOCOL_DOC = "docs/protocol.md"
RULE_RECONNECT = f"{PROTOCOL_DOC}#reconnecting"
RULE_ALREADY_CONNECTED = f"{PROTOCOL_DOC}#already-connected"
RULE_GRACE = f"{PROTOCOL_DOC}#the-grace-period"


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    rule: str = ""  # where the rule it checks is stated (a section of docs/protocol.md)

    def __post_init__(self) -> None:
        if not self.ok and self.rule:
            self.detail = f"{self.detail} (rule: {self.rule})"

    def as_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "ok": self.ok, "detail": self.detail}
        if self.rule:
            out["rule"] = self.rule
        return out


@dataclass
class Scenario:
    title: str
    variant: str
    brutal: bool
    seats: list[str | None]  # None = the bot under test, else a built-in policy spec
    stacks: list[list[str]]
    single_round: bool = True
    games_per_stack: int = 1


def scenarios() -> list[Scenario]:
    base_f3 = ["FLIP_THREE", "SECOND_CHANCE", "SECOND_CHANCE", "3"]
    # the opponent freezes itself; the bot, alone, chains three Flip Threes into Flip 7
    flip7 = ["FREEZE", "FLIP_THREE", "0", "1", "FLIP_THREE", "2", "3", "FLIP_THREE"]
    flip7 += ["4", "5", "6"]
    return [
        # whoever is targeted (always the bot) keeps one Second Chance and gives the other
        Scenario("base targets and Second Chance", "base", False, [None] * 4, [base_f3]),
        Scenario(
            "vengeance modifiers and actions",
            "vengeance",
            False,
            [None] * 4,
            [
                ["5", "7", "9", "-4"],  # the dealer gives a modifier
                ["5", "7", "STEAL"],  # seat 3 steals
                ["5", "7", "DISCARD"],  # seat 3 discards
                ["5", "7", "9", "SWAP"],  # the dealer swaps
                ["JUST_ONE_MORE", "5", "7"],  # seat 1 targets
                ["FLIP_FOUR", "5", "7", "9", "11"],
            ],
        ),
        Scenario("Brutal Flip 7 choice", "base", True, [None, OPPONENT], [flip7]),
        Scenario(
            "full vengeance game",
            "vengeance",
            True,
            [None, "ev", "threshold:20"],
            [[]],
            single_round=False,
        ),
        Scenario("full base game", "base", False, [None, "ev"], [[]], single_round=False),
    ]


def _entries(bot: BotSource, seats: list[str | None]) -> list[BotEntry]:
    out = []
    for i, s in enumerate(seats):
        if s is None:
            out.append(BotEntry(f"bot@{i}", bot))
        else:
            out.append(BotEntry(f"{s}@{i}", Policy(s)))
    return out


def kick_after(answers: int) -> Callable[[BotLink], None]:
    """An instrument for tests: each bot link it is given drops its stream once, right
    after the bot's ``answers``-th answer."""

    def install(link: BotLink) -> None:
        answer = link.on_answer

        def on_answer(msg: pb.Answer) -> None:
            before = link.stats.answers
            answer(msg)
            if before < answers <= link.stats.answers:
                asyncio.get_running_loop().call_soon(link.kick)

        # the instrument on this one link: wrap its answer handler
        link.on_answer = on_answer  # type: ignore[method-assign,assignment]

    return install


@dataclass
class DropProbe:
    """The check's instrument for the reconnect rules, on the bot's link: the stream is
    dropped as the ``at_request``-th request is issued (so that it and any other unanswered
    request are pending: they must come back on the new stream), and the first ``refuse``
    hellos after the drop are answered ALREADY_CONNECTED, as if the old stream were still
    live. It notes what the bot did."""

    at_request: int = DROP_AT_REQUEST
    refuse: int = REFUSED_RETURNS
    link: BotLink | None = None
    dropped_at: float | None = None  # loop time of the drop
    pending: frozenset[int] = frozenset()  # request ids pending when it dropped
    answered: set[int] = field(default_factory=set)  # of those, answered since
    hellos: list[tuple[float, str]] = field(default_factory=list)  # after the drop
    # the link's failure after the drop: the bot exited (CRASH, then restarted by the arena
    # -- not a reconnect) or the grace period ran out (DISCONNECT)
    failed: tuple[float, str] | None = None

    def install(self, link: BotLink) -> None:
        if self.link is not None:
            return  # one bot under test
        self.link = link
        request = link.request
        answer = link.on_answer

        def on_request(rid: int, msg: bytes, n: int, timeout: float) -> asyncio.Future[int]:
            fut = request(rid, msg, n, timeout)
            if self.dropped_at is None and link.stats.requests >= self.at_request:
                self.dropped_at = asyncio.get_running_loop().time()
                self.pending = frozenset(link.pending)
                link.refuse_next = self.refuse
                link.kick()  # the request is queued, not yet written: it stays pending
            return fut

        def on_answer(msg: pb.Answer) -> None:
            if msg.request_id in self.pending:
                self.answered.add(msg.request_id)
            answer(msg)

        def on_hello(outcome: str) -> None:
            if self.dropped_at is not None:
                self.hellos.append((asyncio.get_running_loop().time() - self.dropped_at, outcome))

        fail = link.fail

        def on_fail(kind: FaultKind, detail: str) -> None:
            if self.dropped_at is not None and self.failed is None and link.gone is None:
                now = asyncio.get_running_loop().time()
                self.failed = (now - self.dropped_at, f"{kind}: {detail}")
            fail(kind, detail)

        link.fail = on_fail  # type: ignore[method-assign]
        link.request = on_request  # type: ignore[method-assign,assignment]
        link.on_answer = on_answer  # type: ignore[method-assign,assignment]
        link.on_hello = on_hello

    def judge(self, grace: float) -> list[Check]:
        """The three reconnect rules, each judged on its own: the bot came back within the
        grace period; it retried ALREADY_CONNECTED; it answered the requests sent again."""
        if self.dropped_at is None:
            why = f"not reached: the bot was sent fewer than {self.at_request} requests"
            return [
                Check("reconnects within the grace period", False, why, RULE_GRACE),
                Check("retries ALREADY_CONNECTED", False, why, RULE_ALREADY_CONNECTED),
                Check("answers the requests sent again", False, why, RULE_RECONNECT),
            ]
        pending = len(self.pending)
        # a return counts until the link failed: a hello after that is a restarted bot's
        # (it exited) or one back too late
        until = min(grace, self.failed[0]) if self.failed is not None else grace
        tries = [(t, what) for t, what in self.hellos if t <= until]
        back = [t for t, what in tries if what == "welcome"]
        refused = sum(1 for _, what in tries if what == "already_connected")
        rule = RULE_GRACE
        if tries:
            came = f"it returned after {tries[0][0]:.2f} s"
        elif self.failed is not None and self.failed[0] < grace:
            rule = RULE_RECONNECT
            came = (
                f"instead of reconnecting, the bot ended ({self.failed[1]}); the games it was "
                "playing were lost"
            )
        else:
            came = "it was not back in time: its seats forfeited their games as DISCONNECT"
        checks = [
            Check(
                "reconnects within the grace period",
                bool(tries),
                f"the arena dropped the stream with {pending} request(s) pending; {came} "
                f"(grace {grace:g} s)",
                rule,
            )
        ]
        if not tries:
            checks.append(
                Check(
                    "retries ALREADY_CONNECTED",
                    False,
                    "not reached: the bot did not come back",
                    RULE_ALREADY_CONNECTED,
                )
            )
        else:
            checks.append(
                Check(
                    "retries ALREADY_CONNECTED",
                    bool(back) and refused >= self.refuse,
                    f"refused {refused} time(s) with ALREADY_CONNECTED, it tried again and was "
                    f"welcomed after {back[0]:.2f} s"
                    if back and refused >= self.refuse
                    else f"refused {refused} time(s) with ALREADY_CONNECTED, it gave up "
                    "instead of trying again"
                    + (f" ({self.failed[1]})" if self.failed is not None else ""),
                    RULE_ALREADY_CONNECTED,
                )
            )
        unanswered = sorted(self.pending - self.answered)
        if not back:
            checks.append(
                Check(
                    "answers the requests sent again",
                    False,
                    "not reached: the bot was not welcomed back",
                    RULE_RECONNECT,
                )
            )
        else:
            checks.append(
                Check(
                    "answers the requests sent again",
                    not unanswered,
                    f"the {pending} pending request(s) came again on the new stream with "
                    f"their ids and were answered"
                    if not unanswered
                    else f"request(s) {', '.join(map(str, unanswered))} came again on the new "
                    f"stream with their original ids and were never answered",
                    RULE_RECONNECT,
                )
            )
        return checks


async def _scenario(bot: BotSource, sc: Scenario, faults: FaultPolicy, seed: int) -> MatchResult:
    stacks = [st for st in sc.stacks for _ in range(sc.games_per_stack)]
    spec = MatchSpec(
        bots=_entries(bot, sc.seats),
        games=len(stacks),
        seed=seed,
        variant=sc.variant,
        brutal=sc.brutal,
        rotate=False,
        concurrency=1,
        faults=faults,
        stacks=stacks,
        single_round=sc.single_round,
        record_latency=True,
    )
    return await run_match(spec)


async def run_checks(
    bot: BotSource,
    *,
    deadline: float = limits.DEFAULT_DEADLINE,
    concurrent_games: int = 16,
    seed: int = 1,
    progress: Callable[[str], None] | None = None,
) -> list[Check]:
    """Run the compliance suite against a bot (a command or a Docker image); returns one
    Check per property."""
    if not isinstance(bot, Command | Image):
        raise ValueError("the compliance suite starts the bot: give a command or an image")
    faults = FaultPolicy(deadline=deadline, time_bank=deadline, max_strikes=1_000, start_timeout=20)
    say = progress or (lambda msg: None)
    results: list[tuple[str, MatchResult]] = []
    for i, sc in enumerate(scenarios()):
        say(f"scripted games: {sc.title}")
        results.append((sc.title, await _scenario(bot, sc, faults, seed + i)))

    say(f"{concurrent_games} games at once")
    burst = await run_match(
        MatchSpec(
            bots=_entries(bot, [None, "ev", "random"]),
            games=concurrent_games,
            seed=seed + 100,
            variant="vengeance",
            concurrency=concurrent_games,
            faults=faults,
            record_latency=True,
        )
    )
    say("a dropped stream")
    reconnect, probe = await run_reconnect(bot, deadline=deadline, seed=seed + 200)
    everything = [r for _, r in results] + [burst, reconnect]
    checks = _judge(results, burst, reconnect, everything, deadline, concurrent_games)
    return checks + probe.judge(RECONNECT_GRACE)


async def run_reconnect(
    bot: BotSource, *, deadline: float = limits.DEFAULT_DEADLINE, seed: int = 201
) -> tuple[MatchResult, DropProbe]:
    """The reconnect part of the suite alone: a match of six games, two at a time, in
    which the arena drops the bot's stream with requests pending and refuses its first
    returns with ALREADY_CONNECTED. The time bank covers the grace period: a bot that is
    back in time has time to answer what it is sent again."""
    probe = DropProbe()
    result = await run_match(
        MatchSpec(
            bots=_entries(bot, [None, "threshold:23"]),
            games=6,
            seed=seed,
            concurrency=2,
            faults=FaultPolicy(
                deadline=deadline,
                time_bank=deadline + RECONNECT_GRACE,
                max_strikes=1_000,
                reconnect_grace=RECONNECT_GRACE,
            ),
        ),
        on_link=probe.install,
    )
    return result, probe


async def check_reconnects(
    bot: BotSource, *, deadline: float = limits.DEFAULT_DEADLINE
) -> list[Check]:
    """Only the reconnect rules (the last part of :func:`run_checks`)."""
    _, probe = await run_reconnect(bot, deadline=deadline)
    return probe.judge(RECONNECT_GRACE)


def _faults(results: list[MatchResult], kind: FaultKind) -> list[str]:
    return [
        f"{g.game_id} seat {f.seat}: {f.detail}"
        for r in results
        for g in r.games
        for f in g.faults
        if f.kind == kind
    ]


def _judge(
    scripted: list[tuple[str, MatchResult]],
    burst: MatchResult,
    reconnect: MatchResult,
    everything: list[MatchResult],
    deadline: float,
    concurrent_games: int,
) -> list[Check]:
    checks: list[Check] = []
    init = _faults(everything, FaultKind.INIT_FAIL)
    crash = _faults(everything, FaultKind.CRASH)
    answered = sum(g.decisions for r in everything for g in r.games)
    checks.append(
        Check(
            "connects",
            not init,
            init[0] if init else f"connected and said hello in {len(everything)} matches",
        )
    )
    checks.append(Check("stays up", not crash, crash[0] if crash else "never crashed"))
    timeouts = _faults(everything, FaultKind.TIMEOUT)
    lat = sorted(x for r in everything for x in r.latencies)
    p99 = lat[int(0.99 * (len(lat) - 1))] * 1000 if lat else 0.0
    checks.append(
        Check(
            "answers in time",
            not timeouts and answered > 0,
            timeouts[0]
            if timeouts
            else f"{answered} answers, p99 {p99:.1f} ms (deadline {deadline * 1000:.0f} ms)",
        )
    )
    illegal = _faults(everything, FaultKind.ILLEGAL)
    checks.append(
        Check(
            "answers legally",
            not illegal and answered > 0,
            illegal[0] if illegal else f"{answered} legal answers",
        )
    )
    errors = _faults(everything, FaultKind.BOT_ERROR)
    checks.append(
        Check(
            "its code does not fail",
            not errors and answered > 0,
            f"{len(errors)} error(s), first: {errors[0]}" if errors else "no error reported",
        )
    )
    kinds: Counter[str] = Counter()
    for r in everything:
        for g in r.games:
            for _seat, kind in g.asked:
                kinds[kind] += 1
    for kind in DECISION_KINDS:
        n = kinds.get(kind, 0)
        checks.append(
            Check(
                f"decision {kind}",
                n > 0,
                f"answered {n}" if n else "never reached (the bot's own choices avoided it)",
            )
        )
    done = [g for g in burst.games if g.status == GameStatus.COMPLETED and not g.faults]
    checks.append(
        Check(
            "many games at once",
            len(done) == concurrent_games,
            f"{len(done)}/{concurrent_games} games played concurrently without a fault",
        )
    )
    st = next((s for name, s in burst.link_stats.items() if name.startswith("bot@")), None)
    if st is None or not st["takes_batches"]:
        checks.append(
            Check("takes batches", True, "asks for one request per message (batches are optional)")
        )
    else:
        ok = st["largest_batch"] > 1 and len(done) == concurrent_games
        checks.append(
            Check(
                "takes batches",
                ok,
                f"{st['batched_requests']} requests in {st['batches']} batches (up to "
                f"{st['largest_batch']} at once), every one answered in time and legally"
                if ok
                else f"asked for batches but {concurrent_games - len(done)} of the "
                f"concurrent games had faults (largest batch {st['largest_batch']})",
            )
        )
    lost = [f for g in reconnect.games for f in g.faults]
    complete = all(g.status == GameStatus.COMPLETED for g in reconnect.games)
    checks.append(
        Check(
            "survives a reconnect",
            not lost and complete,
            f"{lost[0].kind}: {lost[0].detail}"
            if lost
            else "the arena dropped the stream; the bot came back and finished every game",
            RULE_RECONNECT,
        )
    )
    return checks
