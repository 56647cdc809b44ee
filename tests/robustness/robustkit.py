"""Shared by the robustness tests: bots to seat, what a test bot noted, small measures.

Every test here plays real bot processes over real gRPC sockets (or runs the arena in a
child process when it must change the arena's own limits), names the attack it tries and
asserts what the arena does about it.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from arena.faults import FaultPolicy
from arena.match import BotEntry, MatchResult

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "bots" / "examples" / "python"
TEST_BOTS = ROOT / "tests" / "bots"
HERE = Path(__file__).resolve().parent

# bots here answer in milliseconds: a loaded machine never comes near these limits
POLICY = FaultPolicy(
    deadline=1.0, time_bank=5.0, max_strikes=3, start_timeout=20.0, reconnect_grace=2.0
)
MATCH_TIMEOUT = 180.0  # a hung match fails its test instead of hanging it


def example(name: str, *args: str) -> BotEntry:
    cmd = f"{sys.executable} {EXAMPLES / name / 'bot.py'}"
    return BotEntry(name, command=" ".join([cmd, *args]))


def script_bot(name: str, script: str, log: Path | None = None, **env: str) -> BotEntry:
    if log is not None:
        env["BOT_LOG"] = str(log)
    return BotEntry(name, command=f"{sys.executable} {TEST_BOTS / script}", env=env)


def notes(log: Path) -> list[dict[str, Any]]:
    """What a test bot noted in its BOT_LOG (see tests/bots/botkit.py)."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


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
