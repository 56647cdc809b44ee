"""The matchmaking check in small: on synthetic bots of known strength (Plackett–Luce
outcomes, the real matchmaker and rating fit), adaptive tables name the true best bot
more often than uniformly random tables at the same budget, with no worse whole-field
rank correlation (benchmarks/ladder_matchmaking.py runs the full study)."""

from __future__ import annotations

import numpy as np

from arena.ladder.simulation import run_ladder, true_ratings

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
