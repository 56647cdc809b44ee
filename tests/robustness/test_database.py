"""Attack: a process bot goes for the tournament's SQLite database, whose path it knows
(the database sits in a folder the bot can see: beside the bot's own files). The file
and its -wal/-shm companions are hidden from it; the filesystem is read-only to it; the
results equal those of the same event without the attack."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path

import pytest
from robustkit import BOTS, bot, match, notes, open_dir, play, player

from arena.bots import Command, Policy
from arena.runtime.sandbox import Sandbox
from arena.store.db import dispose_all, get_engine
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

pytestmark = pytest.mark.timeout(300)


def test_bot_cannot_read_rewrite_or_delete_the_database(isolated: Sandbox, tmp_path) -> None:  # type: ignore[no-untyped-def]
    work = open_dir(tmp_path / "work")
    db = work / "arena.db"
    get_engine(f"sqlite:///{db}")  # the arena has it open, as during a tournament
    before = db.read_bytes()
    log = tmp_path / "attack.jsonl"
    result = play(match(bot("attacker", "db_attack.py", str(db), "1", log=log), player("p")))
    seen = {n["event"]: n for n in notes(log)}
    assert set(seen) == {"read", "rewrite", "append", "delete", "beside"}
    assert seen["read"]["ok"] is False or seen["read"]["result"] == "b''", seen["read"]
    for what in ("rewrite", "append", "delete", "beside"):
        assert seen[what]["ok"] is False, seen[what]
    assert db.read_bytes() == before
    assert not (work / "arena.db.new").exists()
    assert all(g.faults == [] for g in result.games)
    dispose_all()


def _event(work: Path, attack: bool) -> list[tuple]:  # type: ignore[type-arg]
    db = work / "arena.db"
    url = f"sqlite:///{db}"
    attacker = f"{sys.executable} {BOTS / 'db_attack.py'} {db} {int(attack)}"
    cfg = TournamentConfig(
        format="round-robin",
        entries=[
            EntrySpec("attacker", Command(attacker)),
            EntrySpec("player", Command(f"{sys.executable} {BOTS / 'player.py'}")),
            EntrySpec("ev", Policy("ev")),
        ],
        seats=2,
        games=2,
        seed=5,
        deadline=0.5,
    )
    tid = create_tournament(cfg, url)
    outcome = asyncio.run(asyncio.wait_for(run_tournament(url, tid), 240))
    assert outcome.tournament.status == "completed"
    dispose_all()
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = con.execute("SELECT seed, seating, ranks, totals, choices, faults FROM game")
        return sorted(rows.fetchall())
    finally:
        con.close()


def test_tournament_results_are_those_of_the_same_event_without_the_attack(
    isolated: Sandbox, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    attacked = _event(open_dir(tmp_path / "attacked"), attack=True)
    quiet = _event(open_dir(tmp_path / "quiet"), attack=False)
    assert len(attacked) == 6 * 2  # three entrants, every pair twice, two games a table
    assert attacked == quiet
    assert all(row[5] == "[]" for row in attacked), "a fault was recorded"
