"""The Java example bot (bots/examples/java): builds offline from Debian packages, passes the
protocol compliance suite, and plays matches against the Python bots over a Unix socket and
over TCP.

Needs: default-jdk-headless, protobuf-compiler, protobuf-compiler-grpc-java-plugin,
libgrpc-java, libprotobuf-java, libnetty-java, libperfmark-java, libguava-java. Without them
the tests skip locally; under CI (CI=true) a missing toolchain or a failed build fails.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.check import run_checks
from arena.gateway.server import Gateway
from arena.match import BotEntry, MatchSpec, run_match

ROOT = Path(__file__).resolve().parents[2]
BOT_DIR = ROOT / "bots/examples/java"
RUN = BOT_DIR / "run.sh"
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
TOOLS = ("java", "javac", "jar", "protoc")
PLUGIN = "/usr/bin/grpc_java_plugin"


def _unavailable(why: str) -> None:
    if UNDER_CI:
        pytest.fail(f"Java bot: {why}")
    pytest.skip(f"Java bot: {why}")


@pytest.fixture(scope="session")
def java_bot() -> str:
    """Builds the bot once per session (build.sh is idempotent) and returns its command."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if not (shutil.which("grpc_java_plugin") or Path(PLUGIN).exists()):
        missing.append("grpc_java_plugin")
    if missing:
        _unavailable(f"missing {', '.join(missing)} (see bots/examples/java/README.md)")
    proc = subprocess.run(
        ["bash", str(BOT_DIR / "build.sh")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        _unavailable(f"build.sh failed:\n{proc.stdout}\n{proc.stderr}")
    return str(RUN)


def _python_bot(name: str) -> str:
    return f"python {ROOT / 'bots/examples/python' / name / 'bot.py'}"


def test_java_bot_passes_compliance_suite(java_bot: str) -> None:
    checks = asyncio.run(run_checks(java_bot))
    failed = [c for c in checks if not c.ok]
    for c in checks:
        print(f"{'ok ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
    assert not failed, "; ".join(f"{c.name}: {c.detail}" for c in failed)


@pytest.mark.parametrize("variant", ["base", "vengeance"])
def test_java_bot_plays_python_bots(java_bot: str, variant: str) -> None:
    spec = MatchSpec(
        bots=[
            BotEntry("java", command=java_bot),
            BotEntry("py-ev", command=_python_bot("ev")),
            BotEntry("py-threshold", command=_python_bot("threshold")),
        ],
        games=6,
        seed=11,
        variant=variant,
        concurrency=6,
    )
    result = asyncio.run(run_match(spec))
    faults = [f"{g.game_id}: {f.kind} {f.detail}" for g in result.games for f in g.faults]
    assert not faults, f"{faults}\njava log:\n{result.logs.get('java', '')[-3000:]}"
    assert all(g.status == "completed" for g in result.games)
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
                bots=[BotEntry("java", command=java_bot), BotEntry("ev", policy="ev")],
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
