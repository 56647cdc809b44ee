"""The C++ example bot (bots/examples/cpp): it builds from Debian packages, passes the
protocol compliance suite (both variants, every decision kind, 16 games at once, a dropped
stream) and plays matches against the Python example bots without a fault.

The build needs g++, cmake, make, pkg-config, libgrpc++-dev, libprotobuf-dev,
protobuf-compiler and protobuf-compiler-grpc. Locally the tests skip when the toolchain is
missing; under CI (CI=true) a missing toolchain or a failed build fails the run.
"""

from __future__ import annotations

import pytest
from kit import build, check_names, play_python_bots


@pytest.fixture(scope="session")
def cpp_bot() -> str:
    return build("cpp")


@pytest.mark.timeout(600)
def test_cpp_bot_passes_the_compliance_suite(cpp_bot: str) -> None:
    names = check_names(cpp_bot)
    assert names >= {"connects", "survives a reconnect", "many games at once"}


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "brutal"), [("base", False), ("vengeance", True)])
def test_cpp_bot_plays_python_bots(cpp_bot: str, variant: str, brutal: bool) -> None:
    result = play_python_bots("cpp", cpp_bot, variant=variant, brutal=brutal, seed=11)
    assert all(max(g.totals) >= 200 for g in result.games)
    assert result.decisions > 0
    assert all(len(g.totals) == 3 and "cpp" in g.seating for g in result.games)
