"""The Node.js example bot (bots/examples/node): it builds, passes the protocol compliance
suite (both variants, every decision kind, 16 games at once, a dropped stream) and plays a
match against the Python example bots without a fault.

The build needs Node.js >= 18 and npm. Locally the tests skip when they are missing; under
CI (CI=true) a missing toolchain or a failed build fails the run.
"""

from __future__ import annotations

import pytest
from kit import build, check_names, play_python_bots


@pytest.fixture(scope="session")
def node_bot() -> str:
    return build("node")


@pytest.mark.timeout(600)
def test_node_bot_passes_the_compliance_suite(node_bot: str) -> None:
    names = check_names(node_bot)
    assert names >= {"connects", "survives a reconnect", "many games at once"}


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
