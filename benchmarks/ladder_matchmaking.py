"""Ladder matchmaking: adaptive tables against uniformly random ones, on synthetic bots.

    .venv/bin/python benchmarks/ladder_matchmaking.py [--reps R] [--fields 32,128]
        [--seats 2,4] [--json FILE]

For each field size N and table size K, R ladders of N synthetic bots (true ratings normal,
sd 200 Elo; outcomes sampled from Plackett–Luce) play one-game tables chosen by the ladder's
own matchmaker (arena.ladder.field.Field: online updates, periodic full refits) and, on the
same true ratings, uniformly at random. At N·{2, 4, 8, 16, 32} games the full fit of all
games so far is compared with the truth: top-1 accuracy (the fit's best is the true best),
top-3 accuracy (the fit's top three are the true top three) and Spearman's rank
correlation. The check of the ladder issue: adaptive tables reach random tables' top-1
accuracy at the largest budget with at least 2× fewer games, with no worse Spearman.

It also prints each estimate's error against the truth on the random tables' games
(root-mean-square, Elo, centred): the full fit the leaderboard shows, the online updates
alone and classical incremental Elo (k = 32), with Elo's error as a multiple of the fit's.
"""

from __future__ import annotations

import os

# one BLAS thread: the fit's small dense inversions are far slower on a busy pool
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import time
from typing import Any

import numpy as np

from arena.ladder.simulation import run_ladder, true_ratings

MULTIPLES = (2, 4, 8, 16, 32)  # games per bot at the checkpoints
ERRORS = ("fit_error", "online_error", "elo_error")
# what each checkpoint's mean is taken of (Checkpoint's fields), with its decimals
MEASURES = {"top1": 3, "top3": 3, "spearman": 4} | dict.fromkeys(ERRORS, 1)


def curves(n: int, seats: int, reps: int, adaptive: bool) -> dict[str, list[Any]]:
    """Mean top-1, top-3, Spearman and rating errors at each checkpoint over ``reps``
    seeded ladders."""
    checkpoints = [n * m for m in MULTIPLES]
    sums = np.zeros((len(checkpoints), len(MEASURES)))
    for rep in range(reps):
        truth = true_ratings(n, np.random.default_rng([n, seats, rep]))
        points = run_ladder(truth, seats, checkpoints, adaptive=adaptive, seed=rep)
        sums += [[float(getattr(p, name)) for name in MEASURES] for p in points]
    means = sums / reps
    out: dict[str, list[Any]] = {"games": checkpoints}
    for i, name in enumerate(MEASURES):
        out[name] = means[:, i].round(MEASURES[name]).tolist()
    return out


def saving(adaptive: dict[str, list[Any]], uniform: dict[str, list[Any]], key: str) -> float:
    """How many times fewer games adaptive tables need to reach the accuracy random tables
    have at the largest budget (the ratio of budgets; 0 if they never do)."""
    goal = uniform[key][-1]
    for games, value in zip(adaptive["games"], adaptive[key], strict=True):
        if value >= goal:
            return adaptive["games"][-1] / games
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=24, help="ladders per scheme (default 24)")
    parser.add_argument("--fields", default="32,128", help="field sizes (default 32,128)")
    parser.add_argument("--seats", default="2,4", help="table sizes (default 2,4)")
    parser.add_argument("--json", help="also write the curves to this file")
    args = parser.parse_args()

    report = []
    for n in (int(x) for x in args.fields.split(",")):
        for seats in (int(x) for x in args.seats.split(",")):
            start = time.perf_counter()
            uniform = curves(n, seats, args.reps, adaptive=False)
            adaptive = curves(n, seats, args.reps, adaptive=True)
            took = time.perf_counter() - start
            print(f"\n{n} bots, {seats} seats, {args.reps} ladders per scheme ({took:.0f} s)")
            print(f"{'games':>7} | {'random top1 top3 rho':>22} | {'adaptive top1 top3 rho':>24}")
            for i, games in enumerate(uniform["games"]):
                print(
                    f"{games:7d} | {uniform['top1'][i]:10.2f} {uniform['top3'][i]:4.2f} "
                    f"{uniform['spearman'][i]:5.3f} | {adaptive['top1'][i]:12.2f} "
                    f"{adaptive['top3'][i]:4.2f} {adaptive['spearman'][i]:5.3f}"
                )
            print(
                f"{'games':>7} | rating error on random tables, Elo: fit / online / Elo (Elo/fit)"
            )
            for i, games in enumerate(uniform["games"]):
                fit, online, elo = (uniform[k][i] for k in ERRORS)
                print(f"{games:7d} | {fit:8.1f} {online:8.1f} {elo:8.1f} ({elo / fit:.2f}x)")
            top1, top3 = saving(adaptive, uniform, "top1"), saving(adaptive, uniform, "top3")
            rho_gap = min(
                a - u for a, u in zip(adaptive["spearman"], uniform["spearman"], strict=True)
            )
            verdict = "meets" if top1 >= 2 else "misses"
            print(
                f"adaptive reaches random's top-1 at {uniform['games'][-1]} games with "
                f"{top1:g}x fewer games ({verdict} the 2x target), top-3 with {top3:g}x; "
                f"Spearman adaptive - random, worst checkpoint: {rho_gap:+.3f}"
            )
            report.append(
                {
                    "bots": n,
                    "seats": seats,
                    "reps": args.reps,
                    "random": uniform,
                    "adaptive": adaptive,
                    "top1_saving": top1,
                    "top3_saving": top3,
                    "worst_spearman_gap": round(rho_gap, 4),
                }
            )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
