"""The Node.js example bot (bots/examples/node): it builds, passes the protocol compliance
suite (both variants, every decision kind, 16 games at once, a dropped stream) and plays a
match against the Python example bots without a fault.

The build needs Node.js >= 18 and npm. Locally the tests skip when they are missing; under
CI (CI=true) a missing toolchain or a failed build fails the run.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.check import run_checks
from arena.match import BotEntry, MatchSpec, run_match

ROOT = Path(__file__).resolve().parents[2]
BOT_DIR = ROOT / "bots" / "examples" / "node"
RUN = BOT_DIR / "run.sh"
PY_BOTS = ROOT / "bots" / "examples" / "python"
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
TOOLCHAIN_MISSING = 3  # build.sh's exit status when node/npm are absent or node is too old


def _unavailable(message: str) -> None:
    if UNDER_CI:
        pytest.fail(f"{message} (CI must build and test the Node bot)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def node_bot() -> str:
    """Runs build.sh once per session; returns the bot's command."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        _unavailable(f"{' and '.join(missing)} not found: cannot build the Node bot")
    proc = subprocess.run(
        ["bash", str(BOT_DIR / "build.sh")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = f"--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    if proc.returncode == TOOLCHAIN_MISSING:
        _unavailable(f"no usable Node.js toolchain:\n{output}")
    if proc.returncode != 0:
        pytest.fail(f"bots/examples/node/build.sh failed (exit {proc.returncode}):\n{output}")
    return str(RUN)


@pytest.mark.timeout(600)
def test_node_bot_passes_the_compliance_suite(node_bot: str) -> None:
    checks = asyncio.run(run_checks(node_bot))
    failed = [c for c in checks if not c.ok]
    for c in checks:
        print(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
    assert not failed, "failed checks:\n" + "\n".join(f"{c.name}: {c.detail}" for c in failed)
    assert {c.name for c in checks} >= {"connects", "survives a reconnect", "many games at once"}


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "brutal"), [("base", False), ("vengeance", True)])
def test_node_bot_plays_python_bots(node_bot: str, variant: str, brutal: bool) -> None:
    py = sys.executable
    spec = MatchSpec(
        bots=[
            BotEntry("node", command=node_bot, cwd=str(ROOT)),
            BotEntry("ev", command=f"{py} {PY_BOTS / 'ev' / 'bot.py'}", cwd=str(ROOT)),
            BotEntry(
                "threshold", command=f"{py} {PY_BOTS / 'threshold' / 'bot.py'}", cwd=str(ROOT)
            ),
        ],
        games=6,
        seed=7,
        variant=variant,
        brutal=brutal,
        concurrency=3,
    )
    result = asyncio.run(run_match(spec))
    faults = [
        f"{g.game_id} seat {f.seat}: {f.kind} {f.detail}" for g in result.games for f in g.faults
    ]
    assert not faults, (
        "faults:\n"
        + "\n".join(faults)
        + "\n--- node bot log ---\n"
        + str(result.logs.get("node", ""))
    )
    assert len(result.games) == 6
    assert all(g.status == "completed" for g in result.games)
    # every game was played to the end, and the node bot took part in each
    assert all(max(g.totals) >= 200 for g in result.games)
    assert all("node" in g.seating for g in result.games)
    assert result.decisions > 0
