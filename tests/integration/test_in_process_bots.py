"""A bot loaded into the arena's process plays exactly the games it plays over gRPC.

The same bot files, the same seeds: once as real processes over a real gRPC socket
(:func:`arena.match.run_match`), once loaded with :func:`arena.sdk.load.load_bot` and played
by :func:`arena.match.local.play_local`. Every game must have the same seating, choices,
events and results. The search example is in the table because its choices depend on
everything a request carries (its events, the unseen cards, the game's bot seed), so a
request that differed in-process would change its play.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from arena.bots import Command
from arena.match import BotEntry, MatchResult, MatchSpec, run_match
from arena.match.local import play_local
from arena.sdk.load import load_bot

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "bots" / "examples" / "python"
# (entry name, bot file, its arguments)
TABLE = [
    ("search", EXAMPLES / "search" / "bot.py", ["--playouts", "3"]),
    ("threshold", EXAMPLES / "threshold" / "bot.py", ["21"]),
    ("ev", EXAMPLES / "ev" / "bot.py", []),
]


def spec(variant: str, brutal: bool) -> MatchSpec:
    bots = [
        BotEntry(name, Command(" ".join([sys.executable, str(path), *args])))
        for name, path, args in TABLE
    ]
    return MatchSpec(bots=bots, games=3, seed=23, variant=variant, brutal=brutal, concurrency=3)


def loaded() -> dict:
    return {name: load_bot(path, None, args) for name, path, args in TABLE}


@pytest.mark.parametrize(
    ("variant", "brutal"), [("base", False), ("vengeance", False), ("vengeance", True)]
)
def test_in_process_games_equal_the_same_bots_over_grpc(variant: str, brutal: bool) -> None:
    net: MatchResult = asyncio.run(run_match(spec(variant, brutal)))
    local = play_local(spec(variant, brutal), loaded())
    assert len(net.games) == len(local.games) == 3
    for a, b in zip(net.games, local.games, strict=True):
        assert a.status == b.status == "completed"
        assert not a.faults and not b.faults, (a.faults, b.faults)
        assert a.seating == b.seating
        assert a.choices == b.choices
        assert a.events == b.events
        assert (a.totals, a.ranks, a.winners) == (b.totals, b.ranks, b.winners)
    assert local.decisions == net.decisions > 30  # the bots were asked, not the engine


def test_the_search_bot_answers_well_inside_the_deadline() -> None:
    """By time (its default), the search spends about a tenth of each request's deadline:
    over two games against ev no answer is late (no fault), and the typical answer takes
    a small share of the deadline (the bound leaves room for a loaded machine)."""
    import statistics
    import time

    from arena.bots import Policy
    from arena.faults import FaultPolicy

    bot = load_bot(EXAMPLES / "search" / "bot.py")
    times: list[float] = []
    choose = bot.bot.choose

    def timed(req):
        t0 = time.perf_counter()
        try:
            return choose(req)
        finally:
            times.append(time.perf_counter() - t0)

    bot.bot.choose = timed
    deadline = 0.5
    spec = MatchSpec(
        bots=[
            BotEntry("search", Command(f"{sys.executable} {EXAMPLES / 'search' / 'bot.py'}")),
            BotEntry("ev", Policy("ev")),
        ],
        games=2,
        seed=5,
        faults=FaultPolicy(deadline=deadline),
    )
    result = play_local(spec, {"search": bot})
    assert all(g.status == "completed" and not g.faults for g in result.games)
    assert len(times) > 20
    assert statistics.median(times) < 0.4 * deadline, sorted(times)
