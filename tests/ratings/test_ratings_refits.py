"""Refits: the fit re-run after each group of games (the bot pages' rating history).

Each refit starts from the previous optimum; whatever the start, it must land on the fit
of the same games from scratch, players joining later included.
"""

from __future__ import annotations

import random

import pytest

from arena.ratings import GameResult, fit_ratings, refits


def rounds_of_games(
    seed: int, rounds: int, joining: dict[int, list[str]]
) -> list[list[GameResult]]:
    """Rounds of 3- and 4-seat games (ties included) among a field that grows."""
    rng = random.Random(seed)
    field: list[str] = []
    out = []
    for r in range(rounds):
        field += joining.get(r, [])
        group = []
        for _ in range(6):
            k = rng.choice([3, 4])
            players = rng.sample(field, k)
            group.append(GameResult(tuple(players), tuple(rng.randint(1, k) for _ in players)))
        out.append(group)
    return out


def test_each_refit_is_the_fit_of_every_game_so_far() -> None:
    groups = rounds_of_games(7, 12, {0: list("ABCDE"), 4: ["F"], 9: ["G", "H"]})
    got = list(refits(groups))
    assert len(got) == len(groups)
    for i, ratings in enumerate(got):
        scratch = fit_ratings(g for group in groups[: i + 1] for g in group)
        assert set(ratings) == set(scratch.players)
        assert ratings == pytest.approx(scratch.ratings, abs=1e-6)
    assert set(got[3]) == set("ABCDE") and set(got[4]) == set("ABCDEF")


def test_an_empty_group_repeats_the_ratings_and_no_games_give_none() -> None:
    groups = rounds_of_games(2, 3, {0: list("ABCD")})
    got = list(refits([[], groups[0], [], groups[1]]))
    assert got[0] == {}
    assert got[2] == pytest.approx(got[1], abs=1e-9)
    assert got[3] == pytest.approx(fit_ratings(groups[0] + groups[1]).ratings, abs=1e-6)


def test_refits_take_the_fits_prior_and_anchor() -> None:
    groups = rounds_of_games(5, 4, {0: list("ABCD")})
    every = [g for group in groups for g in group]
    (*_, last) = refits(groups, prior_strength=0.5, anchor=1000.0)
    assert last == pytest.approx(
        fit_ratings(every, prior_strength=0.5, anchor=1000.0).ratings, abs=1e-6
    )
    with pytest.raises(ValueError, match="prior_strength"):
        list(refits(groups, prior_strength=0.0))
