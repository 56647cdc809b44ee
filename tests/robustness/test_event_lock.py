"""``tournament resume`` while the original run is still going.

Before: the second process replayed the same running matches next to the first. Now a run
holds its event's lock (a PostgreSQL advisory lock; a record lock in ``<db>.lock`` next to
a SQLite file): the second process says at once, in one line, that the event is already
running (exit 1), and the first completes unharmed, every game stored once.
"""

from __future__ import annotations

import json
import time

import pytest
from clikit import arena, arena_popen, count_games, one_line_error, steady_event, wait_for
from sqlmodel import Session, create_engine, func, select

from arena.store.db import get_engine
from arena.store.locks import EventLock, EventRunning
from arena.store.models import Game, Match, Tournament


def test_resume_while_the_event_runs_is_refused_at_once(db_url: str) -> None:
    get_engine(db_url)  # the schema exists before the run starts
    proc = arena_popen(*steady_event(rounds=6), "--db", db_url, "--json")
    try:
        wait_for(lambda: count_games(db_url) > 0 or proc.poll() is not None, 120, "a game")
        assert proc.poll() is None, "the event ended before it could be resumed twice"
        t0 = time.monotonic()
        second = arena("tournament", "resume", "1", "--no-report", "--db", db_url, timeout=60)
        waited = time.monotonic() - t0
        line = one_line_error(second, 1)
        assert "tournament 1 is already running" in line
        assert proc.poll() is None, "the second process disturbed the first"
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert json.loads(out)["status"] == "completed"
    assert waited < 30  # refused at once (most of it is the interpreter starting)
    eng = create_engine(db_url)
    with Session(eng) as s:
        matches = s.exec(select(Match)).all()
        games = s.exec(select(func.count()).select_from(Game)).one()
        pairs = s.exec(select(Game.match_id, Game.index)).all()
        t = s.exec(select(Tournament)).one()
    eng.dispose()
    assert t.status == "completed"
    assert all(m.status == "completed" for m in matches)
    assert games == sum(m.games for m in matches) == len(set(pairs)) == 6 * 2 * 2

    # once the first run is over the event can be resumed (nothing left to play)
    again = arena("tournament", "resume", "1", "--no-report", "--db", db_url, "--json")
    assert again.returncode == 0, again.stderr
    assert count_games(db_url) == games


def test_one_lock_per_event_in_one_process_too(db_url: str) -> None:
    eng = get_engine(db_url)
    with EventLock(eng, 1):
        with pytest.raises(EventRunning, match="tournament 1 is already running"):
            EventLock(eng, 1).acquire()
        with EventLock(eng, 2):  # another event of the same database is independent
            pass
    with EventLock(eng, 1):  # released: it can be taken again
        pass
