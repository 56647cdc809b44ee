"""Ratings speed: the maximum-likelihood fit and incremental Elo on synthetic games.

    .venv/bin/python benchmarks/ratings_fit.py [--games N] [--players P] [--seats K]

Draws true ratings (normal, sd 200 Elo), seats ``K`` distinct players uniformly at each of
``N`` tables and ranks each table by sequential Plackett–Luce sampling. Each timing is the
best of ``--repeats`` runs. Also reports how well both views recover the true ratings.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from arena.ratings import fit_ratings, incremental_elo
from arena.ratings.synthetic import sample_games

T = TypeVar("T")


def best_of(repeats: int, run: Callable[[], T]) -> tuple[float, T]:
    """Smallest wall time over ``repeats`` runs, and the last result."""
    best = float("inf")
    result: T | None = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    assert result is not None
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=1_000)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    truth = rng.normal(0.0, 200.0, args.players)
    names = [f"bot{i:04d}" for i in range(args.players)]
    start = time.perf_counter()
    games = sample_games(truth, args.games, args.seats, rng, names=names)
    generated = time.perf_counter() - start
    print(
        f"{args.games:,} games x {args.seats} seats over {args.players:,} players "
        f"(generated in {generated:.2f} s)"
    )

    fit_time, fit = best_of(args.repeats, lambda: fit_ratings(games))
    elo_time, elo = best_of(args.repeats, lambda: incremental_elo(games))

    fitted = np.array([fit.ratings[n] for n in names])
    final_elo = np.array([elo.ratings[n] for n in names])
    width = np.mean([fit.ci_high[n] - fit.ci_low[n] for n in names])
    rmse = float(np.sqrt(np.mean((fitted - fit.anchor - (truth - truth.mean())) ** 2)))
    print(f"fit_ratings      best of {args.repeats}: {fit_time:6.3f} s  ({fit.iterations} Newton)")
    print(f"incremental_elo  best of {args.repeats}: {elo_time:6.3f} s")
    print(f"corr(fit, true)          = {np.corrcoef(fitted, truth)[0, 1]:.4f}")
    print(f"corr(incremental, true)  = {np.corrcoef(final_elo, truth)[0, 1]:.4f}")
    print(f"fit RMSE vs true (Elo)   = {rmse:.1f}; mean 95 % interval width = {width:.1f}")


if __name__ == "__main__":
    main()
