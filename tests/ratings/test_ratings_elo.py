"""Incremental Elo: pairwise semantics on hand-computed tables, zero-sum, history."""

from __future__ import annotations

import random

import pytest

from arena.ratings import EloResult, GameResult, incremental_elo


def game(players: str, ranks: list[int]) -> GameResult:
    """A game whose players are the letters of ``players``."""
    return GameResult(tuple(players), tuple(ranks))


def test_two_player_win_from_equal_ratings_moves_each_by_half_k() -> None:
    result = incremental_elo([game("AB", [1, 2])])
    assert result.ratings == {"A": pytest.approx(1516.0), "B": pytest.approx(1484.0)}


def test_k_and_initial_rating_are_parameters() -> None:
    result = incremental_elo([game("AB", [2, 1])], k=20.0, initial=1000.0)
    assert result.ratings == {"A": pytest.approx(990.0), "B": pytest.approx(1010.0)}


def test_upset_between_unequal_players_uses_elo_expectation() -> None:
    # A reaches 1532 after two wins; hand-computed: after the first win A = 1516, B = 1484;
    # then E_B = 1 / (1 + 10 ** (32 / 400)) = 0.454078..., so B's upset gains
    # 32 * (1 − 0.454078) = 17.4695.
    result = incremental_elo([game("AB", [1, 2]), game("AB", [2, 1])])
    assert result.ratings["B"] == pytest.approx(1484.0 + 17.4695, abs=1e-3)
    assert result.ratings["A"] == pytest.approx(1516.0 - 17.4695, abs=1e-3)


def test_four_player_game_scales_k_by_one_over_table_size_minus_one() -> None:
    # Each pair is worth k/3; from equal ratings every expectation is 0.5, so the winner
    # scores 3 − 1.5 = +1.5 pairs (= +16), second +0.5 (= +16/3), and so on.
    result = incremental_elo([game("ABCD", [1, 2, 3, 4])])
    assert result.ratings["A"] == pytest.approx(1516.0)
    assert result.ratings["B"] == pytest.approx(1500.0 + 16.0 / 3.0)
    assert result.ratings["C"] == pytest.approx(1500.0 - 16.0 / 3.0)
    assert result.ratings["D"] == pytest.approx(1484.0)


def test_ties_count_half_a_point_against_each_other() -> None:
    # B and C tie for second: each scores 0 (vs A) + 0.5 (vs each other) + 1 (vs D) = 1.5,
    # exactly the expectation from equal ratings, so neither moves.
    result = incremental_elo([game("ABCD", [1, 2, 2, 4])])
    assert result.ratings["A"] == pytest.approx(1516.0)
    assert result.ratings["B"] == pytest.approx(1500.0)
    assert result.ratings["C"] == pytest.approx(1500.0)
    assert result.ratings["D"] == pytest.approx(1484.0)


def test_all_tied_table_from_equal_ratings_changes_nothing() -> None:
    result = incremental_elo([game("ABC", [1, 1, 1])])
    assert all(r == pytest.approx(1500.0) for r in result.ratings.values())


def test_tie_against_stronger_player_gains_rating() -> None:
    result = incremental_elo([game("AB", [1, 2]), game("AB", [1, 1])])
    # B (1484) ties A (1516): B gains 32 * (0.5 − 0.454078) = 1.4695
    assert result.ratings["B"] == pytest.approx(1484.0 + 1.4695, abs=1e-3)


def test_four_player_game_from_unequal_ratings_matches_pairwise_formula() -> None:
    # set up A=1516, B=1484 first, then C beats D from 1500 each → C=1516, D=1484
    warmup = [game("AB", [1, 2]), game("CD", [1, 2])]
    result = incremental_elo([*warmup, game("ABCD", [3, 1, 4, 2])])
    pre = {"A": 1516.0, "B": 1484.0, "C": 1516.0, "D": 1484.0}
    ranks = {"A": 3, "B": 1, "C": 4, "D": 2}
    for p in "ABCD":
        total = 0.0
        for q in "ABCD":
            if q == p:
                continue
            score = 1.0 if ranks[p] < ranks[q] else 0.0
            total += score - 1.0 / (1.0 + 10.0 ** ((pre[q] - pre[p]) / 400.0))
        assert result.ratings[p] == pytest.approx(pre[p] + 32.0 / 3.0 * total)
    assert set(result.ratings) == set("ABCD")


def test_every_game_is_zero_sum() -> None:
    rng = random.Random(7)
    names = [f"bot{i}" for i in range(12)]
    games = []
    for _ in range(200):
        k = rng.randint(2, 8)
        players = rng.sample(names, k)
        games.append(GameResult(tuple(players), tuple(rng.randint(1, k) for _ in players)))
    ratings: dict[str, float] = {}
    for i, g in enumerate(games):
        before = sum(ratings.get(p, 1500.0) for p in g.players)
        ratings = incremental_elo(games[: i + 1]).ratings
        after = sum(ratings[p] for p in g.players)
        assert after == pytest.approx(before, abs=1e-9)
    assert sum(ratings.values()) == pytest.approx(1500.0 * len(ratings))


def test_updates_use_pre_game_ratings_so_seat_order_does_not_matter() -> None:
    warmup = [game("AB", [1, 2]), game("CA", [1, 2]), game("DB", [2, 1])]
    forward = incremental_elo([*warmup, game("ABCD", [2, 1, 2, 4])])
    backward = incremental_elo([*warmup, game("DCBA", [4, 2, 1, 2])])
    for p in "ABCD":
        assert forward.ratings[p] == pytest.approx(backward.ratings[p], abs=1e-12)


def test_big_table_moves_winner_by_half_k_and_nobody_by_more_than_k() -> None:
    players = tuple(f"p{i:02d}" for i in range(18))
    result = incremental_elo([GameResult(players, tuple(range(1, 19)))])
    assert result.ratings["p00"] == pytest.approx(1516.0)
    assert result.ratings["p17"] == pytest.approx(1484.0)
    assert all(abs(r - 1500.0) <= 32.0 for r in result.ratings.values())


def test_history_has_one_entry_per_seat_with_rating_after_the_game() -> None:
    games = [game("AB", [1, 2]), game("ABC", [1, 2, 3]), game("BC", [1, 1])]
    result = incremental_elo(games)
    assert len(result.history) == 2 + 3 + 2
    assert [h[0] for h in result.history] == [0, 0, 1, 1, 1, 2, 2]
    assert result.history[0][:2] == (0, "A")
    assert result.history[0][2] == pytest.approx(1516.0)
    last: dict[str, float] = {}
    for _, player, rating in result.history:
        last[player] = rating
    assert last == result.ratings
    assert result.games == {"A": 2, "B": 3, "C": 2}


def test_one_player_game_counts_but_changes_nothing() -> None:
    result = incremental_elo([GameResult(("solo",), (1,))])
    assert result.ratings == {"solo": 1500.0}
    assert result.games == {"solo": 1}
    assert result.history == [(0, "solo", 1500.0)]


def test_no_games_gives_empty_result() -> None:
    assert incremental_elo([]) == EloResult(ratings={}, games={}, history=[])


def test_accepts_any_iterable_such_as_a_generator() -> None:
    result = incremental_elo(game("AB", [1, 2]) for _ in range(3))
    assert result.games == {"A": 3, "B": 3}
    assert result.ratings["A"] > 1540.0
