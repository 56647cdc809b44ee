"""Seat layouts of a unit's games and how a game is scored; checked on real games too."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.abtest.design import (
    DESIGNS,
    games_per_unit,
    head_to_head,
    placement_points,
    unit_layouts,
)
from arena.abtest.pairs import Tally
from engine import RULESETS, Game
from engine.policies import make_policy


def test_two_seat_pairs_swap_the_seats() -> None:
    for i in range(4):
        assert unit_layouts("swap", 2, i) == [("NEW", "BASE"), ("BASE", "NEW")]
    assert unit_layouts("rotations", 2, 0) == [("NEW", "BASE"), ("BASE", "NEW")]
    assert games_per_unit("rotations+swap", 2) == 2


@pytest.mark.parametrize("seats", [3, 4, 6])
def test_swap_exchanges_new_and_base_and_leaves_the_opponents_in_place(seats: int) -> None:
    positions = Counter()
    for i in range(seats):
        first, second = unit_layouts("swap", seats, i)
        for a, b in zip(first, second, strict=True):
            if a.startswith("OPP"):
                assert a == b
            else:
                assert {a, b} == {"NEW", "BASE"}
        positions[first.index("NEW")] += 1
        positions[second.index("NEW")] += 1
    # over K units the pair has visited every part of the table
    assert sum(positions.values()) == 2 * seats and len(positions) == seats


@pytest.mark.parametrize("seats", [3, 4])
def test_rotations_put_every_player_in_every_seat_once(seats: int) -> None:
    for i in range(2):
        layouts = unit_layouts("rotations", seats, i)
        assert len(layouts) == seats
        for seat in range(seats):
            assert sorted(lay[seat] for lay in layouts) == sorted(layouts[0])
    both = unit_layouts("rotations+swap", seats, 0)
    assert len(set(both)) == 2 * seats


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_independent_games_balance_seats_and_orders_over_2k_units(seats: int) -> None:
    layouts = [unit_layouts("independent", seats, i)[0] for i in range(2 * seats)]
    assert Counter(lay.index("NEW") for lay in layouts) == dict.fromkeys(range(seats), 2)
    assert Counter(lay.index("BASE") for lay in layouts) == dict.fromkeys(range(seats), 2)


def test_unknown_designs_and_table_sizes_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown design"):
        unit_layouts("mirror", 2, 0)
    with pytest.raises(ValueError):
        unit_layouts("swap", 1, 0)
    assert set(DESIGNS) == {"independent", "swap", "rotations", "rotations+swap"}


def test_scores_of_a_ranking() -> None:
    ranks = (2, 1, 2, 4)  # seat 1 won, seats 0 and 2 tied second
    assert head_to_head(ranks, 0, 1) == "L"
    assert head_to_head(ranks, 1, 0) == "W"
    assert head_to_head(ranks, 0, 2) == "D"
    assert [placement_points(ranks, s) for s in range(4)] == [1.5, 3.0, 1.5, 0.0]


def play(layout: tuple[str, ...], policies: dict[str, str], seed: int) -> Game:
    pols = [make_policy(policies[role], seat) for seat, role in enumerate(layout)]
    game = Game(RULESETS["base"], len(layout), seed)
    while not game.over:
        d = game.decision
        assert d is not None
        game.step(pols[d.seat](game, d))
    return game


@pytest.mark.parametrize(
    ("seats", "policy", "opponents"),
    [(2, "threshold:22", ()), (2, "ev", ()), (3, "threshold:22", ("ev",))],
)
def test_a_deterministic_bot_against_itself_splits_every_duplicate_pair(
    seats: int, policy: str, opponents: tuple[str, ...]
) -> None:
    """Same deal, seats of NEW and BASE swapped: with the same bot on both sides the
    second game is the first with the two names exchanged, so each pair scores exactly
    one win and one loss (or two draws) and the pentanomial has mass only in its middle.
    """
    roles = {"NEW": policy, "BASE": policy}
    roles.update({f"OPP{i}": p for i, p in enumerate(opponents, 1)})
    tally = Tally(2)
    for i in range(25):
        seed = 1000 + i
        games = [play(layout, roles, seed) for layout in unit_layouts("swap", seats, i)]
        assert games[0].seed == games[1].seed
        results = [
            head_to_head(g.ranks, lay.index("NEW"), lay.index("BASE"))
            for g, lay in zip(games, unit_layouts("swap", seats, i), strict=True)
        ]
        tally.add(results)
    counts = tally.counts
    assert counts[0] == counts[1] == counts[3] == counts[4] == 0
    assert counts[2] == 25
    assert {"WL", "LW"} <= set(tally.outcomes)  # the deals do differ
