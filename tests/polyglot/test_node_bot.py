"""The Node.js example bot (bots/examples/node): it builds, its own unit tests pass, it
passes the protocol compliance suite (both variants, every decision kind, 16 games at once
in real multi-request batches, a dropped stream), answers a scripted arena's batch in one
message (and one request per message when batches are turned off), and plays matches
against the Python example bots without a fault, 16 games at once among them.

The build needs Node.js >= 18 and npm. Locally the tests skip when they are missing; under
CI (CI=true) a missing toolchain or a failed build fails the run.
"""

from __future__ import annotations

import subprocess

import pytest
from kit import (
    LANGUAGES,
    assert_batch_answered_in_one_message,
    assert_one_answer_per_request,
    build,
    largest_batch,
    passes_checks,
    play_python_bots,
    plays_16_games_at_once,
    scripted,
)


@pytest.fixture(scope="session")
def node_bot() -> str:
    return build("node")


@pytest.mark.timeout(120)
def test_node_unit_tests(node_bot: str) -> None:
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


@pytest.mark.timeout(600)
def test_node_bot_passes_the_compliance_suite(node_bot: str) -> None:
    checks = passes_checks(node_bot)
    assert checks.keys() >= {"connects", "survives a reconnect", "many games at once"}
    assert checks.keys() >= {"takes batches", "its code does not fail"}
    assert largest_batch(checks) > 1


@pytest.mark.timeout(120)
def test_node_bot_answers_a_batch_in_one_message(node_bot: str) -> None:
    assert_batch_answered_in_one_message(scripted(node_bot, batches=True))


@pytest.mark.timeout(120)
def test_node_bot_without_batches_answers_one_request_per_message(node_bot: str) -> None:
    assert_one_answer_per_request(scripted(node_bot, batches=False))


@pytest.mark.timeout(600)
def test_node_bot_plays_16_games_at_once_against_python_bots(node_bot: str) -> None:
    result = plays_16_games_at_once("node", node_bot, seed=13)
    assert all(max(g.totals) >= 200 for g in result.games)


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "brutal"), [("base", False), ("vengeance", True)])
def test_node_bot_plays_python_bots(node_bot: str, variant: str, brutal: bool) -> None:
    result = play_python_bots(
        "node", node_bot, variant=variant, brutal=brutal, seed=7, concurrency=3
    )
    # every game was played to the end, and the node bot took part in each
    assert all(max(g.totals) >= 200 for g in result.games)
    assert all("node" in g.seating for g in result.games)
    assert result.decisions > 0
