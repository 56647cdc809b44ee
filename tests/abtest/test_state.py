"""The resumable state of a sequential test: verdicts, storage, the live line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from synthetic_units import PAIR_SHAPE, at_elo

from arena.abtest.sprt import SprtSpec, Verdict, llr
from arena.abtest.state import SprtState

PAIR_KEYS = {0: "LL", 1: "LD", 2: "WL", 3: "WD", 4: "WW"}


def pair_stream(elo: float, n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [PAIR_KEYS[int(i)] for i in rng.choice(5, size=n, p=at_elo(PAIR_SHAPE, elo))]


def test_the_first_crossing_decides_and_later_units_do_not_undo_it() -> None:
    state = SprtState.new(SprtSpec(0, 10), games_per_unit=2)
    for unit in pair_stream(40, 5000, 1):
        if state.add(unit) is not Verdict.CONTINUE:
            break
    assert state.verdict is Verdict.ACCEPT_H1
    decided = state.decided_at
    assert decided == state.tally.units
    assert state.llr >= state.spec.upper
    # units that were in flight arrive: all losses; the LLR falls back, the verdict stays
    for _ in range(200):
        state.add("LL")
    assert state.llr < state.spec.upper
    assert state.verdict is Verdict.ACCEPT_H1 and state.decided_at == decided
    assert state.status().estimate.units == decided + 200


def test_the_llr_is_the_statistic_of_the_counts() -> None:
    state = SprtState.new(SprtSpec(-5, 5), games_per_unit=2)
    for unit in pair_stream(0, 300, 2):
        state.add(unit)
    assert state.llr == pytest.approx(float(llr(state.tally.counts, state.spec)))


@pytest.mark.parametrize("cut", [1, 137, 600])
def test_a_test_stored_and_resumed_ends_exactly_like_one_run_without_a_break(cut: int) -> None:
    units = pair_stream(15, 4000, 3)
    spec = SprtSpec(0, 10, 0.05, 0.1)
    whole = SprtState.new(spec)
    for u in units:
        whole.add(u)
    part = SprtState.new(spec)
    for u in units[:cut]:
        part.add(u)
    stored = json.dumps(part.as_dict())
    resumed = SprtState.from_dict(json.loads(stored))
    for u in units[cut:]:
        resumed.add(u)
    assert resumed.as_dict() == whole.as_dict()
    assert resumed.status() == whole.status()
    assert whole.decided  # 4,000 pairs at 15 Elo decide a 0-vs-10 test (~1,300 expected)


def test_a_stored_verdict_needs_its_unit_count() -> None:
    state = SprtState.new(SprtSpec()).as_dict()
    state["verdict"] = "H1"
    with pytest.raises(ValueError, match="unit count"):
        SprtState.from_dict(state)


def test_the_status_is_json_ready() -> None:
    state = SprtState.new(SprtSpec(0, 10))
    assert json.loads(json.dumps(state.status().as_dict(), allow_nan=False))["units"] == 0
    for u in pair_stream(10, 50, 4):
        state.add(u)
    data = json.loads(json.dumps(state.status().as_dict(), allow_nan=False))
    assert data["verdict"] == "continue" and data["units"] == 50 and data["games"] == 100
    assert len(data["counts"]) == 5 and data["sprt"]["elo1"] == 10.0


def test_the_live_line_shows_the_numbers_of_the_test() -> None:
    state = SprtState.new(SprtSpec(0, 10))
    for u in ["WL", "WW", "LW", "WL", "LL", "WD"]:
        state.add(u)
    line = state.line()
    st = state.status()
    assert line.startswith("pairs 6 (12 games)")
    assert f"LLR {st.llr:+.2f} [-2.94, +2.94]" in line
    assert "pentanomial 1 0 3 1 1" in line
    assert f"LOS {100 * st.estimate.los:.1f}%" in line
    assert "variance x" in line
    assert line.endswith("continue")
    games = SprtState.new(SprtSpec(0, 10), games_per_unit=1)
    for u in "WWLDW":
        games.add(u)
    assert games.line().startswith("games 5") and "W/D/L 3/1/1" in games.line()
    assert "variance" not in games.line()
