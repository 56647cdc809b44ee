"""Search support: the cost of Game.clone() and of a determinization, in µs.

    .venv/bin/python benchmarks/search_support.py [--games N] [--seats K]

For each variant, games of K seats (default 4) played by the ``ev`` policy are paused at an
early, a middle and a late decision (10 %, 50 % and 90 % of their decisions). At each point
it times ``clone()`` (with and without the event log), ``Game.determinized`` (a clone and a
shuffle of the draw pile) and ``engine.determinize`` from the public event log (a replay of
the game so far), and prints the median over N games (default 30) of the best of several
calls. A clone replays the current round, so its cost follows the round, not the game; a
determinization from the log replays the whole game so far.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from engine import RULESETS, Game, Ruleset, determinize
from engine.policies import make_policy

VARIANTS = {
    "base": RULESETS["base"],
    "vengeance": RULESETS["vengeance"],
    "vengeance brutal": RULESETS["vengeance"].with_options(brutal=True),
}
POINTS = {"early": 0.1, "mid": 0.5, "late": 0.9}


def best_us(fn: Callable[[], object], repeat: int = 5, number: int = 20) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best * 1e6


def played(rules: Ruleset, seats: int, seed: int) -> Game:
    g = Game(rules, seats, seed)
    policies = [make_policy("ev", seed + i) for i in range(seats)]
    while not g.over:
        d = g.decision
        assert d is not None
        g.step(policies[d.seat](g, d))
    return g


def measure(rules: Ruleset, seats: int, seed: int, frac: float) -> tuple[float, ...]:
    """(round, events, clone, clone without log, determinized, from log) at one point."""
    full = played(rules, seats, seed)
    g = Game.replay(rules, seats, seed, full.choices[: int(frac * len(full.choices))])
    seat = g.decision.seat if g.decision is not None else 0
    rng = random.Random(seed)
    events = list(g.events)
    return (
        g.round,
        len(events),
        best_us(g.clone),
        best_us(lambda: g.clone(record_events=False)),
        best_us(lambda: g.determinized(seat, rng)),
        best_us(lambda: determinize(rules, seats, seat, events, rng), repeat=3, number=3),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30, help="games per variant (default 30)")
    ap.add_argument("--seats", type=int, default=4, help="seats per game (default 4)")
    args = ap.parse_args()
    head = (
        f"{'variant':18} {'point':6} {'round':>5} {'events':>6} {'clone':>8} "
        f"{'no log':>8} {'determ.':>8} {'from log':>9}"
    )
    print(head + "   (µs, median of best-of-5)")
    for name, rules in VARIANTS.items():
        for point, frac in POINTS.items():
            rows = [measure(rules, args.seats, 1_000 + k, frac) for k in range(args.games)]
            med = [statistics.median(col) for col in zip(*rows, strict=True)]
            print(
                f"{name:18} {point:6} {med[0]:5.0f} {med[1]:6.0f} {med[2]:8.1f} "
                f"{med[3]:8.1f} {med[4]:8.1f} {med[5]:9.1f}"
            )


if __name__ == "__main__":
    main()
