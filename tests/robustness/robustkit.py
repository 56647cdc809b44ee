"""Helpers of the robustness suite: hostile bots against the real arena.

Every test here plays real bot processes (tests/robustness/bots/ and tests/bots/) over real
gRPC sockets (or runs the arena in a child process when it must change the arena's own
limits), names the attack it tries and asserts what the arena does about it. The isolation
tests need bubblewrap: without it they are skipped, except under CI (CI=true), where they
fail.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hostkit import UNDER_CI

from arena.bots import Command
from arena.faults import FaultPolicy
from arena.match import BotEntry, MatchResult, MatchSpec, run_match
from arena.runtime import sandbox

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BOTS = HERE / "bots"
EXAMPLES = ROOT / "bots" / "examples" / "python"
TEST_BOTS = ROOT / "tests" / "bots"
# bots here answer in milliseconds: a loaded machine never comes near these limits
POLICY = FaultPolicy(
    deadline=1.0, time_bank=5.0, max_strikes=3, start_timeout=30.0, reconnect_grace=2.0
)
MATCH_TIMEOUT = 180.0  # a hung match fails its test instead of hanging it


def need_mode(mode: str) -> sandbox.Sandbox:
    """The sandbox ``mode``, or skip (bubblewrap under CI: fail) where it is unavailable."""
    try:
        return sandbox.detect(mode)
    except Exception as e:
        if mode == "bwrap" and UNDER_CI:
            pytest.fail(f"{e} (CI must test the process bots' sandbox: install bubblewrap)")
        pytest.skip(str(e))


def marker() -> str:
    """A number no other process on this machine has on its command line."""
    return str(random.randrange(10**9, 4 * 10**9))


def processes_with(mark: str) -> list[int]:
    """Live processes that have ``mark`` as one of their command-line arguments."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
            with open(f"/proc/{name}/stat", "rb") as f:
                state = f.read().rpartition(b")")[2].split()[0]
        except OSError:
            continue
        if mark.encode() in args and state != b"Z":
            out.append(int(name))
    return out


def _entry(name: str, path: Path, args: tuple[str, ...], log: Path | None, env: dict[str, str]):  # type: ignore[no-untyped-def]
    share = []
    if log is not None:
        log.touch()
        log.chmod(0o666)  # the bot may run as a user of its own
        env["BOT_LOG"] = str(log)
        share.append(str(log))
    command = " ".join([sys.executable, str(path), *args])
    return BotEntry(name, Command(command, env=env, share=tuple(share)))


def bot(name: str, script: str, *args: str, log: Path | None = None, **env: str) -> BotEntry:
    """A bot from tests/robustness/bots; ``log`` is the one host file it may write."""
    return _entry(name, BOTS / script, args, log, env)


def script_bot(name: str, script: str, log: Path | None = None, **env: str) -> BotEntry:
    """A deliberately broken bot from tests/bots (see tests/bots/botkit.py)."""
    return _entry(name, TEST_BOTS / script, (), log, env)


def example(name: str, *args: str) -> BotEntry:
    """One of the Python example bots."""
    cmd = f"{sys.executable} {EXAMPLES / name / 'bot.py'}"
    return BotEntry(name, Command(" ".join([cmd, *args])))


def player(name: str, *args: str) -> BotEntry:
    return bot(name, "player.py", *args)


def notes(log: Path) -> list[dict[str, Any]]:
    """What a test bot noted in its BOT_LOG (see tests/bots/botkit.py)."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def play(spec: MatchSpec) -> MatchResult:
    return asyncio.run(asyncio.wait_for(run_match(spec), MATCH_TIMEOUT))


def match(*bots: BotEntry, games: int = 2, **kw: Any) -> MatchSpec:
    return MatchSpec(bots=list(bots), games=games, seed=11, faults=POLICY, **kw)


def faults_of(result: MatchResult, name: str) -> list[Any]:
    return [f for g in result.games for f in g.faults if f.bot == name]


def open_dir(path: Path) -> Path:
    """A folder any user may read, as an operator's usually is (pytest's are private; the
    sandbox shows a bot only this folder, not its private parents)."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o755)
    return path


def games_in_flight_peak(log: Path) -> int:
    """Most games a bot had started and not yet seen end, from its game_start/game_end
    notes (the stream delivers them in the order the arena sent them)."""
    live: set[str] = set()
    peak = 0
    for n in notes(log):
        if n["event"] == "game_start":
            live.add(n["game_id"])
            peak = max(peak, len(live))
        elif n["event"] == "game_end":
            live.discard(n["game_id"])
    return peak


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by the nearest-rank method."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


def assert_clean(result: MatchResult) -> None:
    """Every game completed, and nobody has a fault."""
    for g in result.games:
        assert g.status == "completed", (g.status, g.faults, result.logs)
        assert g.faults == [], (g.faults, result.logs)
