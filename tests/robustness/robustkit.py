"""Helpers of the robustness suite: hostile bots against the real arena.

Every test here plays real bot processes (tests/robustness/bots/) over real gRPC and
asserts what the arena did about the attack. The isolation tests need bubblewrap: without
it they are skipped, except under CI (CI=true), where they fail.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.faults import FaultPolicy
from arena.match import BotEntry, MatchResult, MatchSpec, run_match
from arena.runtime import sandbox

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
POLICY = FaultPolicy(deadline=0.5, time_bank=2.0, max_strikes=3, start_timeout=30.0)
MATCH_TIMEOUT = 120.0  # a hung match fails the test instead of hanging it


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


def bot(name: str, script: str, *args: str, log: Path | None = None, **env: str) -> BotEntry:
    """A bot from tests/robustness/bots; ``log`` is the one host file it may write."""
    share = []
    if log is not None:
        log.touch()
        log.chmod(0o666)  # the bot may run as a user of its own
        env["BOT_LOG"] = str(log)
        share.append(str(log))
    command = " ".join([sys.executable, str(BOTS / script), *args])
    return BotEntry(name, command=command, env=env or None, share=share)


def player(name: str, *args: str) -> BotEntry:
    return bot(name, "player.py", *args)


def notes(log: Path) -> list[dict[str, Any]]:
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
