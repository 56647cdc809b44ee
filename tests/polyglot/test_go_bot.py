"""The Go example bot (bots/examples/go): it builds offline from Debian packages, passes the
protocol compliance suite (both variants, every decision kind, 16 games at once, a dropped
stream) and plays a match against the Python example bots without a fault.

The build needs golang-go, protobuf-compiler, protoc-gen-go, protoc-gen-go-grpc,
golang-google-grpc-dev, golang-google-protobuf-dev and golang-github-golang-protobuf-1-5-dev.
Locally the tests skip when that toolchain is missing; under CI (CI=true) a missing
toolchain or a failed build fails the run.
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
GO_DIR = ROOT / "bots" / "examples" / "go"
BUILD_SH = GO_DIR / "build.sh"
BINARY = GO_DIR / "build" / "flip7-bot"
PY_BOTS = ROOT / "bots" / "examples" / "python"
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
NEEDED = ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")
NO_TOOLCHAIN = 3  # build.sh exits 3 when a tool or a Debian -dev package is missing


def _cannot_build(why: str) -> None:
    if UNDER_CI:
        pytest.fail(f"{why} (CI must build and test the Go bot)")
    pytest.skip(why)


def _run_build(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(BUILD_SH), *args], capture_output=True, text=True, timeout=900, cwd=ROOT
    )


def _output(proc: subprocess.CompletedProcess[str]) -> str:
    return f"--- stdout ---\n{proc.stdout[-6000:]}\n--- stderr ---\n{proc.stderr[-6000:]}"


@pytest.fixture(scope="session")
def go_bot() -> str:
    """Builds the bot once per test session; returns its command (the static binary)."""
    absent = [tool for tool in NEEDED if shutil.which(tool) is None]
    if absent:
        _cannot_build(f"{', '.join(absent)} not found: cannot build the Go bot")
    proc = _run_build()
    if proc.returncode == NO_TOOLCHAIN:
        _cannot_build(f"the Go gRPC toolchain is incomplete:\n{_output(proc)}")
    if proc.returncode != 0:
        pytest.fail(f"bots/examples/go/build.sh failed (exit {proc.returncode}):\n{_output(proc)}")
    assert BINARY.is_file() and os.access(BINARY, os.X_OK), f"build.sh did not make {BINARY}"
    return shlex.quote(str(BINARY))


@pytest.mark.timeout(600)
def test_go_unit_tests(go_bot: str) -> None:
    """go vet and the strategy's own tests (rules model, legal and fast answers)."""
    proc = _run_build("test")
    assert proc.returncode == 0, f"build.sh test failed:\n{_output(proc)}"
    assert "go test: ok" in proc.stdout


@pytest.mark.timeout(600)
def test_go_bot_passes_the_compliance_suite(go_bot: str) -> None:
    checks = asyncio.run(run_checks(go_bot))
    for c in checks:
        print(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
    failed = [c for c in checks if not c.ok]
    assert not failed, "failed checks:\n" + "\n".join(f"{c.name}: {c.detail}" for c in failed)
    names = {c.name for c in checks}
    assert {"connects", "answers legally", "many games at once", "survives a reconnect"} <= names


def _python_bot(name: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(PY_BOTS / name / 'bot.py'))}"


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "brutal"), [("base", False), ("vengeance", True)])
def test_go_bot_plays_python_bots(go_bot: str, variant: str, brutal: bool) -> None:
    spec = MatchSpec(
        bots=[
            BotEntry("go", command=go_bot, cwd=str(ROOT)),
            BotEntry("ev", command=_python_bot("ev"), cwd=str(ROOT)),
            BotEntry("threshold", command=_python_bot("threshold"), cwd=str(ROOT)),
        ],
        games=6,
        seed=7,
        variant=variant,
        brutal=brutal,
    )
    result = asyncio.run(run_match(spec))
    faults = [
        f"{g.game_id} seat {f.seat}: {f.kind} {f.detail}" for g in result.games for f in g.faults
    ]
    assert not faults, "faults:\n" + "\n".join(faults) + f"\nbot logs: {result.logs}"
    assert len(result.games) == 6
    assert all(g.status == "completed" for g in result.games), [g.status for g in result.games]
    assert all(len(g.totals) == 3 and "go" in g.seating for g in result.games)
    assert all(max(g.totals) >= 200 for g in result.games)
    assert result.decisions > 0
