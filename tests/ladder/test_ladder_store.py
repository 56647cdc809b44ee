"""A ladder's storage (arena.store.ladders, migration 0010) on SQLite and PostgreSQL:
the schema upgrade keeps older data, a new version retires the old one, tables are
numbered across rounds, and a table's games land with its completion."""

from __future__ import annotations

from sqlalchemy import create_engine, inspect, text

from arena.bots import Command
from arena.ladder.runner import LadderConfig, entry_name, open_ladder, sync_roster
from arena.limits import LADDER_TABLES_PER_ROUND
from arena.status import LadderBotStatus
from arena.store import bots, ladders, rounds
from arena.store.db import current_revision, get_engine, head_revision, upgrade
from arena.store.models import Game


def test_0010_adds_the_ladder_tables_to_a_0006_database_and_keeps_its_data(db_url: str) -> None:
    eng = create_engine(db_url)
    upgrade(eng, "0006")
    with eng.begin() as c:
        c.execute(
            text(
                "INSERT INTO tournament (name, format, variant, brutal, seats, rounds, "
                "games_per_match, concurrency, status, options, created) VALUES "
                "('old', 'swiss', 'base', false, 4, 3, 2, 8, 'completed', '{}', "
                "CURRENT_TIMESTAMP)"
            )
        )
    assert "ladder" not in inspect(eng).get_table_names()
    upgrade(eng)
    assert current_revision(eng) == head_revision()
    assert {"ladder", "ladder_bot"} <= set(inspect(eng).get_table_names())
    with eng.connect() as c:
        assert c.execute(text("SELECT name FROM tournament")).scalar_one() == "old"
    eng.dispose()


def test_a_new_version_retires_the_old_one_and_a_removed_bot_retires(db_url: str) -> None:
    eng = get_engine(db_url)
    ladder = open_ladder(eng, LadderConfig(seats=2))
    assert open_ladder(eng, LadderConfig(seats=2)).id == ladder.id  # one ladder per kind
    assert open_ladder(eng, LadderConfig(seats=3)).id != ladder.id
    bots.add_version(eng, "a", "process", command="run-a")
    bots.add_version(eng, "b", "process", command="run-b")
    assert sorted(sync_roster(eng, ladder)) == ["a@v1", "b@v1"]
    assert sync_roster(eng, ladder) == []  # nothing new
    bots.add_version(eng, "a", "process", command="run-a2")
    assert sync_roster(eng, ladder) == ["a@v2"]
    bots.remove(eng, "b")
    sync_roster(eng, ladder)
    state = {e.name: (lb.status, lb.reason) for lb, e in ladders.bots(eng, ladder.id or 0)}
    assert state == {
        "a@v1": (LadderBotStatus.RETIRED, "version 2 entered"),
        "b@v1": (LadderBotStatus.RETIRED, "removed from the registry"),
        "a@v2": (LadderBotStatus.ACTIVE, ""),
    }
    sources = {e.name: e.source for _, e in ladders.bots(eng, ladder.id or 0)}
    assert sources["a@v2"]["kind"] == Command.kind and "run-a2" in str(sources["a@v2"])
    assert entry_name("x" * 64, 12) == "x" * 60 + "@v12"


def test_tables_are_numbered_across_rounds_and_open_ones_are_found(db_url: str) -> None:
    eng = get_engine(db_url)
    ladder = open_ladder(eng, LadderConfig(seats=2))
    tid = ladder.tournament_id
    n = LADDER_TABLES_PER_ROUND + 2
    planned = [ladders.plan(eng, tid, i, ["a@v1", "b@v1"], 1000 + i, 1) for i in range(n)]
    following, open_tables = ladders.tables(eng, tid)
    assert following == n and [num for num, _ in open_tables] == list(range(n))
    # a table's games land with its completion; it is no longer open
    last = planned[-1]
    game = Game(
        match_id=last.id or 0,
        tournament_id=tid,
        index=0,
        seed=7,
        variant="base",
        seating=["b@v1", "a@v1"],
        ranks=[1, 2],
    )
    rounds.complete_match(eng, last.id, [game])
    following, open_tables = ladders.tables(eng, tid)
    assert following == n and n - 1 not in [num for num, _ in open_tables]
    (played,) = ladders.history(eng, tid)
    assert (played.table, played.seating, played.ranks) == (n - 1, ["b@v1", "a@v1"], [1, 2])
    assert ladders.last_game_id(eng, tid) == played.game_id
