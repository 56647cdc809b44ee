"""The C++ example bot (bots/examples/cpp): it builds from Debian packages, passes the
protocol compliance suite (both variants, every decision kind, 16 games at once in real
multi-request batches, a dropped stream), answers a scripted arena's batch in one message
(and one request per message when batches are turned off), and plays matches against the
Python example bots without a fault, 16 games at once among them.

The build needs g++, cmake, make, pkg-config, libgrpc++-dev, libprotobuf-dev,
protobuf-compiler and protobuf-compiler-grpc. Locally the tests skip when the toolchain is
missing; under CI (CI=true) a missing toolchain or a failed build fails the run.
"""

from __future__ import annotations

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


@pytest.fixture(scope="session")
def cpp_bot() -> str:
    return build("cpp")


@pytest.mark.timeout(600)
def test_cpp_bot_passes_the_compliance_suite(cpp_bot: str) -> None:
    checks = passes_checks(cpp_bot)
    assert checks.keys() >= {"connects", "survives a reconnect", "many games at once"}
    assert checks.keys() >= {"takes batches", "its code does not fail"}
    assert largest_batch(checks) > 1


@pytest.mark.timeout(120)
def test_cpp_bot_answers_a_batch_in_one_message(cpp_bot: str) -> None:
    assert_batch_answered_in_one_message(scripted(cpp_bot, batches=True))


@pytest.mark.timeout(120)
def test_cpp_bot_without_batches_answers_one_request_per_message(cpp_bot: str) -> None:
    assert_one_answer_per_request(scripted(cpp_bot, batches=False))


@pytest.mark.timeout(600)
def test_cpp_bot_plays_16_games_at_once_against_python_bots(cpp_bot: str) -> None:
    result = plays_16_games_at_once("cpp", cpp_bot, seed=13)
    assert all(max(g.totals) >= 200 for g in result.games)


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "brutal"), [("base", False), ("vengeance", True)])
def test_cpp_bot_plays_python_bots(cpp_bot: str, variant: str, brutal: bool) -> None:
    result = play_python_bots("cpp", cpp_bot, variant=variant, brutal=brutal, seed=11)
    assert all(max(g.totals) >= 200 for g in result.games)
    assert result.decisions > 0
    assert all(len(g.totals) == 3 and "cpp" in g.seating for g in result.games)
