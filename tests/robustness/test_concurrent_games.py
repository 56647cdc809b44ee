"""A bot asks, in its hello, to play at most N games at once (``max_concurrent_games``).

Before, the arena ignored it (a bot that asked for one game at a time got 16). Now a game
waits for a free slot on each of its bots' links, so the bot never has more games in flight
than it asked for, in a match and in a tournament where one link of a remote bot serves
every match. The bot is slow on purpose, so that games would overlap if they could; what
it counts is what it was sent (game starts and ends, in stream order).
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from robustkit import (
    POLICY,
    ROOT,
    assert_clean,
    example,
    games_in_flight_peak,
    notes,
    script_bot,
)
from sqlmodel import Session, create_engine, select

from arena.bots import Policy, Remote
from arena.match import BotEntry, MatchSpec, run_match
from arena.registry import add_bot
from arena.store.models import Game
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

pytestmark = pytest.mark.timeout(300)

GAMES = 8


@pytest.mark.parametrize("asked", [1, 3, 0])
def test_a_bot_asking_for_n_games_at_once_never_gets_more(sock_dir: Path, asked: int) -> None:
    log = sock_dir / "paced.jsonl"
    spec = MatchSpec(
        bots=[
            script_bot("paced", "paced.py", log, MAX_GAMES=str(asked)),
            example("threshold", "21"),
            BotEntry("random", Policy("random")),
        ],
        games=GAMES,
        seed=11,
        concurrency=16,
        faults=POLICY,
    )
    result = asyncio.run(asyncio.wait_for(run_match(spec), 180))
    assert_clean(result)
    assert [g.index for g in result.games] == list(range(GAMES))
    peak = games_in_flight_peak(log)
    # every game started at once when the bot allows it, so the limit is what holds it back
    assert peak == (asked or GAMES), (asked, peak)
    started = [n for n in notes(log) if n["event"] == "game_start"]
    assert len(started) == GAMES


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_remote_bot_asking_for_one_game_gets_one_across_a_whole_tournament(
    db_url: str, sock_dir: Path
) -> None:
    """The remote bot's one link serves all its matches: every one of them honours it."""
    added = add_bot(db_url, "far", remote=True)
    assert added.token is not None
    port = free_port()
    entries = [EntrySpec("far", Remote(), bot_version_id=added.version.id)]
    entries += [EntrySpec(p, Policy(p)) for p in ("ev", "threshold:23", "random")]
    tid = create_tournament(
        TournamentConfig(
            format="swiss", entries=entries, seats=4, rounds=2, games=4, concurrency=16, seed=5
        ),
        db_url,
    )
    log = sock_dir / "far.jsonl"
    env = {
        **os.environ,
        "ARENA_ADDRESS": f"127.0.0.1:{port}",
        "ARENA_TOKEN": added.token,
        "BOT_LOG": str(log),
        "MAX_GAMES": "1",
    }
    bot = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "bots" / "paced.py")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        outcome = asyncio.run(run_tournament(db_url, tid, listen=f"127.0.0.1:{port}"))
        assert bot.wait(30) == 0, bot.stderr.read() if bot.stderr else ""
    finally:
        if bot.poll() is None:
            bot.kill()
    assert outcome.tournament.status == "completed"
    eng = create_engine(db_url)
    with Session(eng) as s:
        games = s.exec(select(Game).where(Game.tournament_id == tid)).all()
    eng.dispose()
    assert len(games) == 8
    assert all(g.status == "completed" and not g.faults for g in games)
    assert games_in_flight_peak(log) == 1
    assert len([n for n in notes(log) if n["event"] == "game_start"]) == 8
