"""Memory stays bounded on long events.

* A long tournament: the arena's peak memory no longer grows with every stored game
  (before: about 67 KB per game, because standings loaded every game with its event log
  each round). Measured as the growth of the arena process's peak RSS between N and 2N
  stored games of a real tournament (the benchmark's own run, in a child process).
* A match of a million games creates only the games its workers are playing (before: one
  coroutine per game up front, about 100 MB/s before the first game).
* A link that serves many requests keeps no record per request (before: a set of every
  settled request id, for the life of a persistent link).
* A stored match's game records are released (nothing keeps a finished match's games).
"""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from robustkit import ROOT

from arena.bots import Policy
from arena.gateway.link import BotLink, Connection, token_hash
from arena.match import BotEntry, GameRecord, MatchRunner, MatchSpec
from arena.protocol import pb
from arena.protocol.wire import request_message
from arena.tournament import EntrySpec, TournamentConfig, TournamentRunner, create_tournament

pytestmark = pytest.mark.timeout(600)

BENCHMARK = ROOT / "benchmarks" / "memory_long_event.py"
# far above the few hundred bytes a stored game costs now, far below the 67 KB it cost
MAX_KB_PER_GAME = 8.0


def test_a_long_event_does_not_grow_the_arenas_memory_per_stored_game(db_url: str) -> None:
    n = 1000
    args = ["--child", "current", "--db", db_url, "--marks", f"{n},{2 * n}"]
    proc = subprocess.run(
        [sys.executable, str(BENCHMARK), *args, "--games-per-table", "25"],
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    at = {r["mark"]: r for r in rows}
    assert at[n]["stored"] >= n and at[2 * n]["stored"] >= 2 * n, rows
    assert at["end"]["stored"] == 2 * n, rows  # the whole event ran
    growth_kb = (at[2 * n]["peak_mb"] - at[n]["peak_mb"]) * 1024
    per_game = growth_kb / (at[2 * n]["stored"] - at[n]["stored"])
    peaks = f"{at[n]['peak_mb']:.1f} MB at {n} games, {at[2 * n]['peak_mb']:.1f} MB at {2 * n}"
    print(f"peak RSS {peaks}: {per_game:.2f} KB per stored game")
    assert per_game < MAX_KB_PER_GAME, rows


class Enough(Exception):
    """Stops a match early (from its progress callback)."""


def test_a_match_of_a_million_games_creates_only_the_games_being_played(
    sock_dir: Path,
) -> None:
    spec = MatchSpec(
        bots=[BotEntry("a", Policy("threshold:20")), BotEntry("b", Policy("random"))],
        games=1_000_000,
        seed=1,
        concurrency=8,
    )
    played: list[int] = []

    def progress(done: int, total: int) -> None:
        played.append(done)
        if done >= 40:
            raise Enough

    tracemalloc.start()
    try:
        with pytest.raises(Enough):
            asyncio.run(asyncio.wait_for(MatchRunner(spec, progress=progress).run(), 120))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert 40 <= played[-1] < 40 + spec.concurrency  # the other workers stopped with it
    print(f"traced peak {peak / 2**20:.1f} MB for a match of 1,000,000 games, 40 played")
    assert peak < 32 * 2**20, peak  # one coroutine per game up front is a gigabyte


def test_a_link_answering_many_requests_keeps_no_record_per_request() -> None:
    async def cycles(link: BotLink, conn: Connection, start: int, count: int) -> None:
        for rid in range(start, start + count):
            fut = link.request(rid, b"request", 2, 30.0)
            assert await conn.get() == request_message(b"request")
            link.on_answer(pb.Answer(request_id=rid, option_index=1))
            assert await fut == 1

    async def main() -> tuple[int, int]:
        link = BotLink("b", token_hash("t"), reconnect_grace=1.0)
        link.persistent = True
        conn = Connection("s1", "peer")
        link.attach(conn, pb.Hello())
        await cycles(link, conn, 1, 2000)  # warm up
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        await cycles(link, conn, 2001, 20000)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        # a late answer to a settled request is still told apart from an unknown one
        link.on_answer(pb.Answer(request_id=5, option_index=0))
        assert link.stats.unknown_answers == 0
        return before, after

    tracemalloc.start()
    try:
        before, after = asyncio.run(main())
    finally:
        tracemalloc.stop()
    print(f"link memory grew {(after - before) / 1024:.1f} KB over 20,000 requests")
    assert after - before < 64 * 1024, (before, after)  # a set of 20,000 ids is ~1 MB


def test_stored_matches_release_their_game_records(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    entries = [EntrySpec(f"p{i}", Policy(p)) for i, p in enumerate(["ev", "random"] * 4)]
    games_per_match, tables = 4, 2
    tid = create_tournament(
        TournamentConfig(
            format="swiss", entries=entries, seats=4, rounds=10, games=games_per_match, seed=2
        ),
        db,
    )
    runner = TournamentRunner(db, tid)
    store = runner._store
    alive: list[int] = []

    def store_and_count(t, m, result) -> None:  # type: ignore[no-untyped-def]
        store(t, m, result)
        gc.collect()
        alive.append(sum(1 for o in gc.get_objects() if isinstance(o, GameRecord)))

    runner._store = store_and_count  # type: ignore[method-assign]
    outcome = asyncio.run(runner.run())
    assert outcome.games_played == 10 * tables * games_per_match
    # at most the games of the matches still being played (and the one just stored)
    assert max(alive) <= tables * games_per_match, alive
    gc.collect()
    assert not any(isinstance(o, GameRecord) for o in gc.get_objects())
