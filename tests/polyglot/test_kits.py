"""The example bots in other languages (bots/examples/cpp, go, java, node and ruby), each built
once per session with its kit's build.sh: every one passes the protocol compliance suite
(both variants, every decision kind, 16 games at once in real multi-request batches, a
dropped stream), answers a scripted arena's batch in one message (and one request per
message when batches are turned off), and plays matches against the Python example bots
without a fault, 16 games at once among them. Then what only one kit has: the Go and Node
kits' own tests, and the Java bot over TCP and on a refused token.

The toolchain each kit needs is in its README (the Debian packages) and in ``LANGUAGES``
(tests/polyglot/kit.py: the tools checked before building). Locally a test skips when its
kit's toolchain is missing; under CI (CI=true) a missing toolchain or a failed build fails
the run.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from typing import NamedTuple

import pytest
from kit import (
    LANGUAGES,
    assert_batch_answered_in_one_message,
    assert_one_answer_per_request,
    build,
    build_output,
    largest_batch,
    passes_checks,
    play_python_bots,
    plays_16_games_at_once,
    run_build,
    scripted,
)

from arena.bots import Command, Policy
from arena.gateway.server import Gateway
from arena.match import BotEntry, MatchSpec, run_match

KITS = list(LANGUAGES)


class Bot(NamedTuple):
    kit: str  # a key of LANGUAGES, and the bot's name in the matches
    command: str


@pytest.fixture(scope="session", params=KITS, ids=KITS)
def bot(request: pytest.FixtureRequest) -> Bot:
    """A kit's bot, built once per session; a test of one kit only picks it with
    ``@pytest.mark.parametrize("bot", [kit], indirect=True)``."""
    return Bot(request.param, build(request.param))


@pytest.mark.timeout(600)
def test_bot_passes_the_compliance_suite(bot: Bot) -> None:
    checks = passes_checks(bot.command)
    assert {
        "connects",
        "answers legally",
        "many games at once",
        "survives a reconnect",
        "takes batches",
        "its code does not fail",
    } <= checks.keys()
    assert largest_batch(checks) > 1


@pytest.mark.timeout(120)
def test_bot_answers_a_batch_in_one_message(bot: Bot) -> None:
    assert_batch_answered_in_one_message(scripted(bot.command, batches=True))


@pytest.mark.timeout(120)
def test_bot_without_batches_answers_one_request_per_message(bot: Bot) -> None:
    assert_one_answer_per_request(scripted(bot.command, batches=False))


@pytest.mark.timeout(600)
def test_bot_plays_16_games_at_once_against_python_bots(bot: Bot) -> None:
    result = plays_16_games_at_once(bot.kit, bot.command, seed=13)
    assert all(max(g.totals) >= 200 for g in result.games)


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    ("variant", "brutal"),
    [("base", False), ("vengeance", False), ("vengeance", True)],
    ids=["base", "vengeance", "vengeance-brutal"],
)
def test_bot_plays_python_bots_to_the_end(bot: Bot, variant: str, brutal: bool) -> None:
    result = play_python_bots(
        bot.kit,
        bot.command,
        variant=variant,
        brutal=brutal,
        seed=11,
        concurrency=LANGUAGES[bot.kit].concurrency,
    )
    # every game was played to the end, with the bot in one of its three seats
    assert all(max(g.totals) >= 200 for g in result.games)
    assert all(len(g.totals) == 3 and bot.kit in g.seating for g in result.games)
    assert result.decisions > 0
    summary = next(r for r in result.seat_summary() if r["bot"] == bot.kit)
    assert summary["mean_total"] > 0, summary


@pytest.mark.timeout(600)
@pytest.mark.parametrize("bot", ["go"], indirect=True)
def test_go_bot_passes_go_vet_and_its_own_tests(bot: Bot) -> None:
    """``build.sh test``: go vet and the bot's own tests (rules model, legal and fast
    answers, a batch answered in one message, a panic reported)."""
    proc = run_build("go", "test")
    assert proc.returncode == 0, f"build.sh test failed:\n{build_output(proc)}"
    assert "go test: ok" in proc.stdout


@pytest.mark.timeout(120)
@pytest.mark.parametrize("bot", ["node"], indirect=True)
def test_node_bot_passes_its_own_tests(bot: Bot) -> None:
    """npm test: the strategy on hand-made requests, and bot.js's answers to batches, lone
    requests and a failing strategy."""
    proc = subprocess.run(
        ["node", "--test", "test/"],
        cwd=LANGUAGES["node"].folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout
    assert "ok 1 - a batch is answered in one message" in proc.stdout


@pytest.mark.parametrize("bot", ["java"], indirect=True)
def test_java_bot_plays_over_tcp(bot: Bot) -> None:
    """ARENA_ADDRESS may be host:port as well as a Unix socket."""

    async def play() -> tuple[str, object]:
        gateway = Gateway(tcp="127.0.0.1:0", unix=None)
        await gateway.start()
        try:
            spec = MatchSpec(
                bots=[BotEntry("java", Command(bot.command)), BotEntry("ev", Policy("ev"))],
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


@pytest.mark.parametrize("bot", ["java"], indirect=True)
def test_java_bot_exits_at_once_on_a_refused_token(bot: Bot) -> None:
    """A wrong token is fatal: the bot exits non-zero at once instead of retrying."""

    async def refused() -> tuple[int | None, str]:
        gateway = Gateway(tcp="127.0.0.1:0", unix=None)
        await gateway.start()
        try:
            env = {**os.environ, "ARENA_ADDRESS": gateway.address, "ARENA_TOKEN": "not-a-token"}
            proc = await asyncio.create_subprocess_exec(
                bot.command,
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
