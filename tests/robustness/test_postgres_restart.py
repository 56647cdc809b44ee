"""PostgreSQL restarted while an event runs.

Before: a 209-line traceback and a dead run. Now every database step of a run is retried
with a growing pause for up to ``--db-retry`` seconds (default 60) on fresh, pre-pinged
connections: a short outage is ridden through (the operator is warned, the event goes on
and completes with every game stored once); a longer one stops the run in one line and
leaves the event resumable.

The tests restart a private PostgreSQL server of their own (pgcluster.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from clikit import Lines, arena, arena_popen, count_games, final_error, steady_event, wait_for
from pgcluster import PrivateCluster
from sqlmodel import Session, create_engine, select

from arena.store.db import dispose_all, get_engine
from arena.store.models import Game, Match, Tournament

ROUNDS, GAMES = 8, 2
EXPECTED = ROUNDS * 2 * GAMES  # 4 entries at 2-seat tables


@pytest.fixture
def cluster() -> Iterator[PrivateCluster]:
    pg = PrivateCluster()
    try:
        get_engine(pg.url)  # the schema, before the run starts
        dispose_all()
        yield pg
    finally:
        dispose_all()
        pg.close()


def stored(url: str) -> tuple[str, int, int, bool]:
    eng = create_engine(url)
    with Session(eng) as s:
        status = s.exec(select(Tournament.status)).one()
        keys = s.exec(select(Game.match_id, Game.index)).all()
        done = all(m.status == "completed" for m in s.exec(select(Match)))
    eng.dispose()
    return status, len(keys), len(set(keys)), done


def test_a_restart_within_the_retry_limit_is_ridden_through(cluster: PrivateCluster) -> None:
    url = cluster.url
    proc = arena_popen(
        *steady_event(rounds=ROUNDS, games=GAMES), "--db", url, "--db-retry", "90", "--json"
    )
    err = Lines(proc.stderr)  # type: ignore[arg-type]
    try:
        wait_for(lambda: count_games(url) > 0 or proc.poll() is not None, 120, "a stored game")
        assert proc.poll() is None, "the event ended before the restart"
        cluster.stop()
        try:
            wait_for(
                lambda: err.has("unreachable") or proc.poll() is not None, 60, "the arena waiting"
            )
        finally:
            cluster.start()
        assert proc.poll() is None, err.text()
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    stderr = err.text()
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr and "error:" not in stderr
    assert "warning: database" in stderr and "reachable again" in stderr
    assert proc.stdout is not None and json.loads(proc.stdout.read())["status"] == "completed"
    assert stored(url) == ("completed", EXPECTED, EXPECTED, True)


def test_an_outage_beyond_the_limit_stops_in_one_line_and_resumes(
    cluster: PrivateCluster,
) -> None:
    url = cluster.url
    proc = arena_popen(*steady_event(rounds=ROUNDS, games=GAMES), "--db", url, "--db-retry", "2")
    err = Lines(proc.stderr)  # type: ignore[arg-type]
    try:
        wait_for(lambda: count_games(url) > 0 or proc.poll() is not None, 120, "a stored game")
        assert proc.poll() is None, "the event ended before the outage"
        cluster.stop()
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        cluster.start()
    assert proc.returncode == 1, err.text()
    line = final_error(err.text())
    assert "unreachable for" in line and "--db-retry 2" in line
    assert "resume it with: arena tournament resume 1" in line
    status, partial, _, _ = stored(url)
    assert status == "running" and 0 < partial < EXPECTED

    r = arena("tournament", "resume", "1", "--no-report", "--json", "--db", url)
    assert r.returncode == 0, r.stderr
    assert stored(url) == ("completed", EXPECTED, EXPECTED, True)
