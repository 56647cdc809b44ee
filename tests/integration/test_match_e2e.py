"""End to end over real sockets with real bot processes: the network must not change the
outcome. The three example bots play on TCP and on a Unix socket, in both variants; every
game must equal the same game played in-process with the same seeds and policies."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from arena.bots import Command, Policy
from arena.gateway.server import Gateway
from arena.match import BotEntry, MatchResult, MatchSpec, run_match

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "bots" / "examples" / "python"
BOTS = [("random", "random", []), ("threshold", "threshold:23", ["23"]), ("ev", "ev", [])]


def network_spec(variant: str, brutal: bool = False) -> MatchSpec:
    bots = [
        BotEntry(name, Command(" ".join([sys.executable, str(EXAMPLES / name / "bot.py"), *args])))
        for name, _, args in BOTS
    ]
    return MatchSpec(bots=bots, games=6, seed=11, variant=variant, brutal=brutal, concurrency=6)


def reference_spec(variant: str, brutal: bool = False) -> MatchSpec:
    bots = [BotEntry(name, Policy(policy)) for name, policy, _ in BOTS]
    return MatchSpec(bots=bots, games=6, seed=11, variant=variant, brutal=brutal)


def assert_same_games(net: MatchResult, ref: MatchResult) -> None:
    assert len(net.games) == len(ref.games) == 6
    for a, b in zip(net.games, ref.games, strict=True):
        assert a.status == "completed" and not a.faults, a.faults
        assert a.seating == b.seating
        assert a.choices == b.choices
        assert a.events == b.events
        assert (a.totals, a.ranks, a.winners) == (b.totals, b.ranks, b.winners)
    assert net.decisions > 100  # real round trips happened


@pytest.mark.parametrize("variant", ["base", "vengeance"])
@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_network_match_equals_in_process_play(variant: str, transport: str, tmp_path: Path) -> None:
    async def main() -> MatchResult:
        if transport == "tcp":
            gw = Gateway(tcp="127.0.0.1:0")
        else:
            gw = Gateway(tcp=None, unix=tmp_path / "arena.sock")
        async with gw:
            assert gw.address.startswith("unix://" if transport == "unix" else "127.0.0.1:")
            return await run_match(network_spec(variant), gateway=gw)

    net = asyncio.run(main())
    ref = asyncio.run(run_match(reference_spec(variant)))
    assert_same_games(net, ref)


def test_brutal_vengeance_over_the_network_equals_in_process_play() -> None:
    net = asyncio.run(run_match(network_spec("vengeance", brutal=True)))
    ref = asyncio.run(run_match(reference_spec("vengeance", brutal=True)))
    assert_same_games(net, ref)


def test_seat_rotation_puts_every_bot_in_every_seat_equally() -> None:
    spec = reference_spec("base")
    counts = {(b, s): 0 for b in range(3) for s in range(3)}
    for i in range(spec.games):
        for seat, bot in enumerate(spec.seating(i)):
            counts[(bot, seat)] += 1
    assert set(counts.values()) == {2}
