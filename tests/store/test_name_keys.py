"""Bot and participant names are unique ignoring case (arena.names.name_key), held by a
unique column: ``Victim`` and ``VICTIM`` cannot register beside ``victim`` — not even when
they arrive at the same moment, on SQLite and on PostgreSQL — and a database that already
holds such names still migrates (migration 0011), keeping every row."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from arena.errors import ArenaError
from arena.names import name_key
from arena.participants import add_participant
from arena.registry import add_bot, find, latest
from arena.store import participants
from arena.store.db import get_engine, upgrade

A_BOT = "python bot.py"


def test_the_key_folds_case_and_compatibility_forms() -> None:
    assert name_key("Victim") == name_key("VICTIM") == name_key("victim") == "victim"
    assert name_key("\uff56\uff49\uff43\uff54\uff49\uff4d") == "victim"  # fullwidth
    assert name_key("Stra\u00dfe") == name_key("STRASSE")
    assert name_key("ev-1.2_x") == "ev-1.2_x"


def test_a_name_differing_only_in_case_is_another_participants_no_more(db_url: str) -> None:
    alice = add_participant(db_url, "alice").participant.id
    mallory = add_participant(db_url, "mallory").participant.id
    victim = add_bot(db_url, "victim", command=A_BOT, owner_id=alice)
    for impostor in ("Victim", "VICTIM", "vIcTiM"):
        with pytest.raises(ArenaError, match="taken by another participant's bot"):
            add_bot(db_url, impostor, command=A_BOT, owner_id=mallory)
    # the owner's other spelling is the same bot: its next version, under its own name
    again = add_bot(db_url, "VICTIM", command=A_BOT, owner_id=alice)
    assert again.bot.id == victim.bot.id and again.bot.name == "victim"
    assert again.version.version == 2 and again.label == "victim@v2"
    bot, version = find(db_url, "Victim")  # looked up ignoring case, too
    assert bot.name == "victim" and version.version == 2
    assert latest(db_url, "victim") is not None


def test_participant_names_are_unique_ignoring_case(db_url: str) -> None:
    add_participant(db_url, "carol")
    for other in ("Carol", "CAROL"):
        with pytest.raises(ArenaError, match="'carol' exists already"):
            add_participant(db_url, other)
    assert [p.name for p in participants.every(db_url)] == ["carol"]


def _race(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls in threads released together; each result or the exception raised."""
    start = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def one(i: int) -> None:
        start.wait(timeout=30)
        try:
            results[i] = calls[i]()
        except Exception as e:
            results[i] = e

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
        assert not t.is_alive()
    return results


@pytest.mark.parametrize("attempt", range(5))
def test_two_registrations_differing_in_case_at_once_exactly_one_wins(
    db_url: str, attempt: int
) -> None:
    get_engine(db_url)  # migrated before the race
    owners = [add_participant(db_url, f"p{i}").participant.id for i in range(2)]
    names = ["racer", "RACER"]
    results = _race(
        *(
            lambda name=name, owner=owner: add_bot(db_url, name, command=A_BOT, owner_id=owner)
            for name, owner in zip(names, owners, strict=True)
        )
    )
    won = [r for r in results if not isinstance(r, Exception)]
    lost = [r for r in results if isinstance(r, Exception)]
    assert len(won) == 1 and len(lost) == 1, results
    assert isinstance(lost[0], ArenaError) and "taken" in str(lost[0])
    eng = create_engine(db_url)
    with eng.connect() as c:
        assert c.execute(text("SELECT count(*) FROM bot")).scalar_one() == 1
        assert c.execute(text("SELECT count(*) FROM bot_version")).scalar_one() == 1
    eng.dispose()


def test_two_participants_joining_under_one_name_at_once_exactly_one_joins(db_url: str) -> None:
    get_engine(db_url)
    results = _race(*(lambda n=n: add_participant(db_url, n) for n in ("dave", "Dave", "DAVE")))
    assert sum(not isinstance(r, Exception) for r in results) == 1, results
    assert all(isinstance(r, ArenaError) for r in results if isinstance(r, Exception))
    assert len(participants.every(db_url)) == 1


def test_a_database_holding_names_differing_in_case_still_migrates(db_url: str) -> None:
    """Before 0011 ``victim`` and ``Victim`` could both be stored: the older keeps the
    plain key, the later ``<key>#<id>``; both keep their names and versions, each is
    found by its exact name, and no third spelling can register."""
    now = datetime.now(UTC)
    eng = create_engine(db_url)
    upgrade(eng, "0010")
    with eng.begin() as c:
        for name in ("alice", "Alice", "mallory"):
            c.execute(
                text(
                    "INSERT INTO participant (name, token_hash, role, created) "
                    "VALUES (:n, :t, 'participant', :c)"
                ),
                {"n": name, "t": f"hash-{name}", "c": now},
            )
        ids = dict(c.execute(text("SELECT name, id FROM participant")).all())
        for name, owner in (("victim", "alice"), ("Victim", "mallory")):
            c.execute(
                text(
                    "INSERT INTO bot (name, runtime, created, removed, owner_id) "
                    "VALUES (:n, 'process', :c, false, :o)"
                ),
                {"n": name, "c": now, "o": ids[owner]},
            )
            bot = c.execute(text("SELECT id FROM bot WHERE name = :n"), {"n": name}).scalar()
            c.execute(
                text(
                    "INSERT INTO bot_version (bot_id, version, command, created) "
                    "VALUES (:b, 1, :cmd, :c)"
                ),
                {"b": bot, "cmd": f"python {name}.py", "c": now},
            )
    upgrade(eng)
    with eng.connect() as c:
        keys = dict(c.execute(text("SELECT name, name_key FROM bot")).all())
        people = dict(c.execute(text("SELECT name, name_key FROM participant")).all())
        later = c.execute(text("SELECT id FROM bot WHERE name = 'Victim'")).scalar()
    eng.dispose()
    assert keys == {"victim": "victim", "Victim": f"victim#{later}"}
    assert people["alice"] == "alice" and people["Alice"] == f"alice#{ids['Alice']}"
    assert find(db_url, "victim")[1].command == "python victim.py"
    assert find(db_url, "Victim")[1].command == "python Victim.py"
    with pytest.raises(ArenaError, match="taken by another participant's bot"):
        add_bot(db_url, "VICTIM", command=A_BOT, owner_id=ids["alice"] + 100)
    with pytest.raises(ArenaError, match="exists already"):
        add_participant(db_url, "ALICE")
