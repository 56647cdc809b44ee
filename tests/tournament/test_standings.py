"""Standings rules with byes and ratings, on real stored events (SQLite and PostgreSQL).

* A bye is worth points but is not a game: before, its points went into the bye holder's
  points per game, so whoever had met a bot with a bye won the opponent-strength
  tie-break (in simulated odd-field 2-seat Swiss events that changed the final order in a
  quarter of the events at 9 bots). Opponent strength now counts games played only.
* In a gauntlet the field sits out by design: a field bot's bye earns nothing, a
  challenger's bye an average game.
* The Elo tie-break, the rating rank shown next to the points, and the ratings the Swiss
  scheduler pairs by are the fit of the event's games as they stand (before, the
  scheduler always saw 1500 and the final standings carried no Elo).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from arenacli import run_arena
from sqlmodel import Session, create_engine, select

from arena.bots import Policy
from arena.ratings import GameResult, fit_ratings
from arena.standings import GameRow, compute_standings, placement_points
from arena.store.models import Game, Match, Round
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

ROOT = Path(__file__).resolve().parents[2]
ODD_FIELD = ["ev", "threshold:27", "threshold:23", "threshold:18", "threshold:13", "random", "t15"]


def _entries(names: list[str]) -> list[EntrySpec]:
    return [EntrySpec(n, Policy("threshold:15" if n == "t15" else n)) for n in names]


def _stored(url: str, tid: int) -> tuple[list[Game], list[Round], dict[int, int]]:
    eng = create_engine(url)
    with Session(eng) as s:
        games = list(s.exec(select(Game).where(Game.tournament_id == tid).order_by(Game.id)))
        rounds = list(s.exec(select(Round).where(Round.tournament_id == tid)))
        index = {r.id: r.index for r in rounds}
        round_of = {
            m.id: index[m.round_id] for m in s.exec(select(Match).where(Match.tournament_id == tid))
        }
    eng.dispose()
    return games, rounds, round_of


def _fit(games: list[Game]) -> Any:
    return fit_ratings(
        GameResult(tuple(g.seating), tuple(g.ranks)) for g in games if g.status == "completed"
    )


def test_a_bye_does_not_lend_its_points_to_the_opponent_strength_of_those_who_met_it() -> None:
    # xavier and yolanda both won their one game; xavier also had a bye (worth half a
    # point at a 2-seat table). zed lost to xavier, amy to yolanda: the same result
    # against equally strong opponents.
    games = [GameRow(["xavier", "zed"], [1, 2]), GameRow(["yolanda", "amy"], [1, 2])]
    rows = {
        r.bot: r
        for r in compute_standings(
            ["amy", "xavier", "yolanda", "zed"], games, table_size=2, byes=[("xavier", 1)]
        )
    }
    assert rows["xavier"].points == 1.5 and rows["xavier"].games == 1  # the bye still counts
    assert rows["zed"].opponents == rows["amy"].opponents == 1.0  # before: 1.5 against 1.0
    assert rows["zed"].rank == rows["amy"].rank  # a shared place: before, zed ranked above


def test_in_an_odd_two_seat_swiss_event_opponent_strength_counts_only_games_played(
    db_url: str,
) -> None:
    cfg = TournamentConfig(
        format="swiss", entries=_entries(ODD_FIELD), seats=2, rounds=5, games=2, seed=12
    )
    tid = create_tournament(cfg, db_url)
    outcome = asyncio.run(run_tournament(db_url, tid))
    games, rounds, _ = _stored(db_url, tid)
    byes = [b for r in rounds for b in r.byes]
    assert len(byes) == 5  # an odd field at 2-seat tables: one bye a round

    played: dict[str, float] = defaultdict(float)
    n: dict[str, int] = defaultdict(int)
    met: dict[str, list[str]] = defaultdict(list)
    for g in games:
        for seat, bot in enumerate(g.seating):
            played[bot] += placement_points(g.ranks, 2)[seat]
            n[bot] += 1
            met[bot].append(g.seating[1 - seat])
    with_bye = dict(played)
    for bot in byes:
        with_bye[bot] += 0.5 * cfg.games  # an average 2-seat game per game of the round
    rows = {r.bot: r for r in outcome.standings}
    changed = 0
    for bot, opponents in met.items():
        fair = sum(played[o] / n[o] for o in opponents) / len(opponents)
        inflated = sum(with_bye[o] / n[o] for o in opponents) / len(opponents)
        assert rows[bot].opponents == pytest.approx(fair, abs=1e-12)
        changed += inflated > fair + 1e-9
        assert rows[bot].points == pytest.approx(with_bye[bot], abs=1e-12)
    assert changed, "some bot met a bot with a bye, so the old rule would have differed"


def test_gauntlet_field_bots_earn_nothing_for_sitting_out_but_challengers_do(
    db_url: str,
) -> None:
    # one challenger, six field bots in two blocks: each round one block sits out
    field = ["threshold:27", "threshold:23", "threshold:18", "threshold:13", "random", "t15"]
    cfg = TournamentConfig(
        format="gauntlet", entries=_entries(["ev", *field]), seats=4, games=2, seed=3
    )
    cfg.entries[0].challenger = True
    # five challengers, two field bots at 3-seat tables: each round a squad sits out
    many = TournamentConfig(
        format="gauntlet",
        entries=[EntrySpec(f"c{i}", Policy("ev"), challenger=True) for i in range(5)]
        + _entries(["random", "t15"]),
        seats=3,
        games=2,
        seed=4,
    )
    for config, sitting in ((cfg, "field"), (many, "challengers")):
        tid = create_tournament(config, db_url)
        outcome = asyncio.run(run_tournament(db_url, tid))
        games, rounds, _ = _stored(db_url, tid)
        challengers = {e.name for e in config.entries if e.challenger}
        byes = [b for r in rounds for b in r.byes]
        assert byes and all((b in challengers) == (sitting == "challengers") for b in byes)
        earned: dict[str, float] = defaultdict(float)
        for g in games:
            for seat, bot in enumerate(g.seating):
                earned[bot] += placement_points(g.ranks, config.seats)[seat]
        for bot in byes:
            if bot in challengers:
                earned[bot] += (config.seats - 1) / 2 * config.games
        for r in outcome.standings:
            assert r.points == pytest.approx(earned[r.bot], abs=1e-12), r.bot
            assert r.byes == byes.count(r.bot)


def test_standings_carry_the_events_fitted_ratings_and_their_rank(db_url: str) -> None:
    cfg = TournamentConfig(
        format="swiss", entries=_entries(ODD_FIELD), seats=3, rounds=3, games=2, seed=8
    )
    tid = create_tournament(cfg, db_url)
    outcome = asyncio.run(run_tournament(db_url, tid))
    fit = _fit(_stored(db_url, tid)[0])
    for r in outcome.standings:
        assert r.elo == pytest.approx(fit.ratings[r.bot], abs=1e-9)
        assert r.elo_rank == fit.players.index(r.bot) + 1
    winner, second, los = outcome.winner_los()
    assert (winner, second) == (outcome.standings[0].bot, outcome.standings[1].bot)
    assert los == pytest.approx(fit.los(winner, second), abs=1e-9)


def test_swiss_pairs_by_the_current_fit_of_the_events_games(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.schedule.swiss import SwissScheduler

    seen: dict[int, dict[str, float]] = {}
    plan = SwissScheduler.plan_round

    def spy(self: SwissScheduler, index: int, standings: list[Any], history: list[Any]) -> Any:
        seen[index] = {st.bot: st.rating for st in standings}
        return plan(self, index, standings, history)

    monkeypatch.setattr(SwissScheduler, "plan_round", spy)
    cfg = TournamentConfig(
        format="swiss", entries=_entries(ODD_FIELD), seats=3, rounds=4, games=2, seed=5
    )
    tid = create_tournament(cfg, db_url)
    asyncio.run(run_tournament(db_url, tid))
    games, _, round_of = _stored(db_url, tid)
    assert sorted(seen) == [0, 1, 2, 3]
    assert set(seen[0].values()) == {1500.0}  # no game yet: everybody at the mean
    for index in (1, 2, 3):
        fit = _fit([g for g in games if round_of[g.match_id] < index])
        assert seen[index] == pytest.approx(fit.ratings, abs=1e-9)
        assert len({round(v, 6) for v in seen[index].values()}) > 1  # not a flat 1500


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_arena(*args, columns=140)


def test_tournament_command_shows_the_rating_rank_and_the_winners_los(db_url: str) -> None:
    bots = [
        a
        for p in ("ev", "random", "threshold:20", "threshold:25")
        for a in ("--bots", f"builtin:{p}")
    ]
    common = ["--format", "swiss", *bots, "--seats", "2", "--rounds", "3", "--games", "2"]
    r = _cli("tournament", *common, "--seed", "5", "--no-report", "--db", db_url, "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    fit = _fit(_stored(db_url, data["id"])[0])
    for row in data["standings"]:
        assert row["elo_rank"] == fit.players.index(row["bot"]) + 1
        assert row["tiebreaks"]["elo"] == round(fit.ratings[row["bot"]], 1)
    first, second = data["standings"][0]["bot"], data["standings"][1]["bot"]
    assert data["winner"].pop("odds")["best"] == fit.players[0]  # see test_winner_odds.py
    assert data["winner"] == {
        "bot": first,
        "runner_up": second,
        "los": round(fit.los(first, second), 4),
    }

    r = _cli("tournament", "resume", str(data["id"]), "--no-report", "--db", db_url)
    assert r.returncode == 0, r.stderr
    assert "Elo rank" in r.stdout
    line = f"winner {first}: likelihood of being stronger than {second} (second) "
    assert f"{line}{fit.los(first, second):.1%}" in " ".join(r.stdout.split())
