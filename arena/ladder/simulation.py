"""Ladders of synthetic bots of known strength, in process: how fast a matchmaker finds
the true order.

Each game's finishing order is sampled from the Plackett–Luce model of the true ratings
(:func:`arena.ratings.synthetic.sample_orders`); tables are chosen by the real
:class:`arena.ladder.field.Field` (the ladder's matchmaker with its online updates and
periodic full refits) or uniformly at random, and the ratings measured at each checkpoint
are the full fit (:func:`arena.ratings.fit_ratings`) of every game so far — what the
ladder's leaderboard shows. Each checkpoint also measures how far from the truth three
estimates of the same games are: the full fit, the field's online belief (on random
tables never refitted: online updates alone) and classical incremental Elo
(:func:`arena.ratings.incremental_elo`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr

from arena.ladder.field import Field
from arena.ladder.matchmaker import Rule
from arena.ratings import GameResult, fit_ratings, incremental_elo
from arena.ratings.synthetic import sample_orders

__all__ = ["Checkpoint", "rms_error", "run_ladder", "true_ratings"]


@dataclass(frozen=True)
class Checkpoint:
    games: int
    top1: bool  # the fit's best bot is the true best
    top3: bool  # the fit's top three are the true top three (in any order)
    spearman: float  # rank correlation of the fit with the truth over the whole field
    # root-mean-square error in Elo against the truth, each estimate and the truth centred
    # on their field means (ratings are only defined up to a constant)
    fit_error: float  # the full Plackett–Luce fit
    online_error: float  # the matchmaker's online belief
    elo_error: float  # incremental Elo, k = 32


def rms_error(estimate: Sequence[float], truth: Sequence[float]) -> float:
    """Root-mean-square difference of two rating vectors, each centred on its mean."""
    e, t = np.asarray(estimate, dtype=float), np.asarray(truth, dtype=float)
    return float(np.sqrt(np.mean(((e - e.mean()) - (t - t.mean())) ** 2)))


def true_ratings(n: int, rng: np.random.Generator, sd: float = 200.0) -> np.ndarray:
    """True Elo ratings of a field of ``n`` synthetic bots (normal, ``sd``)."""
    return rng.normal(0.0, sd, n)


def run_ladder(
    truth: Sequence[float],
    seats: int,
    checkpoints: Sequence[int],
    *,
    adaptive: bool,
    seed: int,
    rule: Rule | None = None,
) -> list[Checkpoint]:
    """Play one-game tables among bots of ratings ``truth`` until the last checkpoint,
    measuring the full fit at each (games played so far). ``rule``: the matchmaker's
    constants (default: the ladder's)."""
    names = [f"b{i:03d}" for i in range(len(truth))]
    strengths = np.exp((np.asarray(truth) - max(truth)) * (math.log(10.0) / 400.0))
    index = {name: i for i, name in enumerate(names)}
    order = sorted(range(len(names)), key=lambda i: -truth[i])
    best, top3 = names[order[0]], {names[i] for i in order[:3]}
    rng = random.Random(seed)
    outcome_rng = np.random.default_rng(seed)
    field = Field(seats) if rule is None else Field(seats, rule)
    played: list[GameResult] = []
    out = []
    for goal in sorted(checkpoints):
        while len(played) < goal:
            seating = field.choose(names, rng, adaptive=adaptive)
            finish = sample_orders(strengths, [[index[p] for p in seating]], outcome_rng)[0]
            place = {names[i]: rank for rank, i in enumerate(finish.tolist(), start=1)}
            game = GameResult(seating, tuple(place[p] for p in seating))
            played.append(game)
            field.record(game)
            if adaptive and field.refit_due():
                field.refit(fit_ratings(played))
        fit = fit_ratings(played)
        fitted = [fit.ratings.get(p, fit.anchor) for p in names]
        rho = float(spearmanr(fitted, truth).statistic)
        elo = incremental_elo(played).ratings
        out.append(
            Checkpoint(
                goal,
                fit.players[0] == best,
                set(fit.players[:3]) == top3,
                rho,
                fit_error=rms_error(fitted, truth),
                online_error=rms_error([field.online.rating(p) for p in names], truth),
                elo_error=rms_error([elo.get(p, 1500.0) for p in names], truth),
            )
        )
    return out
