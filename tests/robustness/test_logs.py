"""Attack on the record: a bot floods its log (300 KiB) before it crashes. The log keeps
its head and its tail, so the crash's traceback still reaches the fault record."""

from __future__ import annotations

import asyncio
import sys

import pytest
from robustkit import BOTS, bot, match, play, player
from sqlmodel import Session, select

from arena.bots import Command, Policy
from arena.store.db import dispose_all, get_engine
from arena.store.models import Game
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

pytestmark = pytest.mark.timeout(300)
LAST_WORDS = "RuntimeError: the chatty bot crashed at the end of its log"


def test_log_keeps_head_and_tail_of_300_kib_of_output() -> None:
    result = play(match(bot("chatty", "chatty_crash.py", CHATTER_KB="300"), player("p"), games=1))
    text = result.logs["chatty"]
    assert text.startswith("chatter chatter")
    assert "bytes not kept" in text
    assert text.rstrip().endswith(LAST_WORDS)
    assert len(text.encode()) < 260 * 1024


def test_crash_traceback_after_300_kib_of_output_reaches_the_fault_record(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    cfg = TournamentConfig(
        format="round-robin",
        entries=[
            EntrySpec("chatty", Command(f"{sys.executable} {BOTS / 'chatty_crash.py'}")),
            EntrySpec("ev", Policy("ev")),
        ],
        seats=2,
        games=1,
        seed=3,
    )
    tid = create_tournament(cfg, url)
    asyncio.run(asyncio.wait_for(run_tournament(url, tid), 240))
    with Session(get_engine(url)) as s:
        games = list(s.exec(select(Game).where(Game.tournament_id == tid)))
    dispose_all()
    faults = [f for g in games for f in g.faults]
    assert len(games) == 2 and len(faults) == 2
    for f in faults:
        assert f["kind"] == "CRASH" and f["bot"] == "chatty"
        assert LAST_WORDS in f["log_tail"], f["log_tail"][-500:]
        assert "Traceback (most recent call last)" in f["log_tail"]
