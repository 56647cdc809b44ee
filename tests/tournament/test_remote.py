"""Remote bots: registered with a token (stored hashed), they connect over TCP by
themselves and stay connected across the matches of a tournament."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

from sqlmodel import Session, create_engine, select

from arena.bots import Policy, Remote
from arena.registry import add_bot
from arena.store.models import BotVersion, Game
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_remote_bot_plays_every_match_of_a_tournament_over_tcp(db_url: str) -> None:
    added = add_bot(db_url, "far", remote=True)
    assert added.token is not None
    eng = create_engine(db_url)
    with Session(eng) as s:
        stored = s.exec(select(BotVersion)).one()
        assert stored.token_hash and added.token not in stored.token_hash
    port = free_port()
    entries = [EntrySpec("far", Remote(), bot_version_id=added.version.id)]
    entries += [EntrySpec(p, Policy(p)) for p in ("ev", "threshold:23", "random")]
    tid = create_tournament(
        TournamentConfig(format="swiss", entries=entries, seats=4, rounds=2, games=2, seed=5),
        db_url,
    )
    env = {**os.environ, "ARENA_ADDRESS": f"127.0.0.1:{port}", "ARENA_TOKEN": added.token}
    bot = subprocess.Popen(
        [sys.executable, str(ROOT / "bots/examples/python/threshold/bot.py"), "22"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        outcome = asyncio.run(run_tournament(db_url, tid, listen=f"127.0.0.1:{port}"))
        # the arena said goodbye at the end: the bot leaves by itself
        assert bot.wait(30) == 0, bot.stderr.read() if bot.stderr else ""
    finally:
        if bot.poll() is None:
            bot.kill()
    assert outcome.tournament.status == "completed"
    with Session(eng) as s:
        games = s.exec(select(Game).where(Game.tournament_id == tid)).all()
    eng.dispose()
    assert len(games) == 4
    assert all(g.status == "completed" and not g.faults for g in games)
    assert all("far" in g.seating for g in games)
