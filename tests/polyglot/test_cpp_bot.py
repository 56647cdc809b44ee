"""The C++ example bot (bots/examples/cpp): it builds from Debian packages, passes the
protocol compliance suite (both variants, every decision kind, 16 games at once, a dropped
stream) and plays matches against the Python example bots without a fault.

The build needs g++, cmake, make, pkg-config, libgrpc++-dev, libprotobuf-dev,
protobuf-compiler and protobuf-compiler-grpc. Locally the tests skip when the toolchain is
missing; under CI (CI=true) a missing toolchain or a failed build fails the run.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.check import run_checks
from arena.match import BotEntry, MatchSpec, run_match

ROOT = Path(__file__).resolve().parents[2]
BOT_DIR = ROOT / "bots" / "examples" / "cpp"
BINARY = BOT_DIR / "build" / "flip7-bot"
PY_BOTS = ROOT / "bots" / "examples" / "python"
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
TOOLS = ("g++", "cmake", "make", "pkg-config", "protoc", "grpc_cpp_plugin")
TOOLCHAIN_MISSING = 3  # build.sh's exit status when a tool or a -dev package is absent


def _unavailable(message: str) -> None:
    if UNDER_CI:
        pytest.fail(f"{message} (CI must build and test the C++ bot)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def cpp_bot() -> str:
    """Runs build.sh once per session; returns the bot's command (the binary)."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        _unavailable(f"{', '.join(missing)} not found: cannot build the C++ bot")
    proc = subprocess.run(
        ["bash", str(BOT_DIR / "build.sh")],
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = f"--- stdout ---\n{proc.stdout[-8000:]}\n--- stderr ---\n{proc.stderr[-8000:]}"
    if proc.returncode == TOOLCHAIN_MISSING:
        _unavailable(f"no usable C++ gRPC toolchain:\n{output}")
    if proc.returncode != 0:
        pytest.fail(f"bots/examples/cpp/build.sh failed (exit {proc.returncode}):\n{output}")
    assert BINARY.is_file() and os.access(BINARY, os.X_OK), f"build.sh did not make {BINARY}"
    return shlex.quote(str(BINARY))


@pytest.mark.timeout(600)
def test_cpp_bot_passes_the_compliance_suite(cpp_bot: str) -> None:
    checks = asyncio.run(run_checks(cpp_bot))
    failed = [c for c in checks if not c.ok]
    for c in checks:
        print(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
    assert not failed, "failed checks:\n" + "\n".join(f"{c.name}: {c.detail}" for c in failed)
    assert {c.name for c in checks} >= {"connects", "survives a reconnect", "many games at once"}


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "brutal"), [("base", False), ("vengeance", True)])
def test_cpp_bot_plays_python_bots(cpp_bot: str, variant: str, brutal: bool) -> None:
    py = shlex.quote(sys.executable)
    spec = MatchSpec(
        bots=[
            BotEntry("cpp", command=cpp_bot, cwd=str(ROOT)),
            BotEntry(
                "ev", command=f"{py} {shlex.quote(str(PY_BOTS / 'ev' / 'bot.py'))}", cwd=str(ROOT)
            ),
            BotEntry(
                "threshold",
                command=f"{py} {shlex.quote(str(PY_BOTS / 'threshold' / 'bot.py'))}",
                cwd=str(ROOT),
            ),
        ],
        games=6,
        seed=11,
        variant=variant,
        brutal=brutal,
    )
    result = asyncio.run(run_match(spec))
    faults = [
        f"{g.game_id} seat {f.seat}: {f.kind} {f.detail}" for g in result.games for f in g.faults
    ]
    assert not faults, "faults:\n" + "\n".join(faults) + f"\nbot output: {result.logs}"
    assert len(result.games) == 6
    assert all(g.status == "completed" for g in result.games), [g.status for g in result.games]
    assert all(max(g.totals) >= 200 for g in result.games)
    assert result.decisions > 0
    assert all(len(g.totals) == 3 and "cpp" in g.seating for g in result.games)
