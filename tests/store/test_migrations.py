"""Schema migrations: a new database is created at the current schema, and an old one is
upgraded in place with its data kept — on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, create_engine, inspect, text

from arena.store.db import MIGRATIONS, current_revision, get_engine, tables, upgrade

ROOT = Path(__file__).resolve().parents[2]


def head() -> str:
    return sorted(p.name.split("_")[0] for p in (MIGRATIONS / "versions").glob("0*.py"))[-1]


def test_a_new_database_gets_every_table_at_the_head_revision(db_url: str) -> None:
    eng = get_engine(db_url)
    assert current_revision(eng) == head()
    assert {"bot", "bot_version", "tournament", "entry", "round", "match", "game"} <= set(
        tables(eng)
    )


def test_an_old_database_is_upgraded_with_its_data_kept(db_url: str) -> None:
    eng = create_engine(db_url)
    upgrade(eng, "0001")
    with eng.begin() as c:
        c.execute(
            text(
                "INSERT INTO tournament (name, format, variant, brutal, seats, rounds, "
                "games_per_match, concurrency, seed, status, options, created) VALUES "
                "('old', 'swiss', 'base', false, 4, 3, 2, 8, 7, 'completed', '{}', "
                "CURRENT_TIMESTAMP)"
            )
        )
        tid = c.execute(text("SELECT id FROM tournament")).scalar_one()
        c.execute(
            text("INSERT INTO entry (tournament_id, name, challenger) VALUES (:t, 'a', false)"),
            {"t": tid},
        )
    assert "image" not in {c["name"] for c in inspect(eng).get_columns("entry")}
    upgrade(eng)
    assert current_revision(eng) == head()
    assert "image" in {c["name"] for c in inspect(eng).get_columns("entry")}
    with eng.connect() as c:
        assert c.execute(text("SELECT name FROM tournament")).scalar_one() == "old"
        assert c.execute(text("SELECT name FROM entry")).scalar_one() == "a"
    eng.dispose()


def test_db_upgrade_command_reports_the_revision(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "arena", "db", "upgrade", "--db", f"sqlite:///{tmp_path}/x.db"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert f"revision {head()}" in r.stdout


def test_a_bad_database_url_is_a_one_line_error(tmp_path: Path) -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena",
            "bot",
            "list",
            "--db",
            "postgresql+psycopg://nobody@127.0.0.1:1/x",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert r.returncode == 1
    assert r.stderr.startswith("error: cannot open database") and "Traceback" not in r.stderr


def test_0005_drops_the_rating_history_table_and_keeps_the_games(db_url: str) -> None:
    """The stored incremental Elo history (rating_point) is gone from 0005 on; a database
    at 0004 with games and history rows keeps every game, round and match."""
    eng = create_engine(db_url)
    upgrade(eng, "0004")
    with eng.begin() as c:
        c.execute(
            text(
                "INSERT INTO tournament (name, format, variant, brutal, seats, rounds, "
                "games_per_match, concurrency, seed, status, options, created) VALUES "
                "('old', 'swiss', 'base', false, 2, 1, 1, 8, 7, 'completed', '{}', "
                "CURRENT_TIMESTAMP)"
            )
        )
        tid = c.execute(text("SELECT id FROM tournament")).scalar_one()
        c.execute(
            text(
                'INSERT INTO round (tournament_id, "index", byes, note, status) '
                "VALUES (:t, 0, '[]', '', 'completed')"
            ),
            {"t": tid},
        )
        rid = c.execute(text("SELECT id FROM round")).scalar_one()
        c.execute(
            text(
                'INSERT INTO match (tournament_id, round_id, "table", seats, seed, games, '
                "status) VALUES (:t, :r, 0, '[\"a\", \"b\"]', 3, 1, 'completed')"
            ),
            {"t": tid, "r": rid},
        )
        mid = c.execute(text("SELECT id FROM match")).scalar_one()
        c.execute(
            text(
                'INSERT INTO game (match_id, tournament_id, "index", seed, variant, seating, '
                "ranks, totals, rounds, status, faults, choices, events, played) VALUES "
                "(:m, :t, 0, 5, 'base', '[\"a\", \"b\"]', '[1, 2]', '[200, 90]', 4, "
                "'completed', '[]', '[]', '[]', CURRENT_TIMESTAMP)"
            ),
            {"m": mid, "t": tid},
        )
        gid = c.execute(text("SELECT id FROM game")).scalar_one()
        for bot, rating in (("a", 1516.0), ("b", 1484.0)):
            c.execute(
                text(
                    "INSERT INTO rating_point (variant, bot, game_id, rating) "
                    "VALUES ('base', :b, :g, :r)"
                ),
                {"b": bot, "g": gid, "r": rating},
            )
    assert "rating_point" in tables(eng)
    upgrade(eng)
    assert current_revision(eng) == head() and "rating_point" not in tables(eng)
    with eng.connect() as c:
        seating, ranks = c.execute(text("SELECT seating, ranks FROM game")).one()
        as_list = [v if isinstance(v, list) else json.loads(v) for v in (seating, ranks)]
        assert as_list == [["a", "b"], [1, 2]]
        assert c.execute(text("SELECT status FROM match")).scalar_one() == "completed"
    from arena.leaderboard import leaderboard_rows

    rows = leaderboard_rows(eng)  # the games are rated as before
    assert [(r["bot"], r["games"]) for r in rows] == [("a", 1), ("b", 1)]
    eng.dispose()


def test_0006_keeps_entries_stored_before_it_runnable_from_their_columns(db_url: str) -> None:
    """From 0006 an entry stores its whole bot source (env and shared paths included); an
    entry stored before keeps running from its command/policy/image columns."""
    from sqlmodel import Session, select

    from arena.bots import Command, Policy
    from arena.store.models import Entry, entry_columns, entry_source

    eng = create_engine(db_url)
    upgrade(eng, "0005")
    with eng.begin() as c:
        c.execute(
            text(
                "INSERT INTO tournament (name, format, variant, brutal, seats, rounds, "
                "games_per_match, concurrency, seed, status, options, created) VALUES "
                "('old', 'swiss', 'base', false, 2, 1, 1, 8, 7, 'running', '{}', "
                "CURRENT_TIMESTAMP)"
            )
        )
        tid = c.execute(text("SELECT id FROM tournament")).scalar_one()
        c.execute(
            text(
                "INSERT INTO entry (tournament_id, name, challenger, command, remote) "
                "VALUES (:t, 'old-bot', false, 'python bot.py', false)"
            ),
            {"t": tid},
        )
    upgrade(eng)
    new = Command("python other.py", env={"LEVEL": "3"}, share=("/tmp/x",))
    with Session(eng) as s:
        s.add(Entry(tournament_id=tid, name="new-bot", **entry_columns(new)))
        s.add(Entry(tournament_id=tid, name="policy", **entry_columns(Policy("ev"))))
        s.commit()
        got = {e.name: entry_source(e) for e in s.exec(select(Entry))}
    eng.dispose()
    assert got == {"old-bot": Command("python bot.py"), "new-bot": new, "policy": Policy("ev")}


def insert(c: Connection, into: str, /, **values: object) -> int:
    """A row of table ``into`` with these column values (lists as JSON); its id."""
    cols = ", ".join(f'"{k}"' for k in values)
    marks = ", ".join(f":{k}" for k in values)
    params = {k: json.dumps(v) if isinstance(v, list) else v for k, v in values.items()}
    c.execute(text(f'INSERT INTO "{into}" ({cols}) VALUES ({marks})'), params)
    return int(c.execute(text(f'SELECT max(id) FROM "{into}"')).scalar_one())


def test_0007_names_stored_entries_of_registered_bots_by_their_version(db_url: str) -> None:
    """From 0007 a registered bot's entry is named by its version (ev@v1), so that each
    version is rated on its own; entries stored before, named by the bot (ev, ev#2), are
    renamed with every name in their event's rounds, tables, games and faults. Entries of
    other bots, and one the Python API named itself, keep their names."""
    from datetime import UTC, datetime

    from arena.leaderboard import leaderboard_rows

    now = datetime.now(UTC)
    eng = create_engine(db_url)
    upgrade(eng, "0006")
    events = {}
    with eng.begin() as c:
        bot = insert(c, "bot", name="ev", runtime="process", created=now, removed=False)
        v1, v2 = (
            insert(c, "bot_version", bot_id=bot, version=n, command="python bot.py", created=now)
            for n in (1, 2)
        )
        for label, entries in (
            ("first", [("ev", v1), ("random", None)]),
            ("second", [("ev", v2), ("ev#2", v2), ("random", None), ("mine", v1)]),
        ):
            tid = insert(
                c,
                "tournament",
                **dict(name=label, format="round-robin", variant="base", brutal=False),
                **dict(seats=2, rounds=1, games_per_match=1, concurrency=8, seed=7),
                **dict(status="completed", options="{}", created=now),
            )
            events[label] = tid
            for name, version in entries:
                insert(
                    c,
                    "entry",
                    **dict(tournament_id=tid, bot_version_id=version, name=name),
                    **dict(challenger=False, remote=False),
                )
            names = [n for n, _ in entries]
            rid = insert(
                c,
                "round",
                **dict(tournament_id=tid, index=0, byes=names[2:], note="", status="completed"),
            )
            mid = insert(
                c,
                "match",
                **dict(tournament_id=tid, round_id=rid, table=0, seats=names[:2], seed=3),
                **dict(games=1, status="completed"),
            )
            fault = {"bot": names[0], "seat": 0, "kind": "TIMEOUT", "detail": "slow"}
            insert(
                c,
                "game",
                **dict(match_id=mid, tournament_id=tid, index=0, seed=5, variant="base"),
                **dict(seating=names[:2], ranks=[1, 2], totals=[200, 90], rounds=4),
                **dict(status="completed", faults=[fault], choices=[], events=[], played=now),
            )
    upgrade(eng)

    def stored(sql: str, tid: int) -> list[Any]:
        with eng.connect() as c:
            values = c.execute(text(sql), {"t": tid}).scalars().all()
        return [json.loads(v) if isinstance(v, str) and v[:1] in "[{" else v for v in values]

    first, second = events["first"], events["second"]
    entries_of = "SELECT name FROM entry WHERE tournament_id = :t ORDER BY id"
    assert stored(entries_of, first) == ["ev@v1", "random"]
    assert stored(entries_of, second) == ["ev@v2", "ev@v2#2", "random", "mine"]
    assert stored("SELECT byes FROM round WHERE tournament_id = :t", second) == [["random", "mine"]]
    assert stored("SELECT seats FROM match WHERE tournament_id = :t", second) == [
        ["ev@v2", "ev@v2#2"]
    ]
    assert stored("SELECT seating FROM game WHERE tournament_id = :t", first) == [
        ["ev@v1", "random"]
    ]
    (faults,) = stored("SELECT faults FROM game WHERE tournament_id = :t", first)
    assert [f["bot"] for f in faults] == ["ev@v1"]
    # the versions are rated apart: a row each on the board of every version
    rows = leaderboard_rows(eng, all_versions=True)
    assert {r["bot"] for r in rows} == {"ev@v1", "ev@v2", "ev@v2#2", "random"}
    # the wider column holds a 64-character bot name with its version and a repeat
    long = "b" * 64 + "@v12345#99"
    with eng.begin() as c:
        insert(c, "entry", tournament_id=first, name=long, challenger=False, remote=False)
    assert long in stored(entries_of, first)
    eng.dispose()
