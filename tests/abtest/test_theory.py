"""Predicted error rates, lengths and games needed (the simulations check them against
real runs in test_sprt_simulation.py; these check the formulas' own consistency)."""

from __future__ import annotations

import math

import pytest
from synthetic_units import GAME_SHAPE, PAIR_SHAPE, at_elo

from arena.abtest.elo import score_from_elo
from arena.abtest.sprt import SprtSpec
from arena.abtest.theory import games_needed, operating_point


def test_wald_error_rates_hold_at_the_hypotheses() -> None:
    spec = SprtSpec(0, 10, 0.05, 0.1)
    at0 = operating_point(at_elo(PAIR_SHAPE, 0), spec, overshoot=False)
    at1 = operating_point(at_elo(PAIR_SHAPE, 10), spec, overshoot=False)
    assert at0.prob_h1 == pytest.approx(0.05, abs=0.005)
    assert 1 - at1.prob_h1 == pytest.approx(0.1, abs=0.005)
    assert at0.drift < 0 < at1.drift


def test_midway_the_verdict_is_a_coin_toss_and_the_test_is_longest() -> None:
    spec = SprtSpec(0, 10)
    mid = operating_point(at_elo(GAME_SHAPE, 5), spec)
    assert mid.prob_h1 == pytest.approx(0.5, abs=0.01)
    shorter = [operating_point(at_elo(GAME_SHAPE, e), spec).expected_units for e in (0, 10)]
    assert max(shorter) < mid.expected_units
    # at zero drift the length is -A B / sigma^2 (bounds moved out by the overshoot)
    assert mid.expected_units == pytest.approx(
        -(spec.lower - 0.583 * mid.spread) * (spec.upper + 0.583 * mid.spread) / mid.spread**2,
        rel=0.05,
    )


def test_games_needed_scale_with_the_variance_ratio() -> None:
    spec = SprtSpec(0, 10)
    plain = games_needed(spec, 0.25, 1.0)
    dup = games_needed(spec, 0.25, 0.8)
    assert dup.fixed == pytest.approx(0.8 * plain.fixed)
    assert dup.sprt_at_elo1 == pytest.approx(0.8 * plain.sprt_at_elo1, rel=0.01)
    assert plain.sprt_at_elo0 == pytest.approx(plain.sprt_at_elo1, rel=1e-6)  # alpha = beta
    assert plain.sprt_at_elo1 < plain.sprt_worst < plain.fixed


def test_the_normal_model_agrees_with_the_full_model_for_drawless_games() -> None:
    """games_needed (normal approximation) against operating_point (the projected
    trinomial) on independent games without draws at the same variance."""
    spec = SprtSpec(0, 10)
    s1 = float(score_from_elo(10))
    pdf = [1 - s1, 0.0, s1]
    full = operating_point(pdf, spec).expected_units
    var = s1 * (1 - s1)
    normal = games_needed(spec, var, games_per_unit=1).sprt_at_elo1
    assert normal == pytest.approx(full, rel=0.02)


def test_the_fixed_length_formula() -> None:
    spec = SprtSpec(0, 10, 0.05, 0.05)
    ds = float(score_from_elo(10) - 0.5)
    assert games_needed(spec, 0.25).fixed == pytest.approx((2 * 1.6448536 * 0.5 / ds) ** 2)
    assert math.isfinite(games_needed(spec, 0.25, 0.5).sprt_worst)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError):
        operating_point([0.5, 0.5], SprtSpec())
    with pytest.raises(ValueError):
        operating_point([0.6, 0.2, 0.3], SprtSpec())
    with pytest.raises(ValueError):
        games_needed(SprtSpec(model="normalized"), 0.25)
    with pytest.raises(ValueError):
        games_needed(SprtSpec(), 0.0)
