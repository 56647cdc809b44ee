"""A/B tests played for real: built-in policies in this process, every unit stored (on
SQLite and, with ARENA_TEST_POSTGRES, on a real PostgreSQL)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from pathlib import Path

import pytest

from arena.abtest import head_to_head
from arena.abtest_runner import (
    AbOutcome,
    AbTestConfig,
    Player,
    create_test,
    outcome_of,
    run_test,
)
from arena.bots import Policy
from arena.seeds import game_seed
from arena.store import abtests
from arena.store.models import AbGame


def play(db: str, new: str, base: str, **kw: object) -> AbOutcome:
    """A test of built-in policy NEW against BASE, run to its end."""
    names = (new, base if base != new else f"{base}#2")
    cfg = AbTestConfig(
        new=Player(names[0], Policy(new)),
        base=Player(names[1], Policy(base)),
        **kw,  # type: ignore[arg-type]
    )
    tid = create_test(cfg, db)
    return asyncio.run(run_test(db, tid, workers=1))


def by_unit(db: str, tid: int) -> dict[int, list[AbGame]]:
    units: dict[int, list[AbGame]] = defaultdict(list)
    for index, g in abtests.games(db, tid):
        units[index].append(g)
    return units


def test_ev_against_random_accepts_h1_within_a_few_hundred_games(db_url: str) -> None:
    o = play(db_url, "ev", "random", seed=2)
    d = o.as_dict()
    assert (d["verdict"], d["stopped_by"], d["status"]) == ("H1", "sprt", "completed")
    assert d["decided_at"] is not None and d["games"] <= 400
    assert d["elo"] is not None and d["elo"] > 200 and d["ci_low"] > 100
    assert d["llr"] >= d["bounds"][1]
    # the stored units replay to the same verdict and counts
    again = outcome_of(db_url, d["id"]).as_dict()
    assert {k: again[k] for k in ("verdict", "unit_counts", "decided_at", "pairs")} == {
        k: d[k] for k in ("verdict", "unit_counts", "decided_at", "pairs")
    }


def test_a_deterministic_bot_against_itself_splits_every_pair_and_accepts_h0(
    tmp_path: Path,
) -> None:
    o = play(f"sqlite:///{tmp_path / 'a.db'}", "threshold:23", "threshold:23", seed=1)
    d = o.as_dict()
    assert d["verdict"] == "H0"
    # the same bot on the same deal in the other seat plays the same game: the seat wins
    # both games, so NEW wins one game of every pair and every pair scores exactly 1/2
    assert d["unit_counts"] == [0, 0, d["pairs"], 0, 0]
    assert d["variance_ratio"] == 0.0


@pytest.mark.parametrize("seed", [1, 4])
def test_a_random_bot_against_itself_never_passes_at_elo0_0_elo1_10(
    tmp_path: Path, seed: int
) -> None:
    o = play(f"sqlite:///{tmp_path / 'a.db'}", "random", "random", seed=seed, max_games=400)
    d = o.as_dict()
    assert d["verdict"] in ("H0", "inconclusive")
    if d["verdict"] == "inconclusive":
        assert (d["stopped_by"], d["games"]) == ("cap", 400)


def test_the_games_of_a_pair_share_one_deck_seed_with_the_seats_swapped(db_url: str) -> None:
    o = play(db_url, "threshold:23", "threshold:21", seed=3, games=24)
    assert o.as_dict()["stopped_by"] == "length" and o.state.tally.units == 12
    assert o.test.id is not None
    units = by_unit(db_url, o.test.id)
    stored = {u.index: u for u in abtests.units(db_url, o.test.id)}
    assert sorted(units) == list(range(12))
    seeds = set()
    for index, (first, second) in (
        (i, sorted(gs, key=lambda g: g.position)) for i, gs in units.items()
    ):
        # one deal: the first deal of the unit's own match seed
        assert first.seed == second.seed == game_seed(stored[index].seed, 0)
        assert first.seating == ["threshold:23", "threshold:21"]
        assert second.seating == ["threshold:21", "threshold:23"]
        # the stored outcome is NEW's head-to-head result in each game
        assert stored[index].outcome == head_to_head(first.ranks, 0, 1) + head_to_head(
            second.ranks, 1, 0
        )
        seeds.add(first.seed)
    assert len(seeds) == 12  # every pair has a deal of its own


def test_at_three_seats_new_and_base_swap_and_the_opponent_keeps_its_seat(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'a.db'}"
    o = play(
        db,
        "threshold:23",
        "threshold:21",
        seed=5,
        games=12,
        seats=3,
        opponents=[Player("ev", Policy("ev"))],
    )
    assert o.test.id is not None
    seats_of_ev = set()
    for games in by_unit(db, o.test.id).values():
        first, second = sorted(games, key=lambda g: g.position)
        assert first.seed == second.seed
        assert first.seating.index("ev") == second.seating.index("ev")
        swapped = [
            {"threshold:23": "threshold:21", "threshold:21": "threshold:23"}.get(n, n)
            for n in first.seating
        ]
        assert second.seating == swapped
        seats_of_ev.add(first.seating.index("ev"))
    assert seats_of_ev == {0, 1, 2}  # the pair's place at the table rotates
