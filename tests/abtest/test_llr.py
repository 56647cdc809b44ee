"""The GSPRT log-likelihood ratio and its constrained maximum-likelihood steps.

Checked against a general-purpose constrained optimiser (scipy's SLSQP maximising the
multinomial likelihood under each hypothesis), against the symmetries the statistic
must have, and on the degenerate samples a real test meets (no units, one-sided
results, a bot against itself).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import minimize

from arena.abtest.elo import NELO_PER_T, score_from_elo
from arena.abtest.mle import mle_mean, mle_tvalue, solve_secular
from arena.abtest.sprt import REGULARISATION, SprtSpec, llr, unit_values


def constrained_loglik(n: np.ndarray, a: np.ndarray, constraint, starts: list) -> float:
    """max sum n_i log p_i over distributions p with constraint(p) = 0: SLSQP from each
    start, the best feasible optimum kept."""
    best = -math.inf
    for start in starts:
        res = minimize(
            lambda p: -float(n @ np.log(p)),
            start,
            jac=lambda p: -n / p,
            constraints=[
                {"type": "eq", "fun": lambda p: p.sum() - 1.0},
                {"type": "eq", "fun": constraint},
            ],
            bounds=[(1e-12, 1.0)] * len(n),
            method="SLSQP",
            options={"ftol": 1e-15, "maxiter": 1000},
        )
        if res.success and abs(constraint(res.x)) < 1e-9 and abs(res.x.sum() - 1) < 1e-9:
            best = max(best, -float(res.fun))
    return best


def constraints(spec: SprtSpec, m: int) -> list:
    a = unit_values(m)
    if spec.model == "logistic":
        return [
            (lambda s: lambda p: float(p @ a) - s)(float(score_from_elo(e)))
            for e in (spec.elo0, spec.elo1)
        ]

    def tvalue(t: float):
        def g(p: np.ndarray) -> float:
            mu = float(p @ a)
            return (mu - 0.5) / math.sqrt(float(p @ (a - mu) ** 2)) - t

        return g

    return [tvalue(math.sqrt(m) * e / NELO_PER_T) for e in (spec.elo0, spec.elo1)]


def fitted(counts: np.ndarray, spec: SprtSpec) -> list[np.ndarray]:
    """Our constrained fits of H0 and H1 (as llr() computes them)."""
    n = np.where(counts > 0, counts, REGULARISATION)
    q = n / n.sum()
    m = (len(n) - 1) // 2
    a = unit_values(m)
    if spec.model == "logistic":
        return [mle_mean(q, a, score_from_elo(e)) for e in (spec.elo0, spec.elo1)]
    return [mle_tvalue(q, a, 0.5, math.sqrt(m) * e / NELO_PER_T) for e in (spec.elo0, spec.elo1)]


@pytest.mark.parametrize("model", ["logistic", "normalized"])
@pytest.mark.parametrize("k", [3, 5])
def test_llr_equals_the_likelihood_ratio_of_the_constrained_maxima(model: str, k: int) -> None:
    """Every score seen: SLSQP from the sample finds the optimum; the LLRs must agree."""
    rng = np.random.default_rng(k)
    spec = SprtSpec(-5, 15, model=model)
    a = unit_values((k - 1) // 2)
    for _ in range(6):
        n = rng.integers(1, 60, size=k).astype(float)
        l0, l1 = (constrained_loglik(n, a, g, [n / n.sum()]) for g in constraints(spec, k // 2))
        assert float(llr(n, spec)) == pytest.approx(l1 - l0, abs=1e-6)


@pytest.mark.parametrize("model", ["logistic", "normalized"])
@pytest.mark.parametrize("k", [3, 5])
def test_no_optimiser_start_beats_the_fit_when_scores_were_never_seen(model: str, k: int) -> None:
    """Unseen scores carry the tiny regularised count; a general optimiser started from
    many points finds no feasible distribution more likely than ours."""
    rng = np.random.default_rng(10 + k)
    spec = SprtSpec(-5, 15, model=model)
    a = unit_values(k // 2)
    for _ in range(4):
        counts = rng.integers(1, 60, size=k).astype(float)
        counts[rng.choice(k, size=k // 2, replace=False)] = 0
        n = np.where(counts > 0, counts, REGULARISATION)
        starts = [n / n.sum(), np.full(k, 1.0 / k), *rng.dirichlet(np.ones(k), size=6)]
        for g, p in zip(constraints(spec, k // 2), fitted(counts, spec), strict=True):
            assert abs(g(p)) < 1e-9 and p.sum() == pytest.approx(1.0, abs=1e-10)
            assert float(n @ np.log(p)) >= constrained_loglik(n, a, g, starts) - 1e-8


def test_mle_steps_satisfy_their_constraints_and_stay_distributions() -> None:
    rng = np.random.default_rng(3)
    a = unit_values(2)
    q = rng.dirichlet(np.ones(5), size=200)
    s = rng.uniform(0.2, 0.8, size=200)
    p = mle_mean(q, a, s)
    assert np.allclose(p.sum(axis=-1), 1.0, atol=1e-12)
    assert np.allclose(p @ a, s, atol=1e-12)
    assert (p > 0).all()
    t = rng.uniform(-0.6, 0.6, size=200)
    pt = mle_tvalue(q, a, 0.5, t)
    mu = pt @ a
    sd = np.sqrt((pt * (a - mu[:, None]) ** 2).sum(axis=-1))
    assert np.allclose(pt.sum(axis=-1), 1.0, atol=1e-10)
    assert np.allclose((mu - 0.5) / sd, t, atol=1e-9)


def test_the_secular_root_is_nan_where_the_constraint_cannot_be_met() -> None:
    # all deviations positive: no distribution on these values has the required mean
    x = solve_secular(np.array([[0.5, 0.5], [0.5, 0.5]]), np.array([[0.1, 0.3], [-0.2, 0.3]]))
    assert math.isnan(x[0])
    assert 0.5 * -0.2 / (1 - 0.2 * x[1]) + 0.5 * 0.3 / (1 + 0.3 * x[1]) == pytest.approx(0)


def test_swapping_the_players_mirrors_the_statistic() -> None:
    """BASE's view of the same units: NEW's H1 (elo1) is BASE's H0 (-elo1) and the other
    way round, so the LLR changes sign and nothing else."""
    rng = np.random.default_rng(8)
    for model in ("logistic", "normalized"):
        spec = SprtSpec(-3, 12, model=model)
        mirrored = SprtSpec(-12, 3, model=model)
        for _ in range(5):
            counts = rng.integers(0, 80, size=5)
            assert float(llr(counts, spec)) == pytest.approx(
                -float(llr(counts[::-1], mirrored)), abs=1e-9
            )


def test_each_unit_moves_the_llr_by_the_log_ratio_of_the_fitted_hypotheses() -> None:
    """The envelope property: dLLR/dn_i = log(p1_i / p0_i), rising with the unit score."""
    counts = np.array([210.0, 12.0, 640.0, 9.0, 260.0])
    spec = SprtSpec(0, 10)
    a = unit_values(2)
    q = counts / counts.sum()
    p0 = mle_mean(q, a, score_from_elo(0))
    p1 = mle_mean(q, a, score_from_elo(10))
    base = float(llr(counts, spec))
    steps = []
    for i in range(5):
        more = counts.copy()
        more[i] += 1
        steps.append(float(llr(more, spec)) - base)
    assert steps == pytest.approx(list(np.log(p1 / p0)), abs=2e-3)
    assert all(x < y for x, y in itertools.pairwise(steps))


def test_data_at_the_h1_score_give_the_likelihood_of_the_data_against_h0() -> None:
    """When the sample's mean is exactly the H1 score, H1's fit is the sample itself."""
    s1 = float(score_from_elo(20))
    n = 10_000.0
    win, draw = s1 - 0.05, 0.1
    counts = n * np.array([1 - win - draw, draw, win])  # mean score: win + draw / 2 = s1
    q = counts / n
    p0 = mle_mean(q, unit_values(1), 0.5)
    spec = SprtSpec(0, 20)
    assert float(llr(counts, spec)) == pytest.approx(float(counts @ np.log(q / p0)), rel=1e-9)
    assert float(llr(counts, spec)) > spec.upper  # 10,000 games at +20 Elo decide it


def test_degenerate_samples() -> None:
    spec = SprtSpec(0, 10)
    assert float(llr([0, 0, 0, 0, 0], spec)) == 0.0
    # only wins or only losses: finite thanks to the regularisation, of the right sign;
    # without any spread in the data the fits explain them by a wide distribution, so the
    # LLR grows only by about log(s1 / s0) per unit and needs ~100 units to decide
    for n in (1, 30, 300):
        wins = float(llr([0, 0, 0, 0, n], spec))
        losses = float(llr([n, 0, 0, 0, 0], spec))
        assert math.isfinite(wins) and wins > 0
        assert math.isfinite(losses) and losses < 0
    assert float(llr([0, 0, 0, 0, 300], spec)) > spec.upper
    assert float(llr([300, 0, 0, 0, 0], spec)) < spec.lower
    # a deterministic bot against itself splits every duplicate pair: H0 is accepted
    decided = next(n for n in range(1, 1000) if float(llr([0, 0, n, 0, 0], spec)) <= spec.lower)
    assert decided < 150


def test_llr_is_vectorised_over_leading_axes() -> None:
    rng = np.random.default_rng(4)
    counts = rng.integers(0, 40, size=(3, 4, 5))
    spec = SprtSpec(0, 10)
    batch = llr(counts, spec)
    assert batch.shape == (3, 4)
    for i in range(3):
        for j in range(4):
            assert batch[i, j] == pytest.approx(float(llr(counts[i, j], spec)), abs=1e-10)


def test_counts_must_have_an_odd_length_of_at_least_three() -> None:
    with pytest.raises(ValueError, match="2m \\+ 1"):
        llr([1, 2, 3, 4], SprtSpec())
