"""The GSPRT keeps its error rates and its predicted length on synthetic units.

1,000 simulated tests at the true difference elo0 and 1,000 at elo1, for the pentanomial
model of duplicate pairs, the trinomial fallback of independent games and the
normalised-Elo variant: H0 must be accepted at elo0 with frequency >= 1 - alpha - 0.02,
H1 at elo1 with frequency >= 1 - beta - 0.02, and the mean length must be within 10 % of
the corrected diffusion approximation of :mod:`arena.abtest.theory` (Brownian OC and
Wald's identity with Siegmund's overshoot correction). Bounds 20 Elo (40 normalised
Elo) apart keep the tests a few hundred units long, so the module runs in seconds.
"""

from __future__ import annotations

import numpy as np
import pytest
from synthetic_units import GAME_SHAPE, PAIR_SHAPE, at_elo, at_nelo, simulate_sprts

from arena.abtest.sprt import SprtSpec
from arena.abtest.theory import operating_point

RUNS = 1000

CASES = {
    "pentanomial pairs, logistic": (SprtSpec(0, 20, 0.05, 0.05), PAIR_SHAPE, at_elo, 11),
    "pentanomial pairs, alpha 0.02 beta 0.05, elo0 5": (
        SprtSpec(5, 25, 0.02, 0.05),
        PAIR_SHAPE,
        at_elo,
        12,
    ),
    "trinomial games, logistic": (SprtSpec(0, 20, 0.05, 0.05), GAME_SHAPE, at_elo, 13),
    "pentanomial pairs, normalized": (
        SprtSpec(0, 40, 0.05, 0.05, model="normalized"),
        PAIR_SHAPE,
        at_nelo,
        14,
    ),
}


@pytest.mark.parametrize("truth", ["elo0", "elo1"])
@pytest.mark.parametrize("case", list(CASES))
def test_simulated_sprts_keep_error_rates_and_expected_length(case: str, truth: str) -> None:
    spec, shape, dist, seed = CASES[case]
    pdf = dist(shape, spec.elo0 if truth == "elo0" else spec.elo1)
    rng = np.random.default_rng([seed, truth == "elo1"])
    verdicts, lengths = simulate_sprts(pdf, spec, RUNS, rng)
    assert (verdicts != 0).all(), "every test reaches a verdict"
    if truth == "elo0":
        accepted = float(np.mean(verdicts == -1))
        assert accepted >= 1 - spec.alpha - 0.02, f"H0 accepted in only {accepted:.3f}"
    else:
        accepted = float(np.mean(verdicts == 1))
        assert accepted >= 1 - spec.beta - 0.02, f"H1 accepted in only {accepted:.3f}"
    predicted = operating_point(pdf, spec).expected_units
    mean = float(lengths.mean())
    assert mean == pytest.approx(predicted, rel=0.10), (mean, predicted)


def test_the_test_separates_what_it_should() -> None:
    """Halfway between the hypotheses the verdicts split; beyond elo1 H1 wins nearly always.

    Guards against a statistic that accepts one side whatever the data (the error-rate
    checks above pass trivially for an SPRT that always accepts H0 at elo0, but not here).
    """
    spec = SprtSpec(0, 20, 0.05, 0.05)
    rng = np.random.default_rng(21)
    mid, _ = simulate_sprts(at_elo(PAIR_SHAPE, 10), spec, 400, rng)
    assert 0.35 < float(np.mean(mid == 1)) < 0.65
    far, lengths = simulate_sprts(at_elo(PAIR_SHAPE, 40), spec, 400, rng)
    assert float(np.mean(far == 1)) > 0.995
    assert lengths.mean() < operating_point(at_elo(PAIR_SHAPE, 20), spec).expected_units
