"""One bot of each language plus the Python examples play a tournament with no faults.

"From any language" shown, not claimed: every bot here speaks the protocol from the .proto
with its own language's gRPC stack, built from Debian or npm packages only.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from sqlmodel import Session, create_engine, select

from arena.store.models import Game
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "bots" / "examples"
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# language -> (build script, command the arena runs, tool that must exist)
LANGUAGES = {
    "node": (EX / "node" / "build.sh", str(EX / "node" / "run.sh"), "npm"),
    "cpp": (EX / "cpp" / "build.sh", str(EX / "cpp" / "build" / "flip7-bot"), "grpc_cpp_plugin"),
    "go": (EX / "go" / "build.sh", str(EX / "go" / "build" / "flip7-bot"), "go"),
    "java": (EX / "java" / "build.sh", str(EX / "java" / "run.sh"), "javac"),
}


@pytest.fixture(scope="module")
def built_bots() -> dict[str, str]:
    commands = {}
    for lang, (script, command, tool) in LANGUAGES.items():
        if shutil.which(tool) is None:
            msg = f"{lang}: {tool} is not installed (scripts/services installs it)"
            if UNDER_CI:
                pytest.fail(msg)
            pytest.skip(msg)
        r = subprocess.run(
            ["bash", str(script)], capture_output=True, text=True, timeout=900, check=False
        )
        assert r.returncode == 0, f"{lang} build failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
        commands[lang] = command
    return commands


def test_a_tournament_of_every_language_completes_with_no_faults(
    built_bots: dict[str, str], tmp_path: Path
) -> None:
    py = EX / "python"
    entries = [EntrySpec(lang, command=cmd) for lang, cmd in built_bots.items()]
    entries += [
        EntrySpec("python-ev", command=f"python {py / 'ev' / 'bot.py'}"),
        EntrySpec("python-threshold", command=f"python {py / 'threshold' / 'bot.py'} 23"),
        EntrySpec("python-random", command=f"python {py / 'random' / 'bot.py'}"),
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
