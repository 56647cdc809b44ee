"""Unit outcomes, the estimates drawn from them, and the variance ratio of a design.

The intervals and LOS are checked for calibration on synthetic pairs with a known Elo
difference (they must account for the correlation inside a deal), the variance ratio
against a joint distribution whose ratio is known exactly, and its standard error
against the spread of repeated estimates.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from synthetic_units import PAIR_SHAPE, at_elo

from arena.abtest.elo import score_from_elo
from arena.abtest.pairs import Tally, variance_ratio


def tally_from_pair_scores(pdf: np.ndarray, n: int, rng: np.random.Generator) -> Tally:
    """A tally of ``n`` pairs drawn from a pentanomial pdf (a half-point unit is a draw
    and a win or loss, in random order)."""
    keys = {0: ["LL"], 1: ["LD", "DL"], 2: ["WL", "LW"], 3: ["WD", "DW"], 4: ["WW"]}
    t = Tally(2)
    for i, c in enumerate(rng.multinomial(n, pdf)):
        options = keys[i]
        split = rng.multinomial(c, [1 / len(options)] * len(options))
        for key, k in zip(options, split, strict=True):
            if k:
                t.add(key, int(k))
    return t


def test_units_are_counted_by_half_points_and_games_by_result() -> None:
    t = Tally(2, {"WL": 3, "WW": 2, "LL": 1})
    t.add("DW")
    t.add(["L", "W"])
    t.add([1, 0.5])
    assert t.units == 9 and t.games == 18
    assert t.counts == (1, 0, 4, 2, 2)
    assert t.game_counts() == {"W": 10, "D": 2, "L": 6}
    assert t.outcomes == {"WL": 3, "WW": 2, "LL": 1, "DW": 1, "LW": 1, "WD": 1}


@pytest.mark.parametrize("bad", ["W", "WLW", "WX", ["W", 2], [1, 0.3], [True, False]])
def test_malformed_units_are_rejected(bad: object) -> None:
    with pytest.raises(ValueError):
        Tally(2).add(bad)  # type: ignore[arg-type]


def test_a_tally_round_trips_through_json_and_rejects_bad_stored_counts() -> None:
    t = Tally(2, {"WL": 5, "LW": 4, "WW": 1})
    again = Tally.from_dict(json.loads(json.dumps(t.as_dict())))
    assert again == t and again.estimate() == t.estimate()
    with pytest.raises(ValueError):
        Tally.from_dict({"games_per_unit": 2, "outcomes": {"WL": -1}})
    with pytest.raises(ValueError):
        Tally.from_dict({"games_per_unit": 2, "outcomes": {"W": 1}})


def test_an_empty_tally_says_nothing_rather_than_failing() -> None:
    e = Tally(2).estimate()
    assert e.units == 0 and e.los == 0.5 and e.elo == 0.0
    assert e.elo_low == -math.inf and e.elo_high == math.inf
    assert e.variance_ratio is None
    d = e.as_dict()
    json.dumps(d, allow_nan=False)  # infinite figures are stored as null
    assert d["elo_low"] is None


def test_estimates_of_a_known_sample() -> None:
    # 100 pairs: scores 0 x20, 1/2 x50, 1 x30 (as pair results LL, WL, WW)
    t = Tally(2, {"LL": 20, "WL": 50, "WW": 30})
    e = t.estimate()
    assert e.score == pytest.approx(0.55)
    sd = math.sqrt(0.2 * 0.55**2 + 0.5 * 0.05**2 + 0.3 * 0.45**2)
    assert e.score_se == pytest.approx(sd / 10)
    assert e.elo == pytest.approx(-400 * math.log10(1 / 0.55 - 1))
    assert e.elo_low < e.elo < e.elo_high
    assert float(score_from_elo(e.elo_low)) == pytest.approx(0.55 - 1.959964 * sd / 10)
    assert e.nelo == pytest.approx(0.05 / (math.sqrt(2) * sd) * 800 / math.log(10))
    assert e.los == pytest.approx(0.5 * math.erfc(-(0.05 / (sd / 10)) / math.sqrt(2)))


def test_the_elo_interval_covers_the_true_difference_95_percent_of_the_time() -> None:
    """Calibration on correlated pairs: the standard error comes from the pairs, which are
    less noisy than their games (per-game counts would overstate it by about 13 % here)."""
    rng = np.random.default_rng(31)
    true = 15.0
    pdf = at_elo(PAIR_SHAPE, true)
    covered = 0
    trials = 600
    for _ in range(trials):
        e = tally_from_pair_scores(pdf, 400, rng).estimate()
        covered += e.elo_low <= true <= e.elo_high
    assert 0.93 <= covered / trials <= 0.97


def test_los_is_uniform_between_equal_players() -> None:
    rng = np.random.default_rng(32)
    pdf = at_elo(PAIR_SHAPE, 0.0)
    los = np.array([tally_from_pair_scores(pdf, 300, rng).estimate().los for _ in range(600)])
    assert 0.03 <= float(np.mean(los > 0.95)) <= 0.075
    assert 0.45 <= float(np.mean(los > 0.5)) <= 0.55


def test_normalised_elo_equals_elo_for_independent_drawless_games() -> None:
    """The scale's anchor: one game per unit, no draws, a small difference."""
    s = float(score_from_elo(10.0))
    n = 1_000_000
    t = Tally(1, {"W": round(n * s), "L": n - round(n * s)})
    e = t.estimate()
    assert e.nelo == pytest.approx(e.elo, rel=0.01)
    assert e.nelo_high - e.nelo == pytest.approx(1.959964 * 800 / math.log(10) / 1000)


def test_the_variance_ratio_of_a_known_joint_distribution() -> None:
    """P(WL) = P(LW) = 0.3, P(WW) = P(LL) = 0.2: Var g = 1/4, Cov = -0.05, R = 0.8."""
    rng = np.random.default_rng(33)
    keys = ["WL", "LW", "WW", "LL"]
    draws = rng.multinomial(40_000, [0.3, 0.3, 0.2, 0.2])
    t = Tally(2, {k: int(c) for k, c in zip(keys, draws, strict=True)})
    ratio, se = t.variance_ratio() or (math.nan, math.nan)
    assert abs(ratio - 0.8) < 3 * se
    assert se == pytest.approx(0.006, rel=0.3)


def test_the_variance_ratio_is_one_for_independent_games_and_its_error_is_honest() -> None:
    rng = np.random.default_rng(34)
    estimates, errors = [], []
    for _ in range(300):
        g = rng.random((1500, 3)) < np.array([0.5, 0.6, 0.45])  # three independent games
        ratio, se = variance_ratio(g.astype(float)) or (math.nan, math.nan)
        estimates.append(ratio)
        errors.append(se)
    assert float(np.mean(estimates)) == pytest.approx(1.0, abs=0.01)
    assert float(np.std(estimates)) == pytest.approx(float(np.mean(errors)), rel=0.15)


def test_the_tally_and_the_row_form_agree() -> None:
    outcomes = {"WL": 31, "LW": 28, "WW": 12, "LL": 9, "DW": 2}
    t = Tally(2, outcomes)
    rows = [
        [{"W": 1.0, "D": 0.5, "L": 0.0}[c] for c in k]
        for k, n in outcomes.items()
        for _ in range(n)
    ]
    assert t.variance_ratio() == pytest.approx(variance_ratio(np.array(rows)))


def test_the_variance_ratio_needs_two_games_per_unit_and_some_spread() -> None:
    assert Tally(1, {"W": 5, "L": 5}).variance_ratio() is None
    assert Tally(2, {"WL": 1}).variance_ratio() is None
    assert Tally(2, {"WW": 7}).variance_ratio() is None  # no variance in any game
