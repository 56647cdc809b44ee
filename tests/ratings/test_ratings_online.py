"""Online ratings between full fits (arena.ratings.online): each game moves its players
the way the Plackett–Luce fit would, and tracks the fit of the same games."""

from __future__ import annotations

import numpy as np

from arena.ratings import GameResult, fit_ratings
from arena.ratings.online import PRIOR_STDERR, OnlineRatings
from arena.ratings.synthetic import sample_games


def test_a_game_moves_the_winner_up_the_loser_down_and_narrows_both() -> None:
    online = OnlineRatings()
    online.update(GameResult(("a", "b", "c"), (1, 2, 3)))
    assert online.rating("a") > 1500 > online.rating("c")
    assert abs(online.rating("b") - 1500) < abs(online.rating("a") - 1500)
    assert all(online.stderr(p) < PRIOR_STDERR for p in "abc")
    assert online.stderr("unseen") == PRIOR_STDERR


def test_a_tie_splits_the_difference() -> None:
    online = OnlineRatings()
    online.update(GameResult(("a", "b"), (1, 1)))
    assert online.rating("a") == online.rating("b") == 1500


def test_online_updates_from_a_fit_track_the_refit_of_all_games() -> None:
    rng = np.random.default_rng(7)
    truth = rng.normal(0, 200, 12)
    names = [f"p{i}" for i in range(12)]
    games = sample_games(truth, 600, 4, rng, names=names)
    online = OnlineRatings.from_fit(fit_ratings(games[:400]))
    for g in games[400:]:
        online.update(g)
    refit = fit_ratings(games)
    gaps = [abs(online.rating(p) - refit.ratings[p]) for p in names]
    assert max(gaps) < 0.5 * min(refit.stderr(p) for p in names) * 1.96
    # and closer to the refit than the stale fit it started from
    stale = fit_ratings(games[:400])
    assert sum(gaps) < sum(abs(stale.ratings[p] - refit.ratings[p]) for p in names)
