"""One bot of each language plus the Python examples play a tournament with no faults.

"From any language" shown, not claimed: every bot here speaks the protocol from the .proto
with its own language's gRPC stack, built from Debian or npm packages only.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from kit import LANGUAGES, build, python_bot
from sqlmodel import Session, create_engine, select

from arena.bots import Command
from arena.store.models import Game
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament


@pytest.fixture(scope="module")
def built_bots() -> dict[str, str]:
    return {lang: build(lang) for lang in LANGUAGES}


def test_a_tournament_of_every_language_completes_with_no_faults(
    built_bots: dict[str, str], tmp_path: Path
) -> None:
    entries = [EntrySpec(lang, Command(cmd)) for lang, cmd in built_bots.items()]
    entries += [
        EntrySpec("python-ev", Command(python_bot("ev"))),
        EntrySpec("python-threshold", Command(python_bot("threshold", "23"))),
        EntrySpec("python-random", Command(python_bot("random"))),
    ]
    db = f"sqlite:///{tmp_path / 'polyglot.db'}"
    cfg = TournamentConfig(
        format="swiss",
        entries=entries,
        seats=4,
        rounds=3,
        games=2,
        concurrency=8,
        variant="vengeance",
        seed=8,
    )
    tid = create_tournament(cfg, db)
    outcome = asyncio.run(run_tournament(db, tid))
    assert outcome.tournament.status == "completed"
    eng = create_engine(db)
    with Session(eng) as s:
        games = s.exec(select(Game).where(Game.tournament_id == tid)).all()
    eng.dispose()
    faults = [(g.id, f) for g in games for f in g.faults]
    assert faults == []
    assert all(g.status == "completed" for g in games)
    played = {name for g in games for name in g.seating}
    assert played == {e.name for e in entries}  # every language sat at a table
