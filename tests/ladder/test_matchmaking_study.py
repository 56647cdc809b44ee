"""The matchmaking check in small: on synthetic bots of known strength (Plackett–Luce
outcomes, the real matchmaker and rating fit), adaptive tables name the true best bot
more often than uniformly random tables at the same budget, with no worse whole-field
rank correlation (benchmarks/ladder_matchmaking.py runs the full study)."""

from __future__ import annotations

import numpy as np

from arena.ladder.simulation import rms_error, run_ladder, true_ratings

BOTS, SEATS, GAMES, REPS = 16, 2, 160, 40


def test_adaptive_tables_find_the_best_bot_more_often_than_random_ones() -> None:
    found = {True: 0, False: 0}
    rho = {True: 0.0, False: 0.0}
    for rep in range(REPS):
        truth = true_ratings(BOTS, np.random.default_rng([BOTS, rep]))
        for adaptive in (True, False):
            (point,) = run_ladder(truth, SEATS, [GAMES], adaptive=adaptive, seed=rep)
            found[adaptive] += point.top1
            rho[adaptive] += point.spearman / REPS
    assert found[True] >= found[False] + REPS // 10, found
    assert rho[True] >= rho[False] - 0.03, rho


def test_the_full_fit_the_leaderboard_shows_is_closer_to_the_truth_than_incremental_elo() -> None:
    """Why the leaderboard shows the full Plackett–Luce fit: on the same games its error
    against the true ratings is well below incremental Elo's (and the online updates'
    alone sit in between)."""
    fit = online = elo = 0.0
    for rep in range(REPS // 4):
        truth = true_ratings(BOTS, np.random.default_rng([BOTS, rep]))
        (point,) = run_ladder(truth, SEATS, [GAMES], adaptive=False, seed=rep)
        fit, online, elo = fit + point.fit_error, online + point.online_error, elo + point.elo_error
    assert elo > 1.2 * fit, (fit, online, elo)
    assert fit <= online < elo, (fit, online, elo)


def test_rating_error_ignores_the_level_of_the_ratings() -> None:
    assert rms_error([1500.0, 1600.0, 1700.0], [-100.0, 0.0, 100.0]) == 0.0
    assert rms_error([0.0, 0.0], [-10.0, 10.0]) == 10.0
