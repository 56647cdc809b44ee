"""The Go example bot (bots/examples/go): it builds offline from Debian packages, its own
tests pass, it passes the protocol compliance suite (both variants, every decision kind, 16
games at once in real multi-request batches, a dropped stream), answers a scripted arena's
batch in one message (and one request per message when batches are turned off), and plays
matches against the Python example bots without a fault, 16 games at once among them.

The build needs golang-go, protobuf-compiler, protoc-gen-go, protoc-gen-go-grpc,
golang-google-grpc-dev, golang-google-protobuf-dev and golang-github-golang-protobuf-1-5-dev.
Locally the tests skip when that toolchain is missing; under CI (CI=true) a missing
toolchain or a failed build fails the run.
"""

from __future__ import annotations

import pytest
from kit import (
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


@pytest.fixture(scope="session")
def go_bot() -> str:
    return build("go")


@pytest.mark.timeout(600)
def test_go_unit_tests(go_bot: str) -> None:
    """go vet and the bot's own tests (rules model, legal and fast answers, a batch answered
    in one message, a panic reported)."""
    proc = run_build("go", "test")
    assert proc.returncode == 0, f"build.sh test failed:\n{build_output(proc)}"
    assert "go test: ok" in proc.stdout


@pytest.mark.timeout(600)
def test_go_bot_passes_the_compliance_suite(go_bot: str) -> None:
    checks = passes_checks(go_bot)
    assert {
        "connects",
        "answers legally",
        "many games at once",
        "survives a reconnect",
    } <= checks.keys()
    assert checks.keys() >= {"takes batches", "its code does not fail"}
    assert largest_batch(checks) > 1


@pytest.mark.timeout(120)
def test_go_bot_answers_a_batch_in_one_message(go_bot: str) -> None:
    assert_batch_answered_in_one_message(scripted(go_bot, batches=True))


@pytest.mark.timeout(120)
def test_go_bot_without_batches_answers_one_request_per_message(go_bot: str) -> None:
    assert_one_answer_per_request(scripted(go_bot, batches=False))


@pytest.mark.timeout(600)
def test_go_bot_plays_16_games_at_once_against_python_bots(go_bot: str) -> None:
    result = plays_16_games_at_once("go", go_bot, seed=13)
    assert all(max(g.totals) >= 200 for g in result.games)


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "brutal"), [("base", False), ("vengeance", True)])
def test_go_bot_plays_python_bots(go_bot: str, variant: str, brutal: bool) -> None:
    result = play_python_bots("go", go_bot, variant=variant, brutal=brutal, seed=7)
    assert all(len(g.totals) == 3 and "go" in g.seating for g in result.games)
    assert all(max(g.totals) >= 200 for g in result.games)
    assert result.decisions > 0
