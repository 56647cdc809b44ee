"""The Java example bot (bots/examples/java): builds offline from Debian packages (its
self-test included), passes the protocol compliance suite (16 games at once in real
multi-request batches among it), answers a scripted arena's batch in one message (and one
request per message when batches are turned off), and plays matches against the Python bots
over a Unix socket and over TCP, 16 games at once among them.

Needs: default-jdk-headless, protobuf-compiler, protobuf-compiler-grpc-java-plugin,
libgrpc-java, libprotobuf-java, libnetty-java, libperfmark-java, libguava-java. Without them
the tests skip locally; under CI (CI=true) a missing toolchain or a failed build fails.
"""

from __future__ import annotations

import asyncio
import os

import pytest
from kit import (
    assert_batch_answered_in_one_message,
    assert_one_answer_per_request,
    build,
    largest_batch,
    passes_checks,
    play_python_bots,
    plays_16_games_at_once,
    scripted,
)

from arena.bots import Command, Policy
from arena.gateway.server import Gateway
from arena.match import BotEntry, MatchSpec, run_match


@pytest.fixture(scope="session")
def java_bot() -> str:
    return build("java")


def test_java_bot_passes_compliance_suite(java_bot: str) -> None:
    checks = passes_checks(java_bot)
    assert checks.keys() >= {"takes batches", "its code does not fail", "many games at once"}
    assert largest_batch(checks) > 1


def test_java_bot_answers_a_batch_in_one_message(java_bot: str) -> None:
    assert_batch_answered_in_one_message(scripted(java_bot, batches=True))


def test_java_bot_without_batches_answers_one_request_per_message(java_bot: str) -> None:
    assert_one_answer_per_request(scripted(java_bot, batches=False))


def test_java_bot_plays_16_games_at_once_against_python_bots(java_bot: str) -> None:
    result = plays_16_games_at_once("java", java_bot, seed=13)
    assert all(max(g.totals) >= 200 for g in result.games)


@pytest.mark.parametrize("variant", ["base", "vengeance"])
def test_java_bot_plays_python_bots(java_bot: str, variant: str) -> None:
    result = play_python_bots("java", java_bot, variant=variant, seed=11, concurrency=6)
    assert sum(g.decisions for g in result.games) > 0
    java = next(r for r in result.seat_summary() if r["bot"] == "java")
    assert java["mean_total"] > 0


def test_java_bot_over_tcp(java_bot: str) -> None:
    """ARENA_ADDRESS may be host:port as well as a Unix socket."""

    async def play() -> tuple[str, object]:
        gateway = Gateway(tcp="127.0.0.1:0", unix=None)
        await gateway.start()
        try:
            spec = MatchSpec(
                bots=[BotEntry("java", Command(java_bot)), BotEntry("ev", Policy("ev"))],
                games=3,
                seed=5,
                variant="vengeance",
            )
            return gateway.address, await run_match(spec, gateway)
        finally:
            await gateway.stop()

    address, result = asyncio.run(play())
    assert not address.startswith("unix:")
    faults = [f"{g.game_id}: {f.kind} {f.detail}" for g in result.games for f in g.faults]
    assert not faults, faults
    assert all(g.status == "completed" for g in result.games)


def test_java_bot_exits_on_refusal(java_bot: str) -> None:
    """A wrong token is fatal: the bot exits non-zero at once instead of retrying."""

    async def refused() -> tuple[int | None, str]:
        gateway = Gateway(tcp="127.0.0.1:0", unix=None)
        await gateway.start()
        try:
            env = {**os.environ, "ARENA_ADDRESS": gateway.address, "ARENA_TOKEN": "not-a-token"}
            proc = await asyncio.create_subprocess_exec(
                java_bot,
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            out, _ = await asyncio.wait_for(proc.communicate(), 30)
            return proc.returncode, out.decode(errors="replace")
        finally:
            await gateway.stop()

    code, out = asyncio.run(refused())
    assert code not in (0, None), out
    assert "BAD_TOKEN" in out, out
