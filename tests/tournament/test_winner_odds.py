"""How often an event's length names the strongest bot its winner (arena.winner_odds): the
simulation agrees with the exact probability where there is one, grows with the length,
and the tournament command prints it under the winner's LOS when the event is short."""

from __future__ import annotations

import json
import math

from arenacli import run_arena

from arena import limits
from arena.winner_odds import runs_for, simulate, winner_odds

RUNS = 2000  # standard error at most 0.5 / sqrt(2000) ≈ 1.1 %


def p_beats(a: float, b: float) -> float:
    """Bradley–Terry (Plackett–Luce at two seats) on the Elo scale."""
    return 1 / (1 + 10 ** ((b - a) / 400))


def test_a_single_game_between_two_bots_names_the_stronger_as_often_as_it_wins_a_game() -> None:
    ratings = {"strong": 1600.0, "weak": 1400.0}
    best, rate = simulate("round-robin", ["strong", "weak"], 2, 1, 1, ratings, runs=RUNS, seed=1)
    assert best == "strong"
    assert abs(rate - p_beats(1600, 1400)) < 4 * 0.5 / math.sqrt(RUNS)  # exact: 0.760


def test_best_of_three_follows_the_binomial_law() -> None:
    ratings = {"a": 1550.0, "b": 1450.0}
    p = p_beats(1550, 1450)
    exact = p**3 + 3 * p**2 * (1 - p)  # at least two of three games
    _, rate = simulate("round-robin", ["a", "b"], 2, 1, 3, ratings, runs=RUNS, seed=2)
    assert abs(rate - exact) < 4 * 0.5 / math.sqrt(RUNS)


def test_a_longer_swiss_event_names_the_strongest_bot_more_often() -> None:
    ratings = {"ev": 1620.0, "t25": 1560.0, "t20": 1500.0, "random": 1320.0}
    bots = list(ratings)
    _, short = simulate("swiss", bots, 2, 3, 2, ratings, runs=400, seed=3)
    _, long = simulate("swiss", bots, 2, 3, 32, ratings, runs=400, seed=3)
    assert long > short + 0.15, (short, long)


def test_a_short_event_is_flagged_and_a_longer_length_is_offered() -> None:
    ratings = {"ev": 1620.0, "t25": 1560.0, "t20": 1500.0, "random": 1320.0}
    odds = winner_odds("swiss", list(ratings), 2, 3, 2, ratings, seed=4)
    assert odds is not None and odds.best == "ev"
    assert odds.short and odds.this.rate < limits.SURE_WINNER and odds.this.games == 2
    assert odds.longer is not None and odds.longer.games in (4, 8, 16)
    assert odds.longer.rate > odds.this.rate


def test_an_event_between_very_unequal_bots_is_not_short() -> None:
    ratings = {"master": 2600.0, "novice": 1000.0, "beginner": 1000.0}
    odds = winner_odds("round-robin", list(ratings), 3, 1, 4, ratings, seed=5)
    assert odds is not None and odds.best == "master"
    assert odds.this.rate == 1.0 and not odds.short and odds.longer is None


def test_in_a_gauntlet_the_winner_to_name_is_the_strongest_challenger() -> None:
    ratings = {"field": 1900.0, "c1": 1600.0, "c2": 1400.0, "other": 1500.0}
    odds = winner_odds("gauntlet", list(ratings), 2, 3, 8, ratings, challengers=["c1", "c2"])
    assert odds is not None and odds.best == "c1"


def test_an_event_too_long_to_simulate_gets_no_estimate() -> None:
    assert runs_for(limits.WINNER_ODDS_GAMES) == 0
    assert runs_for(100) == limits.WINNER_ODDS_RUNS
    ratings = {"a": 1600.0, "b": 1400.0}
    assert winner_odds("round-robin", ["a", "b"], 2, 1, limits.WINNER_ODDS_GAMES, ratings) is None


def test_the_tournament_command_says_when_its_length_is_short(tmp_path: object) -> None:
    bots = [
        a
        for p in ("ev", "random", "threshold:20", "threshold:25")
        for a in ("--bots", f"builtin:{p}")
    ]
    db = f"sqlite:///{tmp_path}/arena.db"
    args = ["tournament", "--format", "swiss", *bots, "--seats", "2", "--rounds", "2"]
    args += ["--games", "1", "--seed", "8", "--no-report", "--db", db]
    r = run_arena(*args, "--json", columns=200)
    assert r.returncode == 0, r.stderr
    odds = json.loads(r.stdout)["winner"]["odds"]
    assert odds["games"] == 1 and odds["runs"] == limits.WINNER_ODDS_RUNS
    assert odds["short"] is True and 0 < odds["rate"] < limits.SURE_WINNER

    r = run_arena("tournament", "resume", "1", "--no-report", "--db", db, columns=400)
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("short event:"))
    assert f"({odds['best']}) the winner in {odds['rate']:.0%} of 200 simulated runs" in line
    assert "2 rounds of 1 game per table" in line
