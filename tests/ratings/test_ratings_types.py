"""GameResult validation and normalisation."""

from __future__ import annotations

import numpy as np
import pytest

from arena.ratings import GameResult


def test_lists_are_stored_as_tuples_and_numpy_ranks_as_ints() -> None:
    g = GameResult(["a", "b"], [np.int64(1), np.int64(2)])  # type: ignore[arg-type]
    assert g.players == ("a", "b")
    assert g.ranks == (1, 2)
    assert all(type(r) is int for r in g.ranks)
    assert hash(g) == hash(GameResult(("a", "b"), (1, 2)))


def test_mismatched_lengths_are_rejected() -> None:
    with pytest.raises(ValueError, match="length"):
        GameResult(("a", "b"), (1,))


def test_duplicate_players_are_rejected() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        GameResult(("a", "a"), (1, 2))


def test_empty_game_is_rejected() -> None:
    with pytest.raises(ValueError):
        GameResult((), ())


def test_fractional_ranks_are_rejected() -> None:
    with pytest.raises(TypeError):
        GameResult(("a", "b"), (1.5, 2))  # type: ignore[arg-type]


def test_results_are_immutable() -> None:
    g = GameResult(("a", "b"), (1, 2))
    with pytest.raises(AttributeError):
        g.players = ("c",)  # type: ignore[misc]
