"""Engine speed: rounds per second on one core, full rules, events recorded.

    .venv/bin/python benchmarks/engine_speed.py [--seconds S] [--profile CASE]

Every case runs in this one process, side by side, so ratios between cases are meaningful
on a noisy machine. Each figure is the best of three timed runs of about S seconds.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from arena.seeds import derive_seed
from arena.simulate import play_game
from engine import RULESETS, Game
from engine.policies import make_policy

CASES = {
    "base 4x threshold:23": ("base", 4, ["threshold:23"] * 4, False),
    "base 4x ev": ("base", 4, ["ev"] * 4, False),
    "base 4x random": ("base", 4, ["random"] * 4, False),
    "base solo threshold:23 single round": ("base", 1, ["threshold:23"], True),
    "vengeance 4x threshold:26": ("vengeance", 4, ["threshold:26"] * 4, False),
    "vengeance 4x ev": ("vengeance", 4, ["ev"] * 4, False),
    "vengeance brutal 4x ev": ("vengeance+brutal", 4, ["ev"] * 4, False),
}


def ruleset(name: str):
    if name.endswith("+brutal"):
        return RULESETS[name.split("+")[0]].with_options(brutal=True)
    return RULESETS[name]


def run_for(case: str, seconds: float) -> tuple[int, float]:
    variant, seats, pols, single = CASES[case]
    rules = ruleset(variant)
    rounds = 0
    g = 0
    t0 = time.perf_counter()
    while True:
        seed = derive_seed(99, g)
        policies = [make_policy(p, seed + i) for i, p in enumerate(pols)]
        game = play_game(Game(rules, seats, seed, single_round=single), policies)
        rounds += game.round
        g += 1
        el = time.perf_counter() - t0
        if el >= seconds:
            return rounds, el


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="time per run (3 runs per case)")
    ap.add_argument("--profile", metavar="CASE", choices=list(CASES), help="profile one case")
    args = ap.parse_args()
    if args.profile:
        prof = cProfile.Profile()
        prof.runcall(run_for, args.profile, args.seconds)
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
        return
    print(f"{'case':40} {'rounds/s':>12} {'us/round':>10}")
    for case in CASES:
        best = 0.0
        for _ in range(3):
            rounds, el = run_for(case, args.seconds)
            best = max(best, rounds / el)
        print(f"{case:40} {best:12,.0f} {1e6 / best:10.1f}")


if __name__ == "__main__":
    main()
