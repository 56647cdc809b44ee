"""Duplicate deals (``--duplicate``) in tournaments and matches: a table's games come in
sets, one game per rotation of its seats, that share one deck seed — checked on the
stored games (SQLite and PostgreSQL) and on ``arena match --json``."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict

import pytest
from arenacli import run_arena
from sqlmodel import Session, create_engine, select

from arena.bots import Policy
from arena.errors import UsageProblem
from arena.store.models import Game, Match
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

POLICIES = ["ev", "threshold:27", "threshold:23", "threshold:18", "random"]


def config(**kw: object) -> TournamentConfig:
    base: dict[str, object] = dict(
        format="swiss",
        entries=[EntrySpec(p, Policy(p)) for p in POLICIES],
        seats=3,
        rounds=2,
        games=6,
        seed=12,
    )
    base.update(kw)
    return TournamentConfig(**base)  # type: ignore[arg-type]


def rotations(seating: list[str]) -> set[tuple[str, ...]]:
    return {tuple(seating[r:] + seating[:r]) for r in range(len(seating))}


def stored_matches(url: str, tid: int) -> list[tuple[Match, list[Game]]]:
    eng = create_engine(url)
    with Session(eng) as s:
        matches = s.exec(select(Match).where(Match.tournament_id == tid)).all()
        games = s.exec(select(Game).where(Game.tournament_id == tid)).all()
    eng.dispose()
    by_match: dict[int, list[Game]] = defaultdict(list)
    for g in games:
        by_match[g.match_id].append(g)
    return [(m, sorted(by_match[m.id or 0], key=lambda g: g.index)) for m in matches]


def assert_duplicate_sets(games: list[list[str]], seeds: list[int], size: int) -> None:
    """Games in consecutive sets of ``size``: one seed per set, every rotation once."""
    assert len(games) % size == 0
    set_seeds = []
    for start in range(0, len(games), size):
        chunk = range(start, start + size)
        assert len({seeds[i] for i in chunk}) == 1, "a set shares one deck seed"
        assert {tuple(games[i]) for i in chunk} == rotations(games[start])
        set_seeds.append(seeds[start])
    assert len(set(set_seeds)) == len(set_seeds), "each set has a deal of its own"


def test_a_duplicate_tournament_plays_each_deal_once_per_seat_rotation(db_url: str) -> None:
    tid = create_tournament(config(duplicate=True), db_url)
    out = asyncio.run(run_tournament(db_url, tid))
    assert out.tournament.status == "completed"
    assert out.tournament.options["duplicate"] is True
    tables = 0
    for m, games in stored_matches(db_url, tid):
        if len(m.seats) < 2:
            continue  # a bye
        tables += 1
        assert len(games) == m.games == 6
        assert_duplicate_sets([g.seating for g in games], [g.seed for g in games], len(m.seats))
    assert tables >= 2


def test_without_duplicate_every_game_has_its_own_deal(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/a.db"
    tid = create_tournament(config(), url)
    asyncio.run(run_tournament(url, tid))
    seeds = [g.seed for _, games in stored_matches(url, tid) for g in games]
    assert len(seeds) > 6 and len(set(seeds)) == len(seeds)


def test_duplicate_needs_games_in_whole_sets_of_rotations(tmp_path: object) -> None:
    with pytest.raises(UsageProblem, match="multiple"):
        create_tournament(config(duplicate=True, games=4), f"sqlite:///{tmp_path}/a.db")
    r = run_arena(
        "tournament", "--format", "swiss", "--bots", "builtin:ev", "--bots", "builtin:random",
        "--bots", "builtin:threshold:23", "--seats", "3", "--games", "4", "--duplicate",
        "--db", f"sqlite:///{tmp_path}/b.db", "--no-report",
    )  # fmt: skip
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "--games" in r.stderr


def test_a_duplicate_match_shares_deals_over_the_rotations_of_its_table() -> None:
    bots = ["builtin:ev", "builtin:random", "builtin:threshold:23"]
    args = [x for b in bots for x in ("--bot", b)]
    r = run_arena("match", *args, "--games", "9", "--duplicate", "--seed", "4", "--json")
    assert r.returncode == 0, r.stderr
    games = sorted(json.loads(r.stdout)["games"], key=lambda g: g["index"])
    assert len(games) == 9
    assert_duplicate_sets([g["seating"] for g in games], [g["seed"] for g in games], 3)
    bad = run_arena("match", *args, "--games", "8", "--duplicate")
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "--games" in bad.stderr
