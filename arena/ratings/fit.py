"""Order-independent maximum-likelihood ratings: a Plackett–Luce fit of table rankings.

Model
-----
Player ``i`` has strength ``γ_i = exp(θ_i)``. Without ties, a table's finishing order is
Plackett–Luce: the winner is drawn from the table with probability proportional to
strength, the runner-up likewise from those left, and so on::

    P(order) = Π_t γ_(t) / Σ_{u ≥ t} γ_(u)

With two seats this is exactly Bradley–Terry, ``P(i beats j) = γ_i / (γ_i + γ_j)``, which
on the Elo scale ``R = 400·log10 γ`` is the Elo formula.

Ties: Efron's approximation
---------------------------
A group ``G`` of ``d`` players tied at one rank, with ``S_G`` their total strength and
``S_R`` the total strength of everybody not yet placed (the group included), contributes::

    Π_{i∈G} γ_i / Π_{l=0}^{d−1} (S_R − (l/d)·S_G)

as in Efron's treatment of tied event times in the Cox model. It is the average of the
Plackett–Luce denominators over the ``d!`` possible orders within the group, taken term by
term, so it is symmetric in the tied players and reduces to Plackett–Luce when ``d = 1``.
For two seats a tie contributes ``2·p(1 − p)`` with ``p = γ_i/(γ_i + γ_j)``, the likelihood
of one win plus one loss: like a score of 0.5 it pulls the pair towards equality (with the
weight of two decisive results). Efron is closer to the exact marginal likelihood than
Breslow's ``S_R**d`` denominator, which over-penalises large tied groups. Every game of
``K`` seats yields exactly ``K`` denominator terms.

Prior: virtual draws against the field (BayesElo-style)
--------------------------------------------------------
The likelihood only sees differences, and a perfect record drives the MLE to infinity.
Each player therefore also gets ``prior_strength`` virtual two-player *draws* against a
fixed average opponent of strength 1 (``θ = 0``); with the Efron tie term above their
log-density is ``v·(θ − 2·log(1 + e^θ))``, a log-concave, logistic-tailed prior with
curvature ``v/2`` at the mean. It makes the posterior strictly concave, so the optimum is
unique and finite even for disconnected groups or perfect records, and it is negligible
once a player has played a few dozen games. Pass a tiny value (e.g. ``1e-6``) for an
essentially unregularised MLE on well-connected data.

Solver and uncertainty
----------------------
Newton's method with a backtracking (Armijo) line search on the strictly concave log
posterior, starting from ``θ = 0``. The gradient and the full Hessian are assembled by
vectorised numpy over all tables of the same size; each Newton system is solved by
Jacobi-preconditioned conjugate gradients with numpy's own matrix–vector loop (dense
Cholesky as a fallback), which stays fast when the BLAS thread pool competes for a small
or busy machine. The covariance is the inverse of the observed information (negative
Hessian of the log posterior) at the optimum. Ratings are reported centred on their mean,
so the covariance is projected onto that constraint (``C Σ C``, ``C = I − 11ᵀ/n``):
intervals describe a player's rating relative to the field mean, and differences between
players (hence LOS) are unaffected by the projection.
Memory is ``O(n_players²)`` for the dense Hessian, fine up to a few thousand players.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from arena.ratings.types import Fit, GameResult

__all__ = ["ELO_PER_NATURAL_UNIT", "fit_ratings", "refits"]

ELO_PER_NATURAL_UNIT: float = 400.0 / math.log(10.0)
"""Elo points per unit of natural log-strength θ (about 173.7)."""

_Z95 = 1.959963984540054  # two-sided 95 % normal quantile
_CHUNK_ENTRIES = 1 << 21  # at most this many (game, term, seat) entries per chunk
_MAX_STEP = 4.0  # trust cap on a Newton step, in natural log units (~700 Elo)
_TOL = 1e-9  # convergence: largest step in natural log units
_MAX_ITER = 200
_CG_RTOL = 1e-10  # relative residual of the conjugate-gradient Newton step
_CG_MAX_ITER = 500

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class _Chunk:
    """Games of one table size ``K``, seats in finishing order (best first).

    ``weights[g, t, q]`` is the weight of seat ``q`` in the ``t``-th Efron denominator of
    game ``g``: 0 if ``q`` is placed above ``t``'s tie group, ``1 − l/d`` inside the group
    (``t`` is its ``l``-th member of ``d``), 1 below. For chunks without ties it is a single
    shared ``(1, K, K)`` upper-triangular mask. ``pairs`` holds the flat indices
    ``seat_q · n + seat_p`` of each game's ``K × K`` information block.
    """

    seats: IntArray
    weights: FloatArray
    pairs: IntArray


def _efron_weights(sorted_ranks: IntArray) -> FloatArray:
    """Efron denominator weights for rows of ranks sorted ascending (shape ``(n, K)``)."""
    n, k = sorted_ranks.shape
    pos = np.arange(k)
    new_group = np.ones((n, k), dtype=bool)
    new_group[:, 1:] = sorted_ranks[:, 1:] != sorted_ranks[:, :-1]
    start = np.maximum.accumulate(np.where(new_group, pos, 0), axis=1)
    ends_group = np.ones((n, k), dtype=bool)
    ends_group[:, :-1] = new_group[:, 1:]
    # group end (exclusive) = next position where a group ends, scanning from the right
    end_marks = np.where(ends_group, pos + 1, k)
    end = np.minimum.accumulate(end_marks[:, ::-1], axis=1)[:, ::-1]
    size = end - start
    within = (1.0 - (pos - start) / size)[:, :, None]  # (n, K terms, 1)
    start_t = start[:, :, None]
    start_q = start[:, None, :]
    return np.where(start_q > start_t, 1.0, np.where(start_q == start_t, within, 0.0))


@dataclass(frozen=True)
class _Data:
    """Games encoded as index arrays."""

    names: list[str]
    games: IntArray  # games played (all games, one-player ones included)
    rated: FloatArray  # seats in games of two or more players (Plackett–Luce numerators)
    points: FloatArray  # total pairwise score
    comparisons: FloatArray  # number of pairwise comparisons
    chunks: list[_Chunk]


def _make_chunks(seats: IntArray, ranks: IntArray, n_players: int) -> list[_Chunk]:
    """Sort tables into finishing order and cut them into chunks of bounded size."""
    k = seats.shape[1]
    order = np.argsort(ranks, axis=1, kind="stable")
    seats = np.take_along_axis(seats, order, axis=1)
    ranks = np.take_along_axis(ranks, order, axis=1)
    tied = (ranks[:, 1:] == ranks[:, :-1]).any(axis=1)
    rows = max(1, _CHUNK_ENTRIES // (k * k))
    chunks = []
    untied_mask = np.triu(np.ones((k, k)))[None, :, :]
    for has_ties in (False, True):
        group = seats[tied == has_ties]
        group_ranks = ranks[tied == has_ties]
        for lo in range(0, len(group), rows):
            part = group[lo : lo + rows]
            weights = _efron_weights(group_ranks[lo : lo + rows]) if has_ties else untied_mask
            pairs = (part[:, :, None] * n_players + part[:, None, :]).ravel()
            chunks.append(_Chunk(seats=part, weights=weights, pairs=pairs))
    return chunks


def _encode(games: Iterable[GameResult]) -> _Data:
    """Index players and group games by table size into chunks for vectorised passes."""
    games = list(games)
    first_seen: dict[str, int] = {}
    flat_names = [p for g in games for p in g.players]
    # setdefault keeps the position of each name's first occurrence; unique() compacts
    firsts = np.fromiter(
        map(first_seen.setdefault, flat_names, itertools.count()),
        dtype=np.int64,
        count=len(flat_names),
    )
    _, flat_ids = np.unique(firsts, return_inverse=True)
    flat_ids = flat_ids.astype(np.int64)
    names = list(first_seen)  # dicts keep first-insertion order, matching unique()
    flat_ranks = np.fromiter(
        (r for g in games for r in g.ranks), dtype=np.int64, count=len(flat_names)
    )
    sizes = np.fromiter((len(g.players) for g in games), dtype=np.int64, count=len(games))
    return _encode_flat(names, flat_ids, flat_ranks, sizes)


def _encode_flat(
    names: list[str], flat_ids: IntArray, flat_ranks: IntArray, sizes: IntArray
) -> _Data:
    """:func:`_encode` of games given as flat arrays: every seat's player index and rank,
    game after game, and each game's number of seats."""
    n_players = len(names)
    starts = np.cumsum(sizes) - sizes

    games_played = np.bincount(flat_ids, minlength=n_players)
    rated = games_played - np.bincount(flat_ids[starts[sizes == 1]], minlength=n_players)
    points = np.zeros(n_players)
    comparisons = np.zeros(n_players)
    chunks: list[_Chunk] = []
    for k in np.unique(sizes[sizes >= 2]).tolist():
        rows = starts[sizes == k][:, None] + np.arange(k)
        seats = flat_ids[rows]
        ranks = flat_ranks[rows]
        flat = seats.ravel()
        better = (ranks[:, :, None] < ranks[:, None, :]).sum(axis=2)
        tied = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2) - 1
        points += np.bincount(flat, weights=(better + 0.5 * tied).ravel(), minlength=n_players)
        comparisons += np.bincount(flat, minlength=n_players) * (k - 1)
        chunks.extend(_make_chunks(seats, ranks, n_players))

    return _Data(
        names=names,
        games=games_played.astype(np.int64),
        rated=rated.astype(float),
        points=points,
        comparisons=comparisons,
        chunks=chunks,
    )


def _log_posterior(
    theta: FloatArray, data: _Data, prior_strength: float
) -> tuple[float, FloatArray, FloatArray]:
    """Log posterior (up to a constant), its gradient, and the negative Hessian."""
    n = len(theta)
    value = float(data.rated @ theta)
    expected = np.zeros(n)
    flat_info = np.zeros(n * n)
    for chunk in data.chunks:
        seats = chunk.seats
        k = seats.shape[1]
        th = theta[seats]
        top = th.max(axis=1, keepdims=True)
        strength = np.exp(th - top)
        a = chunk.weights * strength[:, None, :]  # (games, terms, seats)
        denom = a.sum(axis=2)
        value -= float(np.log(denom).sum() + k * top.sum())
        r = a / denom[:, :, None]
        share = r.sum(axis=1)  # expected numerator count of each seat
        expected += np.bincount(seats.ravel(), weights=share.ravel(), minlength=n)
        # information of one game: Σ_t diag(r_t) − r_t r_tᵀ
        block = -np.matmul(r.transpose(0, 2, 1), r)
        diag = np.arange(k)
        block[:, diag, diag] += share
        flat_info += np.bincount(chunk.pairs, weights=block.ravel(), minlength=n * n)
    info = flat_info.reshape(n, n)

    # prior: v virtual draws against θ = 0, log-density v·(θ − 2·log(1 + e^θ))
    v = prior_strength
    value += float(v * (theta - 2.0 * np.logaddexp(0.0, theta)).sum())
    half = np.tanh(0.5 * theta)
    grad = data.rated - expected - v * half
    info[np.diag_indices(n)] += 0.5 * v * (1.0 - half * half)
    return value, grad, info


def _matvec(matrix: FloatArray, vector: FloatArray) -> FloatArray:
    """``matrix @ vector`` in numpy's own loop: no BLAS thread pool, which on a small or
    busy machine can be far slower than one core for this memory-bound product."""
    product: FloatArray = np.einsum("ij,j->i", matrix, vector)
    return product


def _solve(info: FloatArray, rhs: FloatArray) -> FloatArray:
    """Solve ``info · x = rhs`` for the symmetric positive-definite information matrix.

    Jacobi-preconditioned conjugate gradients (the information matrix of a rating fit is
    diagonally dominant up to the weakly determined mean, so a few dozen products
    suffice); falls back to a dense Cholesky solve if that stalls.
    """
    n = len(rhs)
    inv_diag = 1.0 / np.diag(info)
    x = np.zeros(n)
    r = rhs.copy()
    z = inv_diag * r
    p = z.copy()
    rz = float(r @ z)
    goal = (_CG_RTOL * float(np.linalg.norm(rhs))) ** 2
    for _ in range(min(n + 10, _CG_MAX_ITER)):
        if float(r @ r) <= goal:
            return x
        q = _matvec(info, p)
        alpha = rz / float(p @ q)
        x += alpha * p
        r -= alpha * q
        z = inv_diag * r
        rz_next = float(r @ z)
        p = z + (rz_next / rz) * p
        rz = rz_next
    if float(r @ r) <= goal:
        return x
    try:
        factor = scipy.linalg.cho_factor(info, check_finite=False)
        return np.asarray(scipy.linalg.cho_solve(factor, rhs, check_finite=False), np.float64)
    except np.linalg.LinAlgError:
        return np.asarray(np.linalg.lstsq(info, rhs, rcond=None)[0], np.float64)


def _maximise(
    data: _Data, prior_strength: float, start: FloatArray | None = None
) -> tuple[FloatArray, FloatArray, int]:
    """Newton–Armijo ascent from ``start`` (default θ = 0); returns θ, the information
    there, iterations. The optimum is unique, so the start changes only the path."""
    n = len(data.names)
    theta = np.zeros(n) if start is None else np.array(start, dtype=float)
    value, grad, info = _log_posterior(theta, data, prior_strength)
    for iteration in range(1, _MAX_ITER + 1):
        step = _solve(info, grad)
        biggest = float(np.abs(step).max())
        if biggest > _MAX_STEP:
            step *= _MAX_STEP / biggest
            biggest = _MAX_STEP
        slope = float(grad @ step)  # predicted first-order gain, > 0
        t = 1.0
        while True:
            trial = theta + t * step
            new_value, new_grad, new_info = _log_posterior(trial, data, prior_strength)
            # Armijo; near the optimum rounding hides the gain, so accept tiny steps.
            if new_value >= value + 1e-4 * t * slope or t * slope < 1e-10 or t < 1e-8:
                break
            t *= 0.5
        theta, value, grad, info = trial, new_value, new_grad, new_info
        if t * biggest < _TOL:
            return theta, info, iteration
    warnings.warn(
        f"fit_ratings: Newton did not converge in {_MAX_ITER} iterations",
        RuntimeWarning,
        stacklevel=3,
    )
    return theta, info, _MAX_ITER


def fit_ratings(
    games: Iterable[GameResult], *, prior_strength: float = 2.0, anchor: float = 1500.0
) -> Fit:
    """Fit Plackett–Luce ratings to all games at once (the result ignores game order).

    Each game's ranking is a Plackett–Luce observation (Bradley–Terry for two seats); tied
    ranks use Efron's approximation; the MAP estimate under a prior of ``prior_strength``
    virtual draws per player against an average opponent is found by Newton's method.
    See the module docstring for the model, tie treatment and prior.

    Args:
        games: the results; one-player games count as games played but carry no
            information (a player with only those is placed by the prior alone).
        prior_strength: virtual draws per player against the field mean (BayesElo
            style); must be positive. The default 2 is weak: a player's interval is
            about ±340 Elo before any game.
        anchor: the mean rating of the fitted players.

    Returns:
        A ``Fit``: ratings on the Elo scale ``anchor + 400·log10(γ)`` centred on
        ``anchor``, 95 % intervals, covariance and likelihood of superiority. No games
        give an empty ``Fit``; a lone player sits at ``anchor`` with a zero-width
        interval, since intervals are relative to the field mean.
    """
    if not (prior_strength > 0.0 and math.isfinite(prior_strength)):
        raise ValueError(f"prior_strength must be positive and finite, got {prior_strength}")
    data = _encode(games)
    n = len(data.names)
    if n == 0:
        return Fit.empty(anchor=anchor, prior_strength=prior_strength)

    theta, info, iterations = _maximise(data, prior_strength)
    cov = np.linalg.inv(info)
    cov = 0.5 * (cov + cov.T)
    row = cov.mean(axis=1)
    cov = cov - row[:, None] - row[None, :] + row.mean()  # C Σ C, C = I − 11ᵀ/n
    cov *= ELO_PER_NATURAL_UNIT**2

    elo = anchor + ELO_PER_NATURAL_UNIT * (theta - theta.mean())
    order = sorted(range(n), key=lambda i: (-elo[i], data.names[i]))
    names = [data.names[i] for i in order]
    elo = elo[order]
    cov = cov[np.ix_(order, order)]
    half_width = _Z95 * np.sqrt(np.clip(np.diag(cov), 0.0, None))

    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(
            data.comparisons > 0, data.points / np.maximum(data.comparisons, 1), np.nan
        )[order]
    fit = Fit(
        players=names,
        ratings={p: float(r) for p, r in zip(names, elo, strict=True)},
        ci_low={p: float(r - h) for p, r, h in zip(names, elo, half_width, strict=True)},
        ci_high={p: float(r + h) for p, r, h in zip(names, elo, half_width, strict=True)},
        games={p: int(g) for p, g in zip(names, data.games[order], strict=True)},
        score={p: float(s) for p, s in zip(names, score, strict=True)},
        cov=cov,
        los_next={},
        anchor=anchor,
        prior_strength=prior_strength,
        iterations=iterations,
    )
    fit.los_next.update(
        {p: (fit.los(p, names[i + 1]) if i + 1 < n else None) for i, p in enumerate(names)}
    )
    return fit


def refits(
    groups: Iterable[Sequence[GameResult]],
    *,
    prior_strength: float = 2.0,
    anchor: float = 1500.0,
) -> Iterator[dict[str, float]]:
    """The ratings of :func:`fit_ratings` re-run after each group of games: over the first
    group, then the first two, and so on (e.g. a tournament's rounds, for a rating
    history). Yields one ``player -> rating`` dict per group, of every player seen so far.

    Each fit starts from the previous optimum (new players from the field mean), so it
    takes a few Newton steps instead of a fit from scratch, and skips the covariance; the
    ratings are those of ``fit_ratings`` on the same games, to within its convergence
    tolerance.
    """
    if not (prior_strength > 0.0 and math.isfinite(prior_strength)):
        raise ValueError(f"prior_strength must be positive and finite, got {prior_strength}")
    index: dict[str, int] = {}
    names: list[str] = []
    ids: list[IntArray] = []
    ranks: list[IntArray] = []
    sizes: list[IntArray] = []
    theta = np.zeros(0)
    for group in groups:
        # only the new games are indexed; the arrays of the earlier ones are reused
        for g in group:
            for p in g.players:
                if p not in index:
                    index[p] = len(names)
                    names.append(p)
        ids.append(np.array([index[p] for g in group for p in g.players], dtype=np.int64))
        ranks.append(np.array([r for g in group for r in g.ranks], dtype=np.int64))
        sizes.append(np.array([len(g.players) for g in group], dtype=np.int64))
        n = len(names)
        if n == 0:
            yield {}
            continue
        data = _encode_flat(
            list(names), np.concatenate(ids), np.concatenate(ranks), np.concatenate(sizes)
        )
        # names keep the order of first appearance, so the old players come first
        start = np.concatenate([theta, np.zeros(n - len(theta))])
        theta, _, _ = _maximise(data, prior_strength, start)
        elo = anchor + ELO_PER_NATURAL_UNIT * (theta - theta.mean())
        yield {p: float(r) for p, r in zip(data.names, elo, strict=True)}
