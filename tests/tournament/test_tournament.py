"""Tournaments end to end: planning, storage, standings, resume after SIGKILL — on SQLite
and on a real PostgreSQL (see the db_url fixture)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlmodel import Session, create_engine, select

from arena.bots import Policy
from arena.standings import placement_points
from arena.store.db import get_engine
from arena.store.models import Game, Match, Round
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "bots" / "examples" / "python"
POLICIES = ["ev", "threshold:27", "threshold:23", "threshold:18", "threshold:13", "random"]


def builtin_config(fmt: str = "swiss", **kw) -> TournamentConfig:  # type: ignore[no-untyped-def]
    entries = [EntrySpec(f"{p}", Policy(p)) for p in POLICIES]
    base = dict(format=fmt, entries=entries, seats=4, rounds=3, games=2, seed=9)
    base.update(kw)
    return TournamentConfig(**base)  # type: ignore[arg-type]


def games_of(url: str, tid: int) -> list[tuple]:
    eng = create_engine(url)
    with Session(eng) as s:
        rows = s.exec(select(Game).where(Game.tournament_id == tid)).all()
        out = sorted(
            (r.seed, tuple(r.seating), tuple(r.ranks), tuple(r.totals), tuple(r.choices))
            for r in rows
        )
    eng.dispose()
    return out


def test_swiss_tournament_stores_every_game_and_standings(db_url: str) -> None:
    tid = create_tournament(builtin_config(), db_url)
    outcome = asyncio.run(run_tournament(db_url, tid))
    assert outcome.tournament.status == "completed"
    eng = create_engine(db_url)
    with Session(eng) as s:
        rounds = s.exec(select(Round).where(Round.tournament_id == tid)).all()
        matches = s.exec(select(Match).where(Match.tournament_id == tid)).all()
        games = s.exec(select(Game).where(Game.tournament_id == tid)).all()
    eng.dispose()
    assert len(rounds) == 3 and all(r.status == "completed" for r in rounds)
    assert all(m.status == "completed" for m in matches)
    assert len(games) == sum(m.games for m in matches) == outcome.games_played
    # every game's placement points are in the standings, no more, no less
    expected = sum(sum(placement_points(g.ranks, 4)) for g in games)
    byes = sum(r.points for r in outcome.standings) - expected
    bye_count = sum(len(r.byes) for r in rounds)
    assert abs(byes - bye_count * 2 * 1.5) < 1e-9
    assert [r.rank for r in outcome.standings] == sorted(r.rank for r in outcome.standings)
    assert {r.bot for r in outcome.standings} == set(POLICIES)


def test_round_robin_and_gauntlet_complete(db_url: str) -> None:
    tid = create_tournament(builtin_config("round-robin", rounds=None, games=1), db_url)
    out = asyncio.run(run_tournament(db_url, tid))
    assert out.tournament.status == "completed" and out.games_played > 0
    cfg = builtin_config("gauntlet", rounds=None, games=1)
    cfg.entries[0].challenger = True
    tid = create_tournament(cfg, db_url)
    out = asyncio.run(run_tournament(db_url, tid))
    assert out.tournament.status == "completed"
    challenger = next(r for r in out.standings if r.bot == "ev")
    assert challenger.games == out.games_played  # the challenger is at every table


def test_resuming_a_completed_tournament_changes_nothing(db_url: str) -> None:
    tid = create_tournament(builtin_config(rounds=2), db_url)
    asyncio.run(run_tournament(db_url, tid))
    before = games_of(db_url, tid)
    again = asyncio.run(run_tournament(db_url, tid))
    assert again.games_played == 0 and games_of(db_url, tid) == before


def _cli(db: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "arena", "tournament", *args, "--db", db]


def _bots() -> list[str]:
    out = []
    for name, args in (("ev", ""), ("threshold", " 25"), ("random", ""), ("threshold", " 18")):
        out += ["--bots", f"{name}{args.strip()}=python {EX / name / 'bot.py'}{args}"]
    out += ["--bots", "builtin:ev", "--bots", "builtin:threshold:21"]
    return out


def test_sigkill_mid_run_then_resume_equals_an_uninterrupted_run(
    db_url: str, tmp_path: Path
) -> None:
    """Kill -9 the tournament process once some matches are stored; `tournament resume`
    must end with exactly the games of a run that was never interrupted."""
    common = [
        "--format",
        "swiss",
        "--seats",
        "3",
        "--rounds",
        "3",
        "--games",
        "4",
        "--seed",
        "31",
        "--concurrency",
        "4",
        *_bots(),
    ]
    env = {**os.environ, "ARENA_LOG": "WARNING"}
    get_engine(db_url)  # the schema exists before we start watching it
    proc = subprocess.Popen(
        _cli(db_url, *common), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    eng = create_engine(db_url)
    deadline = time.monotonic() + 240
    done = 0
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            with Session(eng) as s:
                done = len(s.exec(select(Match.id).where(Match.status == "completed")).all())
            if done >= 2:
                break
            time.sleep(0.05)  # polling the database for the real condition
        assert proc.poll() is None, "the run finished before it could be interrupted"
        assert done >= 2
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    with Session(eng) as s:
        partial = len(s.exec(select(Game.id)).all())
        tid = s.exec(select(Match.tournament_id)).first()
    eng.dispose()
    assert tid is not None and partial > 0
    r = subprocess.run(
        _cli(db_url, "resume", str(tid), "--json"),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "completed"
    resumed = games_of(db_url, tid)

    clean_db = f"sqlite:///{tmp_path / 'clean.db'}"
    r = subprocess.run(
        _cli(clean_db, *common, "--json"),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    clean = games_of(clean_db, json.loads(r.stdout)["id"])
    assert len(resumed) == len(clean) == 3 * 2 * 4  # 6 entries, 3-seat tables, 3 rounds
    assert resumed == clean


def test_rating_history_is_the_leaderboard_fit_after_each_round(db_url: str) -> None:
    """The bot pages' history is the leaderboard's own fit re-run after each round (not an
    incremental Elo): recomputed here round by round from the stored games, over two
    events of the same board."""
    from arena.leaderboard import history, ratings
    from arena.ratings import GameResult, fit_ratings

    first = create_tournament(builtin_config(rounds=3), db_url)
    asyncio.run(run_tournament(db_url, first))
    second = create_tournament(builtin_config("round-robin", rounds=2, games=1, seed=4), db_url)
    asyncio.run(run_tournament(db_url, second))
    eng = create_engine(db_url)
    with Session(eng) as s:
        rows = s.exec(
            select(Game, Match.round_id).join(Match, Match.id == Game.match_id).order_by(Game.id)
        ).all()
    eng.dispose()
    last_game: dict[int, int] = {}
    for g, rid in rows:
        last_game[rid] = g.id
    order = sorted(last_game, key=last_game.__getitem__)
    assert len(order) == 5  # three Swiss rounds, then two round-robin rounds
    expected: dict[str, list[float]] = {}
    for i in range(len(order)):
        done = set(order[: i + 1])
        fit = fit_ratings(
            GameResult(tuple(g.seating), tuple(g.ranks))
            for g, rid in rows
            if rid in done and g.status == "completed"
        )
        for bot, rating in fit.ratings.items():
            expected.setdefault(bot, []).append(rating)

    got = history(db_url, variant="base", brutal=False)
    assert got.rounds == order
    assert set(got.ratings) == set(expected) == set(POLICIES)
    for bot, series in expected.items():
        assert got.ratings[bot] == pytest.approx(series, abs=1e-6)
    board = ratings(db_url, variant="base", brutal=False)
    assert {b: r[-1] for b, r in got.ratings.items()} == pytest.approx(board.ratings, abs=1e-6)
    # at most 2 points: a fit after every 3rd round and after the last (rounds 3 and 5)
    few = history(db_url, variant="base", brutal=False, max_points=2)
    assert few.rounds == [order[2], order[4]] and few.every == 3
    for bot, series in expected.items():
        assert few.ratings[bot] == pytest.approx([series[2], series[4]], abs=1e-6)
