"""The fit on synthetic Plackett–Luce data: recovery, interval coverage, and agreement
with an independent estimator (the ``choix`` package)."""

from __future__ import annotations

import itertools
import math

import choix
import numpy as np
import pytest

from arena.ratings import ELO_PER_NATURAL_UNIT, GameResult, fit_ratings
from arena.ratings.synthetic import sample_games, sample_orders


def centred(values: np.ndarray) -> np.ndarray:
    """Values minus their mean."""
    result: np.ndarray = values - values.mean()
    return result


def test_sequential_sampler_reproduces_plackett_luce_order_probabilities() -> None:
    strengths = np.array([4.0, 2.0, 1.0])
    rng = np.random.default_rng(5)
    n = 60_000
    orders = sample_orders(strengths, np.tile([0, 1, 2], (n, 1)), rng)
    for perm in itertools.permutations(range(3)):
        a, b, c = (strengths[i] for i in perm)
        expected = a / (a + b + c) * b / (b + c)
        observed = np.mean((orders == perm).all(axis=1))
        assert observed == pytest.approx(expected, abs=4 * math.sqrt(expected / n))


def test_sampled_games_seat_distinct_players_and_rank_them_one_to_k() -> None:
    games = sample_games([0.0] * 6, 500, 4, np.random.default_rng(1))
    assert len(games) == 500
    for g in games:
        assert len(set(g.players)) == 4
        assert g.ranks == (1, 2, 3, 4)


def test_fit_recovers_strengths_and_95_percent_intervals_cover_about_95_percent() -> None:
    rng = np.random.default_rng(20240601)
    n_players, n_games, reps = 30, 450, 40
    covered = 0
    errors = []
    for _ in range(reps):
        truth = rng.normal(0.0, 150.0, n_players)
        names = [f"p{i}" for i in range(n_players)]
        fit = fit_ratings(sample_games(truth, n_games, 4, rng, names=names))
        true_rel = centred(truth)
        got = np.array([fit.ratings[p] - fit.anchor for p in names])
        low = np.array([fit.ci_low[p] - fit.anchor for p in names])
        high = np.array([fit.ci_high[p] - fit.anchor for p in names])
        covered += int(((low <= true_rel) & (true_rel <= high)).sum())
        errors.append(got - true_rel)
        assert np.corrcoef(got, truth)[0, 1] > 0.9
    coverage = covered / (reps * n_players)
    assert 0.88 <= coverage <= 0.99, coverage
    # no systematic offset; spread consistent with the reported standard errors
    assert abs(np.mean(errors)) < 5.0


def test_agrees_with_choix_plackett_luce_mle_within_one_elo_point() -> None:
    rng = np.random.default_rng(77)
    n_players = 25
    truth = rng.normal(0.0, 200.0, n_players)
    names = [f"p{i}" for i in range(n_players)]
    games = sample_games(truth, 3000, 4, rng, names=names)
    index = {p: i for i, p in enumerate(names)}
    rankings = [tuple(index[p] for p in g.players) for g in games]  # ranks are 1..4 in order
    theta = choix.ilsr_rankings(n_players, rankings, alpha=0.0, tol=1e-12, max_iter=1000)
    theirs = centred(theta) * ELO_PER_NATURAL_UNIT
    fit = fit_ratings(games, prior_strength=1e-6)
    ours = np.array([fit.ratings[p] - fit.anchor for p in names])
    assert np.max(np.abs(ours - theirs)) < 1.0
    assert np.max(np.abs(ours - theirs)) < 0.05  # in fact far closer


def test_two_seat_fit_agrees_with_choix_bradley_terry() -> None:
    rng = np.random.default_rng(8)
    n_players = 12
    truth = rng.normal(0.0, 200.0, n_players)
    names = [f"q{i}" for i in range(n_players)]
    games = sample_games(truth, 1500, 2, rng, names=names)
    index = {p: i for i, p in enumerate(names)}
    pairs = [(index[g.players[0]], index[g.players[1]]) for g in games]  # (winner, loser)
    theta = choix.ilsr_pairwise(n_players, pairs, alpha=0.0, tol=1e-12, max_iter=1000)
    fit = fit_ratings(games, prior_strength=1e-6)
    ours = np.array([fit.ratings[p] - fit.anchor for p in names])
    np.testing.assert_allclose(ours, centred(theta) * ELO_PER_NATURAL_UNIT, atol=0.05)


def test_default_prior_shrinks_only_slightly_on_well_sampled_players() -> None:
    rng = np.random.default_rng(9)
    truth = rng.normal(0.0, 150.0, 20)
    games = sample_games(truth, 2000, 4, rng)
    weak = fit_ratings(games, prior_strength=1e-6)
    default = fit_ratings(games)
    gap = [abs(default.ratings[p] - weak.ratings[p]) for p in weak.players]
    assert max(gap) < 5.0
    spread_default = np.std([default.ratings[p] for p in default.players])
    spread_weak = np.std([weak.ratings[p] for p in weak.players])
    assert spread_default < spread_weak  # the prior pulls towards the mean


def test_many_players_many_games_fit_quickly_and_correlate_with_truth() -> None:
    rng = np.random.default_rng(10)
    truth = rng.normal(0.0, 200.0, 300)
    names = [f"b{i}" for i in range(300)]
    games: list[GameResult] = sample_games(truth, 20_000, 4, rng, names=names)
    fit = fit_ratings(games)
    got = np.array([fit.ratings[p] for p in names])
    assert np.corrcoef(got, truth)[0, 1] > 0.97
    assert fit.iterations < 30
