"""The protocol compliance suite behind ``arena bot check``.

It plays scripted games (stacked decks) that put every decision kind of both variants in
front of the bot, then a burst of concurrent games, then a match in which the arena drops
the bot's stream once. Each check says what it saw.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass
class Check:
    name: str
    ok: bool
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


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
    """The check's instrument for the reconnect check: each bot link it is given drops its
    stream once, right after the bot's ``answers``-th answer."""

    def install(link: BotLink) -> None:
        answer = link.on_answer

        def on_answer(msg: pb.Answer) -> None:
            before = link.stats.answers
            answer(msg)
            if before < answers <= link.stats.answers:
                asyncio.get_running_loop().call_soon(link.kick)

        # the check's own instrument on this one link: wrap its answer handler
        link.on_answer = on_answer  # type: ignore[method-assign,assignment]

    return install


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
    reconnect = await run_match(
        MatchSpec(
            bots=_entries(bot, [None, "threshold:23"]),
            games=6,
            seed=seed + 200,
            concurrency=2,
            faults=FaultPolicy(
                deadline=deadline, time_bank=deadline, max_strikes=1_000, reconnect_grace=5.0
            ),
        ),
        on_link=kick_after(5),
    )
    everything = [r for _, r in results] + [burst, reconnect]
    return _judge(results, burst, reconnect, everything, deadline, concurrent_games)


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
        )
    )
    return checks
