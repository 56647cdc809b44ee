"""Maximum-likelihood fit: edge cases, Efron ties, prior, covariance and LOS."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.optimize import minimize

from arena.ratings import ELO_PER_NATURAL_UNIT, Fit, GameResult, fit_ratings


def game(players: str, ranks: list[int]) -> GameResult:
    """A game whose players are the letters of ``players``."""
    return GameResult(tuple(players), tuple(ranks))


def reference_log_posterior(
    theta: np.ndarray, games: list[GameResult], index: dict[str, int], prior: float
) -> float:
    """Plackett–Luce with Efron ties plus virtual-draw prior, straight from the formulas."""
    total = 0.0
    for g in games:
        remaining = set(g.players)
        for rank in sorted(set(g.ranks)):
            group = [p for p, r in zip(g.players, g.ranks, strict=True) if r == rank]
            s_rest = sum(math.exp(theta[index[p]]) for p in remaining)
            s_group = sum(math.exp(theta[index[p]]) for p in group)
            total += sum(theta[index[p]] for p in group)
            d = len(group)
            for ell in range(d):
                total -= math.log(s_rest - ell / d * s_group)
            remaining -= set(group)
    for t in theta:
        # a virtual two-seat draw against θ = 0 under Efron: e^t·1 / ((e^t + 1)(e^t + 1)/2)
        total += prior * (t - 2.0 * math.log1p(math.exp(t)))
    return total


def mixed_games() -> list[GameResult]:
    """Small varied data: 2-, 3-, 4- and 6-seat tables with ties at several places."""
    rng = random.Random(3)
    names = "ABCDEF"
    games = [
        game("ABCD", [1, 2, 2, 4]),
        game("ABC", [3, 1, 1]),
        game("DEF", [1, 1, 1]),
        game("ABCDEF", [2, 1, 4, 4, 4, 6]),
        game("EF", [1, 1]),
    ]
    for _ in range(40):
        k = rng.choice([2, 3, 4])
        players = rng.sample(names, k)
        games.append(GameResult(tuple(players), tuple(rng.randint(1, k) for _ in players)))
    return games


def test_no_games_gives_empty_fit() -> None:
    fit = fit_ratings([])
    assert fit.players == []
    assert fit.ratings == {} and fit.ci_low == {} and fit.los_next == {}
    assert fit.cov.shape == (0, 0)
    assert fit.los_matrix().shape == (0, 0)


def test_prior_strength_must_be_positive() -> None:
    with pytest.raises(ValueError):
        fit_ratings([game("AB", [1, 2])], prior_strength=0.0)


def test_single_player_sits_at_anchor_with_zero_width_relative_interval() -> None:
    fit = fit_ratings([GameResult(("solo",), (1,))] * 3, anchor=1000.0)
    assert fit.players == ["solo"]
    assert fit.ratings["solo"] == pytest.approx(1000.0)
    assert fit.ci_low["solo"] == pytest.approx(1000.0)
    assert fit.ci_high["solo"] == pytest.approx(1000.0)
    assert fit.games == {"solo": 3}
    assert math.isnan(fit.score["solo"])
    assert fit.los_next == {"solo": None}
    assert fit.los("solo", "solo") == 0.5


def test_player_with_only_solo_games_gets_the_prior_interval() -> None:
    games = [GameResult(("solo",), (1,)), game("AB", [1, 2]), game("AB", [2, 1])]
    fit = fit_ratings(games, prior_strength=2.0)
    assert fit.games["solo"] == 1
    # the prior alone (curvature v/2 = 1) gives a natural-log sd of 1 before centring
    assert fit.ratings["solo"] == pytest.approx(1500.0, abs=1e-6)
    assert fit.ci_high["solo"] - fit.ci_low["solo"] > 400.0


def test_two_seat_tables_reduce_to_bradley_terry_with_a_closed_form_check() -> None:
    # A beats B 3 times out of 4. With a negligible prior the MLE is p = 3/4, so the gap
    # is 400·log10(3) = 190.85 Elo, split evenly around the anchor.
    games = [game("AB", [1, 2])] * 3 + [game("AB", [2, 1])]
    fit = fit_ratings(games, prior_strength=1e-9)
    gap = 400.0 * math.log10(3.0)
    assert fit.ratings["A"] == pytest.approx(1500.0 + gap / 2, abs=1e-4)
    assert fit.ratings["B"] == pytest.approx(1500.0 - gap / 2, abs=1e-4)
    # observed information of the log-odds is n·p·(1−p) = 4·3/16, so se(diff) = sqrt(4/3)
    se_diff = math.sqrt(4.0 / 3.0) * ELO_PER_NATURAL_UNIT
    assert fit.stderr("A") == pytest.approx(se_diff / 2, rel=1e-4)
    assert fit.ci_high["A"] - fit.ratings["A"] == pytest.approx(1.959964 * se_diff / 2, rel=1e-4)


def test_ratings_centre_on_anchor_and_players_sorted_best_first() -> None:
    fit = fit_ratings(mixed_games(), anchor=2000.0)
    values = [fit.ratings[p] for p in fit.players]
    assert np.mean(values) == pytest.approx(2000.0)
    assert values == sorted(values, reverse=True)
    assert set(fit.players) == set("ABCDEF")


def test_matches_brute_force_efron_map_on_mixed_tables_with_ties() -> None:
    games = mixed_games()
    prior = 0.7
    fit = fit_ratings(games, prior_strength=prior)
    index = {p: i for i, p in enumerate(fit.players)}
    result = minimize(
        lambda t: -reference_log_posterior(t, games, index, prior),
        np.zeros(len(index)),
        method="BFGS",
        options={"gtol": 1e-9},
    )
    expected = result.x - result.x.mean()
    got = np.array([(fit.ratings[p] - 1500.0) / ELO_PER_NATURAL_UNIT for p in fit.players])
    np.testing.assert_allclose(got, expected, atol=2e-5)


def test_covariance_is_inverse_observed_information_projected_on_the_mean() -> None:
    games = mixed_games()
    prior = 0.7
    fit = fit_ratings(games, prior_strength=prior)
    index = {p: i for i, p in enumerate(fit.players)}
    theta = np.array([(fit.ratings[p] - 1500.0) / ELO_PER_NATURAL_UNIT for p in fit.players])
    # the posterior is not shift invariant, so recover the uncentred optimum first
    shift = minimize(
        lambda c: -reference_log_posterior(theta + c[0], games, index, prior), [0.0]
    ).x[0]
    theta = theta + shift
    n, h = len(theta), 1e-4
    hessian = np.zeros((n, n))
    for i in range(n):
        for j in range(n):

            def f(di: float, dj: float, i: int = i, j: int = j) -> float:
                t = theta.copy()
                t[i] += di
                t[j] += dj
                return reference_log_posterior(t, games, index, prior)

            hessian[i, j] = (f(h, h) - f(h, -h) - f(-h, h) + f(-h, -h)) / (4 * h * h)
    cov = np.linalg.inv(-hessian)
    centre = np.eye(n) - 1.0 / n
    expected = centre @ cov @ centre * ELO_PER_NATURAL_UNIT**2
    np.testing.assert_allclose(fit.cov, expected, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(fit.cov.sum(axis=1), 0.0, atol=1e-6)


def test_two_seat_tie_weighs_as_one_win_plus_one_loss_under_efron() -> None:
    base = [game("AB", [1, 2]), game("BC", [1, 2]), game("AC", [1, 2])]
    with_tie = fit_ratings([*base, game("AC", [1, 1])])
    with_split = fit_ratings([*base, game("AC", [1, 2]), game("AC", [2, 1])])
    for p in "ABC":
        assert with_tie.ratings[p] == pytest.approx(with_split.ratings[p], abs=1e-9)


def test_players_who_always_tie_end_with_equal_ratings() -> None:
    games = [
        game("ABCD", [2, 2, 1, 4]),
        game("ABD", [1, 1, 3]),
        game("ABC", [2, 2, 1]),
        game("ABDE", [1, 1, 4, 3]),
        game("CDEAB", [1, 2, 5, 3, 3]),
    ] * 3
    fit = fit_ratings(games)
    assert fit.ratings["A"] == pytest.approx(fit.ratings["B"], abs=1e-9)
    assert fit.ci_low["A"] == pytest.approx(fit.ci_low["B"], abs=1e-9)
    assert fit.los("A", "B") == pytest.approx(0.5, abs=1e-9)


def test_perfect_records_stay_finite() -> None:
    games = [game("ABCD", [1, 2, 3, 4]), game("ACBD", [1, 2, 3, 4])] * 20
    fit = fit_ratings(games)
    for p in "ABCD":
        assert math.isfinite(fit.ratings[p])
        assert math.isfinite(fit.ci_low[p]) and math.isfinite(fit.ci_high[p])
    assert fit.players[0] == "A" and fit.players[-1] == "D"
    assert fit.score["A"] == 1.0 and fit.score["D"] == 0.0
    assert fit.ratings["A"] - fit.ratings["D"] < 2000.0


def test_weak_prior_with_perfect_record_still_converges() -> None:
    fit = fit_ratings([game("AB", [1, 2])] * 50, prior_strength=1e-3)
    assert math.isfinite(fit.ratings["A"])
    assert fit.ratings["A"] > fit.ratings["B"] + 1000.0


def test_disconnected_groups_are_identified_by_the_prior() -> None:
    games = [game("AB", [1, 2])] * 6 + [game("CD", [1, 2])] * 6 + [game("AB", [2, 1])]
    games += [game("CD", [2, 1])]
    fit = fit_ratings(games)
    assert fit.ratings["A"] == pytest.approx(fit.ratings["C"], abs=1e-6)
    assert fit.ratings["B"] == pytest.approx(fit.ratings["D"], abs=1e-6)
    assert fit.los("A", "C") == pytest.approx(0.5, abs=1e-6)
    assert fit.los("A", "B") > 0.9


def test_result_ignores_game_order_and_seat_order() -> None:
    games = mixed_games()
    shuffled = games[:]
    random.Random(11).shuffle(shuffled)
    reseated = []
    for g in shuffled:
        seats = list(zip(g.players, g.ranks, strict=True))[::-1]
        reseated.append(GameResult(tuple(p for p, _ in seats), tuple(r for _, r in seats)))
    a, b = fit_ratings(games), fit_ratings(reseated)
    assert a.players == b.players
    for p in a.players:
        assert a.ratings[p] == pytest.approx(b.ratings[p], abs=1e-6)
        assert a.ci_high[p] == pytest.approx(b.ci_high[p], abs=1e-6)


def test_rank_values_only_matter_through_their_order() -> None:
    a = fit_ratings([game("ABCD", [1, 2, 2, 4]), game("CD", [1, 2])])
    b = fit_ratings([game("ABCD", [10, 30, 30, 99]), game("CD", [-5, 7])])
    assert a.ratings == pytest.approx(b.ratings)


def test_games_and_mean_pairwise_score_count_every_opponent() -> None:
    fit = fit_ratings([game("ABCD", [1, 2, 2, 4]), game("AB", [2, 1]), game("E", [1])])
    assert fit.games == {"A": 2, "B": 2, "C": 1, "D": 1, "E": 1}
    # A: 3 wins + 1 loss over 4 comparisons; B: 0 + 0.5 + 1 + 1 over 4
    assert fit.score["A"] == pytest.approx(0.75)
    assert fit.score["B"] == pytest.approx(2.5 / 4)
    assert fit.score["C"] == pytest.approx(1.5 / 3)
    assert fit.score["D"] == 0.0
    assert math.isnan(fit.score["E"])


def test_interval_is_symmetric_95_percent_band_from_the_covariance() -> None:
    fit = fit_ratings(mixed_games())
    for i, p in enumerate(fit.players):
        half = 1.959964 * math.sqrt(fit.cov[i, i])
        assert fit.ci_low[p] == pytest.approx(fit.ratings[p] - half, rel=1e-6)
        assert fit.ci_high[p] == pytest.approx(fit.ratings[p] + half, rel=1e-6)
        assert fit.stderr(p) == pytest.approx(math.sqrt(fit.cov[i, i]))


def test_los_is_half_for_identical_players() -> None:
    # A and B have mirror-image records against C and split their own games.
    games = [game("AC", [1, 2]), game("BC", [1, 2]), game("AB", [1, 2]), game("AB", [2, 1])]
    fit = fit_ratings(games * 5)
    assert fit.los("A", "B") == pytest.approx(0.5, abs=1e-9)
    assert fit.los("A", "C") > 0.5


def test_los_exceeds_099_for_a_much_stronger_player() -> None:
    games = [game("AB", [1, 2])] * 30 + [game("AB", [2, 1])] * 2
    fit = fit_ratings(games)
    assert fit.los("A", "B") > 0.99
    assert fit.los("B", "A") < 0.01


def test_los_matrix_is_consistent_with_los_and_complementary() -> None:
    fit = fit_ratings(mixed_games())
    m = fit.los_matrix()
    n = len(fit.players)
    assert m.shape == (n, n)
    np.testing.assert_allclose(np.diag(m), 0.5)
    np.testing.assert_allclose(m + m.T, 1.0, atol=1e-15)
    for i, a in enumerate(fit.players):
        for j, b in enumerate(fit.players):
            assert m[i, j] == pytest.approx(fit.los(a, b), abs=1e-12)
            assert fit.los(a, b) + fit.los(b, a) == pytest.approx(1.0, abs=1e-15)
    # sorted best first, so every player is at least even money against the next one
    for i, p in enumerate(fit.players[:-1]):
        los_next = fit.los_next[p]
        assert los_next is not None
        assert los_next == pytest.approx(m[i, i + 1])
        assert los_next >= 0.5
    assert fit.los_next[fit.players[-1]] is None


def test_los_rejects_unknown_players() -> None:
    fit = fit_ratings([game("AB", [1, 2])])
    with pytest.raises(KeyError):
        fit.los("A", "Z")


def test_eighteen_seat_table_is_supported() -> None:
    players = tuple(f"p{i:02d}" for i in range(18))
    games = [GameResult(players, tuple(range(1, 19)))] * 3
    games.append(GameResult(players, (1, 1, *range(3, 19))))
    fit = fit_ratings(games)
    assert fit.players[:2] == ["p00", "p01"] or fit.players[:2] == ["p01", "p00"]
    assert fit.players[-1] == "p17"
    assert isinstance(fit, Fit)
    assert fit.table()[0]["player"] == fit.players[0]
