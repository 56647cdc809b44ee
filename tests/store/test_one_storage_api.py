"""The store is the only place that opens database sessions, and statuses are its enums.

Before, ``Session(...)`` was opened in five modules and each resolved its own engine; now
``arena/store/`` (``db.session``) opens every one and the rest of the arena calls the
store's functions. The statuses written to the database are the same strings as before.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from sqlalchemy import create_engine, text

from arena.bots import Policy
from arena.status import GameStatus, MatchStatus, RoundStatus, TournamentStatus
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

ARENA = Path(__file__).resolve().parents[2] / "arena"
OPENS_A_SESSION = re.compile(r"\bSession\s*\(|\bsessionmaker\b")


def sessions_outside_the_store(package: Path) -> list[str]:
    """``file:line`` of every place under ``package`` but outside its ``store/`` that
    opens a session or makes a session factory."""
    found = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package)
        if rel.parts[0] == "store":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OPENS_A_SESSION.search(line):
                found.append(f"{rel}:{number}")
    return found


def test_no_module_outside_the_store_opens_a_session() -> None:
    assert sessions_outside_the_store(ARENA) == []


def test_the_check_finds_a_session_opened_outside_the_store(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "db.py").write_text("with Session(eng) as s:\n    pass\n")
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "data.py").write_text("x = 1\nwith Session(eng) as s:\n    pass\n")
    (tmp_path / "tool.py").write_text("from sqlalchemy.orm import sessionmaker\n")
    assert sessions_outside_the_store(tmp_path) == ["report/data.py:2", "tool.py:1"]


def test_stored_statuses_are_the_same_strings_as_before(db_url: str) -> None:
    entries = [EntrySpec(p, Policy(p)) for p in ("ev", "random", "threshold:20")]
    cfg = TournamentConfig(format="swiss", entries=entries, seats=3, rounds=1, games=1, seed=1)
    played = create_tournament(cfg, db_url)
    asyncio.run(run_tournament(db_url, played))
    waiting = create_tournament(cfg, db_url)
    eng = create_engine(db_url)
    with eng.connect() as c:

        def statuses(table: str, where: str = "") -> set[str]:
            return {row[0] for row in c.execute(text(f"SELECT status FROM {table} {where}"))}

        assert statuses("tournament", f"WHERE id = {played}") == {"completed"}
        assert statuses("tournament", f"WHERE id = {waiting}") == {"running"}
        assert statuses("round") == {"completed"}
        assert statuses("match") == {"completed"}
        assert statuses("game") == {"completed"}
    eng.dispose()
    assert TournamentStatus.COMPLETED == "completed" and GameStatus.VOID == "void"
    assert {str(s) for s in MatchStatus} == {"pending", "running", "completed"}
    assert {str(s) for s in RoundStatus} == {"planned", "completed"}
