"""`arena leaderboard` as a user runs it: one table per variant and Brutal mode by default
(before: one board over every game, base and Vengeance, Brutal or not, rated together)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
from arenacli import run_arena
from sqlmodel import Session, create_engine, select

from arena.bots import Policy
from arena.ratings import GameResult, fit_ratings
from arena.store.models import Game, Tournament
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

ROOT = Path(__file__).resolve().parents[2]
KEYS = [
    "rank",
    "bot",
    "elo",
    "ci_low",
    "ci_high",
    "games",
    "score",
    "los_next",
    "variant",
    "brutal",
]


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return run_arena(*args, columns=120)


def event(url: str, variant: str, brutal: bool, policies: list[str], seed: int) -> int:
    cfg = TournamentConfig(
        format="round-robin",
        entries=[EntrySpec(p, Policy(p)) for p in policies],
        seats=3,
        games=2,
        variant=variant,
        brutal=brutal,
        seed=seed,
    )
    tid = create_tournament(cfg, url)
    asyncio.run(run_tournament(url, tid))
    return tid


def board_fit(url: str, variant: str, brutal: bool) -> object:
    eng = create_engine(url)
    with Session(eng) as s:
        rows = s.exec(
            select(Game)
            .join(Tournament, Tournament.id == Game.tournament_id)
            .where(Game.variant == variant, Tournament.brutal == brutal)
        ).all()
    eng.dispose()
    return fit_ratings(GameResult(tuple(g.seating), tuple(g.ranks)) for g in rows)


@pytest.fixture
def three_boards(db_url: str) -> dict[str, int]:
    return {
        "base": event(db_url, "base", False, ["ev", "random", "threshold:20", "threshold:25"], 1),
        "base brutal": event(db_url, "base", True, ["ev", "random", "threshold:18"], 2),
        "vengeance": event(db_url, "vengeance", False, ["ev", "threshold:23", "random"], 3),
    }


def test_leaderboard_prints_one_table_per_variant_and_brutal_mode(
    db_url: str, three_boards: dict[str, int]
) -> None:
    r = arena("leaderboard", "--db", db_url)
    assert r.returncode == 0, r.stderr
    titles = [line.strip() for line in r.stdout.splitlines() if "Elo leaderboard" in line]
    assert titles == [f"Elo leaderboard: {b}" for b in ("base", "base brutal", "vengeance")]

    r = arena("leaderboard", "--db", db_url, "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert all(list(row) == KEYS for row in rows)
    for variant, brutal in (("base", False), ("base", True), ("vengeance", False)):
        board = [row for row in rows if (row["variant"], row["brutal"]) == (variant, brutal)]
        fit = board_fit(db_url, variant, brutal)
        assert [row["bot"] for row in board] == fit.players  # type: ignore[attr-defined]
        assert [row["rank"] for row in board] == list(range(1, len(board) + 1))
        for row in board:
            assert row["elo"] == round(fit.ratings[row["bot"]], 1)  # type: ignore[attr-defined]
            assert row["games"] == fit.games[row["bot"]]  # type: ignore[attr-defined]


def test_leaderboard_filters_choose_boards(db_url: str, three_boards: dict[str, int]) -> None:
    def boards(*args: str) -> list[tuple[str, bool]]:
        r = arena("leaderboard", "--db", db_url, "--json", *args)
        assert r.returncode == 0, r.stderr
        return sorted({(row["variant"], row["brutal"]) for row in json.loads(r.stdout)})

    assert boards("--variant", "base") == [("base", False), ("base", True)]
    assert boards("--variant", "base", "--no-brutal") == [("base", False)]
    assert boards("--brutal") == [("base", True)]
    assert boards("--variant", "vengeance", "--brutal") == []
    assert boards("--tournament", str(three_boards["vengeance"])) == [("vengeance", False)]
    r = arena("leaderboard", "--db", db_url, "--variant", "vengeance", "--brutal")
    assert r.returncode == 0 and "no stored games match these options" in r.stdout
