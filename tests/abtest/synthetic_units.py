"""Synthetic unit scores with a known Elo difference, and a vectorised SPRT simulator.

The shapes are taken from the game: :data:`PAIR_SHAPE` is what 6,000 duplicate pairs of
``threshold:23`` against ``threshold:21`` gave at two seats (pair scores 0, 1 and 2 only —
a two-seat game of Flip 7 is never drawn; the pair structure, with two thirds of the
pairs split, is the effect of the shared deal), plus 1 % of pairs at each of the
half-point scores, as head-to-head ties at larger tables produce them. A distribution
at another Elo is its exponential tilt ``p_i ∝ shape_i · exp(theta · a_i)`` with ``theta``
solved so the mean score is the logistic score of that Elo: the pair structure is kept
and the Elo difference is exact.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from arena.abtest.elo import NELO_PER_T, score_from_elo
from arena.abtest.sprt import SprtSpec, llr, unit_values

# unit-score counts 0, 1/4, 1/2, 3/4, 1 (measured pairs, plus the tie share)
PAIR_SHAPE = np.array([1042.0, 60.0, 3642.0, 60.0, 1316.0])
# one game: loss, draw, win (3 % draws)
GAME_SHAPE = np.array([0.485, 0.03, 0.485])


def tilt(shape: NDArray[np.float64], mean: float) -> NDArray[np.float64]:
    """The exponential tilt of ``shape`` whose mean unit score is ``mean``."""
    q = np.asarray(shape, dtype=float) / np.sum(shape)
    a = unit_values((len(q) - 1) // 2)

    def at(theta: float) -> NDArray[np.float64]:
        w = q * np.exp(theta * (a - 0.5))
        result: NDArray[np.float64] = w / w.sum()
        return result

    theta = brentq(lambda th: float(at(th) @ a) - mean, -60.0, 60.0, xtol=1e-14)
    return at(theta)


def at_elo(shape: NDArray[np.float64], elo: float) -> NDArray[np.float64]:
    """A unit-score distribution of the given shape at a logistic Elo difference."""
    return tilt(shape, float(score_from_elo(elo)))


def at_nelo(shape: NDArray[np.float64], nelo: float) -> NDArray[np.float64]:
    """A unit-score distribution of the given shape at a normalised Elo difference."""
    m = (len(shape) - 1) // 2
    a = unit_values(m)

    def nelo_of(mean: float) -> float:
        p = tilt(shape, mean)
        mu = float(p @ a)
        sd = float(np.sqrt(p @ (a - mu) ** 2))
        return (mu - 0.5) / (np.sqrt(m) * sd) * NELO_PER_T

    if nelo == 0:
        return tilt(shape, 0.5)
    return tilt(shape, brentq(lambda s: nelo_of(s) - nelo, 0.3, 0.7, xtol=1e-14))


def simulate_sprts(
    pdf: NDArray[np.float64],
    spec: SprtSpec,
    runs: int,
    rng: np.random.Generator,
    *,
    block: int = 256,
    cap: int = 1_000_000,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Run ``runs`` independent SPRTs on units drawn from ``pdf``, the LLR checked after
    every unit. Returns the verdicts (+1 H1, -1 H0, 0 undecided at ``cap``) and lengths.

    Vectorised by blocks: the cumulative counts of ``block`` further units of every
    undecided test are formed at once and the LLR of all of them computed in one call;
    the first crossing in a block ends that test.
    """
    k = len(pdf)
    counts = np.zeros((runs, k))
    length = np.zeros(runs, dtype=np.int64)
    verdict = np.zeros(runs, dtype=np.int64)
    active = np.arange(runs)
    done = 0
    eye = np.eye(k)
    while active.size and done < cap:
        draws = rng.choice(k, size=(active.size, block), p=pdf)
        cum = eye[draws].cumsum(axis=1) + counts[active][:, None, :]
        value = llr(cum, spec)
        up = value >= spec.upper
        hit = up | (value <= spec.lower)
        crossed = hit.any(axis=1)
        first = hit.argmax(axis=1)
        ended = active[crossed]
        length[ended] = done + first[crossed] + 1
        verdict[ended] = np.where(up[crossed, first[crossed]], 1, -1)
        counts[active] = cum[:, -1]
        active = active[~crossed]
        done += block
    length[active] = done
    return verdict, length
