"""Bots that stay up: a fleet starts each bot once for many games, restarts one that
crashes (only its games in flight get the fault), and after too many crashes it forfeits
the rest. Real bot processes over real gRPC."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from arena.bots import Command, Policy
from arena.faults import FaultPolicy
from arena.match import BotEntry, MatchResult, MatchSpec, run_match
from arena.match.fleet import DEFAULT_RESTARTS

ROOT = Path(__file__).resolve().parents[2]
POLICY = FaultPolicy(deadline=1.0, time_bank=5.0, max_strikes=3, start_timeout=20.0)


def crash_runs(log: Path, runs: int, after: int) -> BotEntry:
    log.touch()
    log.chmod(0o666)  # the bot may run as a user of its own
    env = {"BOT_LOG": str(log), "CRASH_RUNS": str(runs), "CRASH_AFTER": str(after)}
    cmd = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'crash_runs.py'}"
    return BotEntry("crashy", Command(cmd, env=env, share=(str(log),)))


def notes(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def play(bot: BotEntry, games: int, concurrency: int) -> MatchResult:
    spec = MatchSpec(
        bots=[bot, BotEntry("ev", Policy("ev"))],
        games=games,
        seed=4,
        concurrency=concurrency,
        faults=POLICY,
    )
    return asyncio.run(asyncio.wait_for(run_match(spec), 180))


def test_a_bot_that_crashes_is_restarted_and_only_its_game_in_flight_is_lost(
    tmp_path: Path,
) -> None:
    log = tmp_path / "crashy.jsonl"
    tmp_path.chmod(0o755)
    result = play(crash_runs(log, runs=1, after=6), games=6, concurrency=1)
    seen = notes(log)
    assert [n["run"] for n in seen if n["event"] == "start"] == [1, 2]  # restarted once
    crashed = {n["game_id"] for n in seen if n["event"] == "crash"}
    assert len(crashed) == 1
    for g in result.games:
        faults = [f for f in g.faults if f.bot == "crashy"]
        if g.game_id in crashed:
            assert [str(f.kind) for f in faults] == ["CRASH"] and faults[0].forfeit
            assert "exited with code 17" in faults[0].detail
        else:
            assert faults == [], (g.game_id, faults)  # every other game: clean
        assert g.status == "completed"
    assert "[the arena restarted the bot after: bot exited with code 17]" in result.logs["crashy"]


def test_a_bot_that_keeps_crashing_forfeits_the_rest_after_its_restarts(tmp_path: Path) -> None:
    log = tmp_path / "crashy.jsonl"
    tmp_path.chmod(0o755)
    runs = DEFAULT_RESTARTS + 1
    result = play(crash_runs(log, runs=100, after=2), games=runs + 3, concurrency=1)
    starts = [n for n in notes(log) if n["event"] == "start"]
    assert len(starts) == runs  # the first run and DEFAULT_RESTARTS restarts, no more
    lost = [g for g in result.games if any(f.bot == "crashy" for f in g.faults)]
    assert len(lost) == len(result.games)  # after the last crash: down for the rest
    last = [f for f in result.games[-1].faults if f.bot == "crashy"]
    assert last and last[0].forfeit and "no more" in last[0].detail, last


def test_a_bot_plays_every_game_of_a_match_on_one_process(tmp_path: Path) -> None:
    log = tmp_path / "crashy.jsonl"
    tmp_path.chmod(0o755)
    result = play(crash_runs(log, runs=0, after=0), games=12, concurrency=6)
    assert all(g.status == "completed" and not g.faults for g in result.games)
    assert [n["run"] for n in notes(log) if n["event"] == "start"] == [1]
